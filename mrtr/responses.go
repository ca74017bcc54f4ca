package mrtr

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResponseStatus says what the client answered to one input request.
type ResponseStatus uint8

const (
	// Missing: no usable answer this round (not sent, sent to a state that
	// cannot take it, or a gate that was not shown yet). Ask again.
	Missing ResponseStatus = iota
	// Accepted: an answer to validate.
	Accepted
	// Declined: the user said no (elicitation action "decline").
	Declined
	// Cancelled: the user dismissed the request (action "cancel").
	Cancelled
	// Malformed: an answer of the wrong kind or shape. Ask again, saying why.
	Malformed
)

// Response is the client's answer to one input request.
type Response struct {
	Status ResponseStatus
	// Content is the form's content (Elicit, when Accepted).
	Content map[string]any
	// Text is the sampled text (Sample, when Accepted).
	Text string
	// URIs are the roots (Roots, when Accepted).
	URIs []string
	// Problem says why an answer is Malformed.
	Problem string
}

// available reports whether this round may take answers for the current
// state from inputResponses.
// available reports whether this round may take the answer to key from
// inputResponses: only at the state the requestState was issued at (a
// first call, or a later question in the same round, was never shown),
// on the round's first run of it (Response), and only for a
// request that was sent (an unsolicited key is ignored, as the MCP MRTR
// rules ask).
func (r *Round) available(key string) bool {
	if r.resumedAt == 0 || r.current != r.resumedAt {
		return false
	}
	i := r.d.State(r.current).request(key)
	return i >= 0 && i < 64 && r.sent&(1<<i) != 0
}

// Response returns the answer to the current state's request key: from
// inputResponses when the round may take it, or from the "inputs" argument
// of a non-interactive program.
func (r *Round) Response(key string, kind RequestKind) Response {
	if r.runs[r.current] > 1 {
		return Response{Status: Missing} // answered earlier in this round: a loop back asks again
	}
	if raw, ok := r.inputs[key]; ok {
		return upfrontResponse(raw, kind, r.gateField(key))
	}
	if !r.available(key) {
		return Response{Status: Missing}
	}
	resp, ok := r.req.InputResponses[key]
	if !ok || resp == nil {
		return Response{Status: Missing}
	}
	switch kind {
	case Elicit:
		er, ok := resp.(*mcp.ElicitResult)
		if !ok {
			return Response{Status: Malformed, Problem: "expected an elicitation result"}
		}
		switch er.Action {
		case "accept":
			return Response{Status: Accepted, Content: er.Content}
		case "decline":
			return Response{Status: Declined}
		case "cancel":
			return Response{Status: Cancelled}
		}
		return Response{Status: Malformed, Problem: fmt.Sprintf("unknown elicitation action %q", er.Action)}
	case Sample:
		var content []mcp.Content
		switch sr := resp.(type) {
		//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the runtime reads the answers clients send
		case *mcp.CreateMessageWithToolsResult:
			content = sr.Content
		//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the runtime reads the answers clients send
		case *mcp.CreateMessageResult:
			content = []mcp.Content{sr.Content}
		default:
			return Response{Status: Malformed, Problem: "expected a sampling result"}
		}
		var b strings.Builder
		for _, c := range content {
			if t, ok := c.(*mcp.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
		if b.Len() == 0 {
			return Response{Status: Malformed, Problem: "the sampling result has no text"}
		}
		return Response{Status: Accepted, Text: b.String()}
	case Roots:
		//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the runtime reads the answers clients send
		lr, ok := resp.(*mcp.ListRootsResult)
		if !ok {
			return Response{Status: Malformed, Problem: "expected a roots list"}
		}
		uris := make([]string, 0, len(lr.Roots))
		for _, root := range lr.Roots {
			if root == nil {
				continue
			}
			uris = append(uris, root.URI)
		}
		return Response{Status: Accepted, URIs: uris}
	}
	return Response{Status: Missing}
}

// gateField returns the boolean field of a confirmation gate with this key.
func (r *Round) gateField(key string) string {
	if info := r.d.State(r.current); info != nil {
		for _, q := range info.Requests {
			if q.Key == key {
				return q.GateField
			}
		}
	}
	return ""
}

// upfrontResponse reads an answer supplied in the "inputs" argument: a form
// as an object, a gate as a boolean, a sampled text as a string, roots as
// a list of URIs.
func upfrontResponse(raw json.RawMessage, kind RequestKind, gateField string) Response {
	bad := func(want string) Response {
		return Response{Status: Malformed, Problem: "inputs: expected " + want}
	}
	switch kind {
	case Elicit:
		if gateField != "" {
			var ok bool
			if json.Unmarshal(raw, &ok) != nil {
				return bad("true or false")
			}
			return Response{Status: Accepted, Content: map[string]any{gateField: ok}}
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return bad("an object of form fields")
		}
		return Response{Status: Accepted, Content: m}
	case Sample:
		var s string
		if json.Unmarshal(raw, &s) != nil || s == "" {
			return bad("a non-empty string")
		}
		return Response{Status: Accepted, Text: s}
	case Roots:
		var uris []string
		if json.Unmarshal(raw, &uris) != nil {
			return bad("a list of URIs")
		}
		return Response{Status: Accepted, URIs: uris}
	}
	return Response{Status: Missing}
}

// splitInputs separates the "inputs" argument of non-interactive programs
// from the declared arguments.
func splitInputs(args json.RawMessage, nonInteractive bool) (json.RawMessage, map[string]json.RawMessage, error) {
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage("{}"), nil, nil
	}
	if !nonInteractive {
		return args, nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, nil, fmt.Errorf("arguments must be a JSON object: %w", err)
	}
	raw, ok := m["inputs"]
	if !ok {
		return args, nil, nil
	}
	delete(m, "inputs")
	var inputs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &inputs); err != nil {
		return nil, nil, fmt.Errorf("argument inputs must be an object of answers by request key: %w", err)
	}
	rest, err := json.Marshal(m)
	return rest, inputs, err
}

// CheckRoots validates a roots answer against its bounds.
func CheckRoots(uris []string, minItems, maxItems int) Problems {
	var p Problems
	if len(uris) < minItems {
		p.Addf("at least %d roots are needed, got %d", minItems, len(uris))
	}
	if len(uris) > maxItems {
		p.Addf("at most %d roots are accepted, got %d", maxItems, len(uris))
	}
	for _, u := range uris {
		if len(u) > MaxRootURIBytes {
			p.Addf("root URI longer than %d bytes", MaxRootURIBytes)
			continue
		}
		if pu, err := url.Parse(u); err != nil || pu.Scheme == "" {
			p.Addf("root %q is not an absolute URI", u)
		}
	}
	return p
}

// MaxRootURIBytes bounds one root URI.
const MaxRootURIBytes = 512

// Sampled is the answer to a sampling request: the text the client's model
// produced, validated against the request's bounds.
type Sampled struct {
	Text string
}

// RootList is the answer to a roots request: the client's root URIs.
type RootList struct {
	URIs []string
}

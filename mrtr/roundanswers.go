package mrtr

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/response"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/problem"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// available reports whether this round may take answers for the current
// state from inputResponses.
// available reports whether this round may take the answer to key from
// inputResponses: only at the state the requestState was issued at (a
// first call, or a later question in the same round, was never shown),
// on the round's first run of it (Response), and only for a
// request that was sent (an unsolicited key is ignored, as the MCP MRTR
// rules ask).
func (r *round) available(key string) bool {
	if r.resumedAt == 0 || r.current != r.resumedAt {
		return false
	}
	i := r.d.State(r.current).RequestIndex(key)
	return i >= 0 && i < 64 && r.sent&(1<<i) != 0
}

// Response returns the answer to the current state's request key: from
// inputResponses when the round may take it, or from the "inputs" argument
// of a non-interactive program.
//
// An answer to the question as it was sent wins over one given up front:
// when a check refused the up-front answer and asked again (mrtr.AskAgain),
// a client that sends its inputs on every call still gets its new answer
// taken, not the refused one.
func (r *round) Response(key string, kind vocab.RequestKind) response.Response {
	if r.runsOf(r.current) > 1 || r.reasked[r.current] {
		return response.Response{Status: response.Missing} // answered earlier in this round: a loop back asks again
	}
	resp, answered := r.req.InputResponses[key]
	if raw, ok := r.inputs[key]; ok && !(answered && resp != nil && r.available(key)) {
		return upfrontResponse(raw, kind, r.gateField(key))
	}
	if !r.available(key) || !answered || resp == nil {
		return response.Response{Status: response.Missing}
	}
	switch kind {
	case vocab.Elicit, vocab.ElicitURL:
		return elicitResponse(resp, kind)
	case vocab.Sample:
		return samplingResponse(resp)
	case vocab.Roots:
		return rootsResponse(resp)
	}
	return response.Response{Status: response.Missing}
}

// elicitResponse reads the answer to a form or a URL step.
func elicitResponse(resp mcp.InputResponse, kind vocab.RequestKind) response.Response {
	er, ok := resp.(*mcp.ElicitResult)
	if !ok {
		return response.Response{Status: response.Malformed, Problem: problem.NotAnElicitResult}
	}
	switch er.Action {
	case "accept":
		if kind == vocab.ElicitURL {
			// A URL step's answer has no content; what the client sends
			// is ignored (the check after it asks the domain).
			return response.Response{Status: response.Accepted}
		}
		return response.Response{Status: response.Accepted, Content: er.Content}
	case "decline":
		return response.Response{Status: response.Declined}
	case "cancel":
		return response.Response{Status: response.Cancelled}
	}
	return response.Response{Status: response.Malformed, Problem: problem.UnknownAction(er.Action)}
}

// samplingResponse reads a sampled message: its text, which must not be empty.
func samplingResponse(resp mcp.InputResponse) response.Response {
	var content []mcp.Content
	switch sr := resp.(type) {
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the runtime reads the answers clients send
	case *mcp.CreateMessageWithToolsResult:
		content = sr.Content
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the runtime reads the answers clients send
	case *mcp.CreateMessageResult:
		content = []mcp.Content{sr.Content}
	default:
		return response.Response{Status: response.Malformed, Problem: problem.NotASamplingResult}
	}
	var b strings.Builder
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	if b.Len() == 0 {
		return response.Response{Status: response.Malformed, Problem: problem.SamplingWithoutText}
	}
	return response.Response{Status: response.Accepted, Text: b.String()}
}

// rootsResponse reads a roots list: the URIs of its roots.
func rootsResponse(resp mcp.InputResponse) response.Response {
	//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the runtime reads the answers clients send
	lr, ok := resp.(*mcp.ListRootsResult)
	if !ok {
		return response.Response{Status: response.Malformed, Problem: problem.NotARootsList}
	}
	uris := make([]string, 0, len(lr.Roots))
	for _, root := range lr.Roots {
		if root == nil {
			continue
		}
		uris = append(uris, root.URI)
	}
	return response.Response{Status: response.Accepted, URIs: uris}
}

// gateField returns the boolean field of a confirmation gate with this key.
func (r *round) gateField(key string) string {
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
func upfrontResponse(raw json.RawMessage, kind vocab.RequestKind, gateField string) response.Response {
	bad := func(want string) response.Response {
		return response.Response{Status: response.Malformed, Problem: problem.UpfrontWrongType(want)}
	}
	switch kind {
	case vocab.Elicit:
		if gateField != "" {
			var ok bool
			if json.Unmarshal(raw, &ok) != nil {
				return bad("true or false")
			}
			return response.Response{Status: response.Accepted, Content: map[string]any{gateField: ok}}
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return bad("an object of form fields")
		}
		return response.Response{Status: response.Accepted, Content: m}
	case vocab.Sample:
		var s string
		if json.Unmarshal(raw, &s) != nil || s == "" {
			return bad("a non-empty string")
		}
		return response.Response{Status: response.Accepted, Text: s}
	case vocab.Roots:
		var uris []string
		if json.Unmarshal(raw, &uris) != nil {
			return bad("a list of URIs")
		}
		return response.Response{Status: response.Accepted, URIs: uris}
	case vocab.ElicitURL:
		// The step happens on the page the URL opens, never in the
		// arguments: the request is sent as it is.
		return response.Response{Status: response.Malformed, Problem: problem.URLStepUpfront}
	}
	return response.Response{Status: response.Missing}
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

package mrtrtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// The "over HTTP" scenario: the fixture workflow round by round over
// streamable HTTP with the official SDK client (automatic MRTR retries
// off, so each round is visible).

// runHTTP walks route r on h's engine over HTTP; an error is a
// *roundError.
func (m *matrix[F]) runHTTP(t testing.TB, h *Harness[F], r *route) error {
	d := h.Program.Descriptor()
	session, err := connectHTTP(t, h)
	if err != nil {
		return &roundError{round: 1, want: "an MCP session over HTTP", did: err.Error()}
	}
	defer session.Close()
	raw, err := marshalArgs(r.args)
	if err != nil {
		return &roundError{round: 1, want: "arguments that marshal to JSON", did: err.Error()}
	}
	w := &httpWalk{session: session, d: d, raw: raw, r: r}
	limit := h.maxRounds()
	var prev mcp.InputRequestMap // what the round before the last asked
	for round := 1; round <= limit; round++ {
		var done bool
		switch d.Kind {
		case vocab.KindPrompt:
			done, err = w.prompt(round)
		case vocab.KindResource:
			done, err = w.resource(round)
		default:
			done, err = w.tool(round)
		}
		if err != nil || done {
			return err
		}
		if refused := refusedAnswers(step{responses: w.responses, reply: &mrtr.Reply{InputRequests: w.inputs}}); refused != nil {
			return m.refusedError(round, refused, w.responses)
		}
		if round == limit {
			break
		}
		prev = w.inputs
		w.responses, err = respondOn(h, d, r, &mrtr.Reply{InputRequests: w.inputs, RequestState: w.state}, r.leaveAt(round-1))
		if err != nil {
			return &roundError{round: round, want: "questions the fixtures can answer", did: err.Error()}
		}
	}
	var before *mrtr.Reply
	if prev != nil {
		before = &mrtr.Reply{InputRequests: prev}
	}
	return roundLimit(limit, &mrtr.Reply{InputRequests: w.inputs, RequestState: w.state}, before, nil, h.Principal, " over HTTP")
}

// connectHTTP serves h's program on a test HTTP server and connects an SDK
// client that answers nothing directly (on protocol 2026-07-28 every
// question comes in a result).
func connectHTTP[F any](t testing.TB, h *Harness[F]) (*mcp.ClientSession, error) {
	server := mcp.NewServer(&mcp.Implementation{Name: Audience, Version: "test"}, nil)
	switch h.Program.Descriptor().Kind {
	case vocab.KindPrompt:
		mrtr.AddPrompt(server, h.Engine, h.Program)
	case vocab.KindResource:
		mrtr.AddResource(server, h.Engine, h.Program)
	default:
		mrtr.AddTool(server, h.Engine, roundsOnly(h.Program))
	}
	ts := httptest.NewServer(mrtr.Handler(server, nil))
	t.Cleanup(ts.Close)
	refuse := errors.New("the client must not be asked directly on protocol 2026-07-28")
	client := mcp.NewClient(&mcp.Implementation{Name: "mrtrtest-client", Version: "test"}, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, refuse },
		// Forms and URLs, as AllCapabilities; and roots, which the SDK
		// declares only when Capabilities is nil.
		Capabilities: &mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
			//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the test kit answers as a client does
			RootsV2: &mcp.RootCapabilities{ListChanged: true},
		},
		//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the test kit answers as a client does
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, refuse
		},
	})
	//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the test kit answers as a client does
	client.AddRoots(&mcp.Root{URI: "file:///mrtrtest"})
	return client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
}

// httpWalk is a workflow in progress over HTTP: the answers the next round
// sends, and what the last one asked.
type httpWalk struct {
	session   *mcp.ClientSession
	d         *mrtrimpl.Descriptor
	raw       json.RawMessage
	r         *route
	state     string
	responses mcp.InputResponseMap
	inputs    mcp.InputRequestMap
}

// prompt sends one prompts/get round; done when the workflow ended.
func (w *httpWalk) prompt(round int) (done bool, err error) {
	var args map[string]string
	if err := json.Unmarshal(w.raw, &args); err != nil {
		return false, &roundError{round: round, want: "prompt arguments that are strings", did: err.Error()}
	}
	res, err := w.session.GetPrompt(context.Background(), &mcp.GetPromptParams{
		Name: w.d.Name, Arguments: args, InputResponses: w.responses, RequestState: w.state})
	switch {
	case err != nil && w.r.want != mrtr.OutcomeSuccess:
		return true, nil // a prompt that fails ends with a JSON-RPC error
	case err != nil:
		return false, &roundError{round: round, want: "a prompt result", did: callFailed(err)}
	case !res.NeedsInput() && len(res.Messages) == 0:
		return false, &roundError{round: round, want: "a complete prompt result with messages", did: "it has none"}
	case !res.NeedsInput():
		return true, nil
	}
	w.inputs, w.state = res.InputRequests, res.RequestState
	return false, nil
}

// tool sends one tools/call round; done when the workflow ended.
func (w *httpWalk) tool(round int) (done bool, err error) {
	res, err := w.session.CallTool(context.Background(), &mcp.CallToolParams{
		Name: w.d.Name, Arguments: w.raw, InputResponses: w.responses, RequestState: w.state})
	if err != nil {
		return false, &roundError{round: round, want: "a tool result", did: callFailed(err)}
	}
	if res.NeedsInput() {
		w.inputs, w.state = res.InputRequests, res.RequestState
		return false, nil
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	wantError := w.r.want != mrtr.OutcomeSuccess && w.r.want != mrtr.OutcomeCancelled
	// A result of content items only (an image, a resource) has no text.
	if res.IsError != wantError || (text == "" && len(res.Content) == 0) {
		return false, &roundError{round: round, want: fmt.Sprintf("a final result with isError=%v and a text (outcome %s)", wantError, w.r.want),
			did: fmt.Sprintf("it ended with isError=%v and text %q", res.IsError, text)}
	}
	if msg := wireStructuredProblem(w.d, res); msg != "" {
		return false, &roundError{round: round, want: "a structuredContent that conforms to the outputSchema", did: msg}
	}
	return true, nil
}

// resource sends one resources/read round; done when the workflow ended.
func (w *httpWalk) resource(round int) (done bool, err error) {
	uri, err := ResourceURI(w.d, w.raw)
	if err != nil {
		return false, &roundError{round: round, want: "a URI the arguments fill in", did: err.Error()}
	}
	res, err := w.session.ReadResource(context.Background(), &mcp.ReadResourceParams{
		URI: uri, InputResponses: w.responses, RequestState: w.state})
	switch {
	case err != nil && w.r.want != mrtr.OutcomeSuccess:
		return true, nil // a read that fails ends with a JSON-RPC error
	case err != nil:
		return false, &roundError{round: round, want: "a resources/read result", did: callFailed(err)}
	case !res.NeedsInput() && len(res.Contents) == 0:
		return false, &roundError{round: round, want: "a complete read result with contents", did: "it has none"}
	case !res.NeedsInput():
		return true, nil
	}
	w.inputs, w.state = res.InputRequests, res.RequestState
	return false, nil
}

// ResourceURI is the URI a resource program is read at with the arguments
// args (a JSON object of strings): its fixed URI, or its URI template with
// each {variable} replaced by the argument, path-escaped.
func ResourceURI(d *mrtrimpl.Descriptor, args json.RawMessage) (string, error) {
	if d.Resource == nil {
		return "", fmt.Errorf("%s is not a resource", d.Name)
	}
	if d.Resource.URITemplate == "" {
		return d.Resource.URI, nil
	}
	var vars map[string]string
	if len(args) > 0 {
		if err := json.Unmarshal(args, &vars); err != nil {
			return "", fmt.Errorf("resource arguments must be strings: %w", err)
		}
	}
	var missing error
	uri := templateVar.ReplaceAllStringFunc(d.Resource.URITemplate, func(m string) string {
		v, ok := vars[m[1:len(m)-1]]
		if !ok && missing == nil {
			missing = fmt.Errorf("no argument for %s", m)
		}
		return url.PathEscape(v)
	})
	return uri, missing
}

var templateVar = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_]*\}`)

// roundsOnly is p without its task mode (spec: task): over HTTP the
// matrix drives the workflow's rounds as a client without the tasks
// extension does, even for a tool whose mode is required (the task wire
// has its own tests: mrtr/tasks, mrtr's TestWorkflowAsTask, the
// conformance suite).
func roundsOnly[F any](p mrtr.Program[F]) mrtr.Program[F] {
	if p.Descriptor().Task == nil {
		return p
	}
	d := *p.Descriptor()
	d.Task = nil
	return withDescriptor[F]{Program: p, d: &d}
}

type withDescriptor[F any] struct {
	mrtr.Program[F]
	d *mrtrimpl.Descriptor
}

func (p withDescriptor[F]) Descriptor() *mrtrimpl.Descriptor { return p.d }

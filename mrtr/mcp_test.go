package mrtr_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// serve starts transfer and vault behind mrtr.Handler.
func serve(t *testing.T) (string, *testprog.TransferImpl) {
	return serveLogging(t, quiet)
}

// serveLogging is serve with the engine logging to log; it serves spin too.
func serveLogging(t *testing.T, log *slog.Logger) (string, *testprog.TransferImpl) {
	t.Helper()
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "http-test", Codec: mrtrtest.NewCodec(t, clock), Logger: log,
		Store: store.NewMemory(store.Options{Now: clock.Now})})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "http-test", Version: "test"}, nil)
	impl := &testprog.TransferImpl{}
	testprog.RegisterTransfer(s, e, impl)
	testprog.RegisterVault(s, e, &testprog.VaultImpl{})
	testprog.RegisterSpin(s, e, &testprog.SpinImpl{})
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(ts.Close)
	return ts.URL, impl
}

func connect(t *testing.T, url string, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "test"}, opts)
	//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; this test covers it
	c.AddRoots(&mcp.Root{URI: "file:///tmp"})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A client older than MRTR, on a stateful session, completes a three-round
// workflow in one call: the engine asks it over its session.
func TestOldClientCompletesThroughTheBridge(t *testing.T) {
	url, impl := serve(t)
	asked := map[string]int{}
	cs := connect(t, url, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if _, ok := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)["confirm"]; ok {
				asked["confirm"]++
				return confirm(true), nil
			}
			asked["memo"]++
			return memo("rent"), nil
		},
		//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; this test covers it
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			asked["summary"]++
			//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; this test covers it
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "rent"}}, nil
		},
	}, "2025-11-25")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.NeedsInput() || impl.SentCount() != 1 {
		t.Fatalf("old client: %+v (sent %d)", res, impl.SentCount())
	}
	if asked["memo"] != 1 || asked["summary"] != 1 || asked["confirm"] != 1 {
		t.Fatalf("the client was asked %v, want memo, summary and confirm once each", asked)
	}
}

// A client that answers nothing interactively supplies every answer as
// an argument and completes in one call.
func TestClientSupplyingEveryInputUpFront(t *testing.T) {
	url, impl := serve(t)
	cs := connect(t, url, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "2025-11-25")
	args := map[string]any{"account": "acc-123", "amount": 40, "inputs": map[string]any{"memo": map[string]any{"note": "rent"}, "confirm": true}}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "transfer", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.NeedsInput() || impl.SentCount() != 1 {
		t.Fatalf("up-front inputs: %+v (sent %d)", res, impl.SentCount())
	}
}

// A 2026-07-28 client sees each round and drives it itself; tokens from
// the wire work like tokens from Run.
func TestNewClientRoundByRound(t *testing.T) {
	url, impl := serve(t)
	cs := connect(t, url, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { panic("asked directly") },
	}, "")
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs})
	if err != nil || !res.NeedsInput() || res.InputRequests["memo"] == nil {
		t.Fatalf("round 1: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"memo": memo("rent")}})
	if err != nil || !res.NeedsInput() || res.InputRequests["confirm"] == nil {
		t.Fatalf("round 2: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"confirm": confirm(true)}})
	if err != nil || res.NeedsInput() || res.IsError || impl.SentCount() != 1 {
		t.Fatalf("round 3: %+v, %v", res, err)
	}
}

// A program that keeps its continuation server-side cannot be registered
// on an engine without a store: the server fails at start, not every round.
func TestReferenceProgramNeedsAStoreAtRegistration(t *testing.T) {
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "a", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registered a by-reference program without a store")
		}
	}()
	testprog.RegisterVault(mcp.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil), e, &testprog.VaultImpl{})
}

// answerElicitations makes a go-sdk client answer elicitation/create
// requests with answer's results as they are, skipping the SDK client's
// own schema check: TypeScript SDK clients (v1 and v2, default mode) and
// mcp-go send what their user typed, valid or not, and a server must cope.
func answerElicitations(answer func(*mcp.ElicitParams) *mcp.ElicitResult) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if er, ok := req.(*mcp.ElicitRequest); ok {
				return answer(er.Params), nil
			}
			return next(ctx, method, req)
		}
	}
}

// An older client on a session whose answer breaks the requested schema
// (a memo over its 50 characters) is asked again with the problem, as a
// 2026-07-28 client would be, and completes with its corrected answer.
// go-sdk's ServerSession.Elicit refuses such an answer with an error of
// its own; the call used to end in -32603 "internal error".
func TestOldClientIsAskedAgainAfterASchemaInvalidAnswer(t *testing.T) {
	url, impl := serve(t)
	var messages []string
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "test"}, &mcp.ClientOptions{
		// Declares elicitation; answers come from the middleware below.
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { panic("unused") },
	})
	c.AddReceivingMiddleware(answerElicitations(func(p *mcp.ElicitParams) *mcp.ElicitResult {
		messages = append(messages, p.Message)
		props := p.RequestedSchema.(map[string]any)["properties"].(map[string]any)
		switch {
		case props["confirm"] != nil:
			return confirm(true)
		case len(messages) == 1:
			return memo(strings.Repeat("x", 60)) // maxLength is 50
		default:
			return memo("rent")
		}
	}))
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs})
	if err != nil {
		t.Fatalf("the call failed: %v (asked %q)", err, messages)
	}
	if res.IsError || impl.SentCount() != 1 {
		t.Fatalf("result %+v, sent %d", res, impl.SentCount())
	}
	if len(messages) != 3 || !strings.Contains(messages[1], "Please correct: note: at most 50 characters") {
		t.Fatalf("the client was asked %q, want the memo, the memo again with the problem, the confirmation", messages)
	}
}

// Every internal error a client gets is in the server's log with its
// cause and tool: the client only learns "internal error".
func TestInternalErrorsAreLoggedWithTheirCause(t *testing.T) {
	var logs mrtrtest.LogBuffer
	url, _ := serveLogging(t, slog.New(slog.NewTextHandler(&logs, nil)))
	ctx := context.Background()

	// A round that never asks (the engine bounds it).
	cs := connect(t, url, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "")
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spin"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || je.Message != "internal error" {
		t.Fatalf("spin: %v, want -32603 internal error", err)
	}
	if l := logs.String(); !strings.Contains(l, "mrtr: internal error") || !strings.Contains(l, "tool=spin") ||
		!strings.Contains(l, "without asking for input") {
		t.Fatalf("the internal error is not logged with its cause:\n%s", l)
	}

	// An older client that fails to answer over its session.
	old := connect(t, url, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("the user's dialog crashed")
		},
	}, "2025-11-25")
	if _, err := old.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs}); err == nil {
		t.Fatal("a client that cannot answer completed the call")
	}
	if l := logs.String(); !strings.Contains(l, "mrtr: asking the client over its session failed") ||
		!strings.Contains(l, "the user's dialog crashed") || !strings.Contains(l, "request=memo") {
		t.Fatalf("the failure to ask is not logged with its cause:\n%s", l)
	}
}

// Invalid arguments are a tool result with isError and the problems, on
// 2026-07-28 and on an older session alike; an unknown tool and a bad
// requestState stay JSON-RPC error -32602.
func TestInvalidArgumentsAreAToolError(t *testing.T) {
	url, impl := serve(t)
	ctx := context.Background()
	for _, version := range []string{"", "2025-11-25"} {
		cs := connect(t, url, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, version)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: map[string]any{"account": "nope", "amount": 0}})
		if err != nil {
			t.Fatalf("protocol %q: invalid arguments: %v, want an error result", version, err)
		}
		text := ""
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if !res.IsError || !strings.Contains(text, "account: must match acc-[0-9]{3}") || !strings.Contains(text, "amount: at least 1") {
			t.Fatalf("protocol %q: invalid arguments: %+v (%q)", version, res, text)
		}
		var je *jsonrpc.Error
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("protocol %q: unknown tool: %v, want -32602", version, err)
		}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs, RequestState: "garbage",
			InputResponses: mcp.InputResponseMap{"memo": memo("rent")}})
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("protocol %q: bad requestState: %v, want -32602", version, err)
		}
	}
	if impl.SentCount() != 0 {
		t.Fatalf("sent %d", impl.SentCount())
	}
}

// post sends one JSON-RPC request the way a 2026-07-28 client does.
func post(t *testing.T, url, method, name, params string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// A 2026-07-28 request that asks for no notifications is answered with
// plain JSON (curl | jq works); one that asks for logs gets an event
// stream, where its log messages can travel before the result.
func TestPlainJSONUnlessNotificationsAreWanted(t *testing.T) {
	url, _ := serve(t)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`
	resp := post(t, url, "tools/call", "transfer", `{"name":"transfer","arguments":{"account":"acc-123","amount":40},`+meta+`}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	var reply struct {
		Result struct {
			ResultType    string         `json:"resultType"`
			InputRequests map[string]any `json:"inputRequests"`
			RequestState  string         `json:"requestState"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	if reply.Result.ResultType != "input_required" || reply.Result.InputRequests["memo"] == nil || reply.Result.RequestState == "" {
		t.Fatalf("reply %+v", reply.Result)
	}

	logs := post(t, url, "tools/call", "transfer", `{"name":"transfer","arguments":{"account":"acc-123","amount":40},`+meta+`,"io.modelcontextprotocol/logLevel":"info"}}`)
	if ct := logs.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("with a log level: Content-Type %q, want text/event-stream", ct)
	}
	progress := post(t, url, "tools/call", "transfer", `{"name":"transfer","arguments":{"account":"acc-123","amount":40},`+meta+`,"progressToken":"p1"}}`)
	if ct := progress.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("with a progress token: Content-Type %q, want text/event-stream", ct)
	}
}

// An input_required result carries an empty content list, never null
// (strict clients refuse a null where the schema says array).
func TestInputRequiredHasNoNullContent(t *testing.T) {
	url, _ := serve(t)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	resp := post(t, url, "tools/call", "transfer", `{"name":"transfer","arguments":{"account":"acc-123","amount":40},`+meta+`}`)
	var reply struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	if c, ok := reply.Result["content"]; ok && string(c) != "[]" {
		t.Fatalf("content of an input_required result: %s, want [] or absent", c)
	}
	if string(reply.Result["resultType"]) != `"input_required"` {
		t.Fatalf("result %v", reply.Result)
	}
}

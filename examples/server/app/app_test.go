package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/server/backends"
	"github.com/mrtrgen/mrtrgen/examples/server/backends/allstores"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// postMCP posts body to the MCP endpoint url as a client does (JSON,
// accepting JSON or an event stream) with the further headers given as
// name, value pairs (an empty value sets none), and returns the response's
// status, headers and whole body.
func postMCP(t *testing.T, endpoint, body string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	resp := sendMCP(t, endpoint, body, headers...)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, raw
}

// sendMCP is postMCP for a caller that reads the body itself (and closes it).
func sendMCP(t *testing.T, endpoint, body string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// server is an App serving on a loopback port.
type server struct {
	*App
	URL  string // the MCP endpoint
	base string
	stop func() error
}

func testRing(t *testing.T) *seal.Ring {
	t.Helper()
	r, err := seal.EphemeralRing(func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// backendsFor returns the set of the quick-start build (backends.Embedded)
// for the URLs it opens, so that the tests run what `go run
// ./examples/server` runs, and the fleet's (allstores) for the others.
func backendsFor(storeURL string) *backends.Set {
	if strings.HasPrefix(storeURL, "memory:") || strings.HasPrefix(storeURL, "sqlite:") {
		return &backends.Embedded
	}
	return &allstores.Set
}

// start serves an App on 127.0.0.1:0 until the test ends.
func start(t *testing.T, storeURL string, ring *seal.Ring, instance string) *server {
	t.Helper()
	return startConfig(t, Config{StoreURL: storeURL, Ring: ring, Audience: "app-test", Instance: instance, Logger: quiet()})
}

// startConfig serves an App of cfg (its PublicURL set to where it
// listens) on 127.0.0.1:0 until the test ends.
func startConfig(t *testing.T, cfg Config) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.PublicURL = "http://" + ln.Addr().String()
	if cfg.Backends == nil {
		cfg.Backends = backendsFor(cfg.StoreURL)
	}
	a, err := New(ctx, cfg)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	var once sync.Once
	var serveErr error
	s := &server{App: a, base: "http://" + ln.Addr().String()}
	s.URL = s.base + MCPPath
	s.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case serveErr = <-served:
			case <-time.After(15 * time.Second):
				serveErr = errors.New("Serve did not return after its context ended")
			}
			a.Close()
		})
		return serveErr
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// connect opens a client session; with version "" the client negotiates
// 2026-07-28 and answers rounds itself (MultiRoundTrip disabled).
func connect(t *testing.T, endpoint string, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	if opts == nil {
		opts = &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
	}
	// Declare elicitation and sampling; on 2026-07-28 they are asked for in
	// input_required results, never over the session.
	if opts.ElicitationHandler == nil {
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("asked over the session")
		}
	}
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; this test covers it
	if opts.CreateMessageHandler == nil {
		//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; this test covers it
		opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("asked over the session")
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "app-test", Version: "test"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

var reason = mcp.InputResponseMap{"reason": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"closeReason": "resolved"}}}

// TestServeRoundByRound: a 2026-07-28 client lists the tools and closes a
// ticket round by round; the retried final round does not close it again.
func TestServeRoundByRound(t *testing.T) {
	s := start(t, "memory:", testRing(t), "test-1")
	ctx := context.Background()
	cs := connect(t, s.URL, nil, "")
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28 or later", v)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"close_support_ticket", "delete_customer", "charge_payment", "provision_workspace",
		"cancel_subscription", "approve_deployment", "refund_order", "roll_out_release", "test_simple_text", "test_missing_capability", "test_streaming_elicitation", "test_logging_tool", "test_trigger_tool_change"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var promptNames []string
	for _, p := range prompts.Prompts {
		promptNames = append(promptNames, p.Name)
	}
	if want := []string{"test_input_required_result_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
		"test_prompt_with_image", "test_simple_prompt"}; !slices.Equal(promptNames, want) {
		t.Fatalf("prompts/list: %v, want %v", promptNames, want)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, rt := range templates.ResourceTemplates {
		uris = append(uris, rt.URITemplate)
	}
	if want := []string{"services://{service}/status", "test://template/{id}/data"}; !slices.Equal(uris, want) {
		t.Fatalf("resources/templates/list: %v, want %v", uris, want)
	}
	// The multi-round resource: the read asks how much to show, the retry
	// with the answer returns the status; the name completes.
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "services://billing/status"})
	if err != nil || !read.NeedsInput() || read.InputRequests["view"] == nil {
		t.Fatalf("resources/read round 1: %+v, %v", read, err)
	}
	read, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "services://billing/status", RequestState: read.RequestState,
		InputResponses: mcp.InputResponseMap{"view": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"detail": "summary"}}}})
	if err != nil || read.NeedsInput() || len(read.Contents) != 1 || read.Contents[0].Text != "billing: latest build 1.5.0." {
		t.Fatalf("resources/read round 2: %+v, %v", read, err)
	}
	done, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "services://{service}/status"},
		Argument: mcp.CompleteParamsArgument{Name: "service", Value: "l"}})
	if err != nil || !slices.Equal(done.Completion.Values, []string{"ledger"}) {
		t.Fatalf("completion/complete: %+v, %v", done, err)
	}

	args := map[string]any{"ticketId": "12345"}
	r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	ask, ok := r1.InputRequests["reason"].(*mcp.ElicitParams)
	if !r1.NeedsInput() || r1.RequestState == "" || !ok || !strings.Contains(ask.Message, "Printer on floor 3") {
		t.Fatalf("round 1: %+v", r1)
	}
	final := &mcp.CallToolParams{Name: "close_support_ticket", Arguments: args, InputResponses: reason, RequestState: r1.RequestState}
	r2, err := cs.CallTool(ctx, final)
	if err != nil {
		t.Fatal(err)
	}
	if r2.NeedsInput() || r2.IsError || text(t, r2) != "Closed ticket 12345 (resolved)." {
		t.Fatalf("round 2: %+v %q", r2, text(t, r2))
	}
	again, err := cs.CallTool(ctx, final)
	if err != nil || text(t, again) != text(t, r2) {
		t.Fatalf("retried round 2: %+v, %v", again, err)
	}
	if n, _ := domain.Effects(ctx, s.Data, "close_support_ticket", "12345"); n != 1 {
		t.Fatalf("ticket closed %d times", n)
	}

	// A business refusal is a tool error result, not a protocol error.
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "charge_payment", Arguments: map[string]any{"invoiceId": "inv_1003"}})
	if err != nil || !r.IsError || !strings.Contains(text(t, r), "already paid") {
		t.Fatalf("charging a paid invoice: %+v, %v", r, err)
	}

	resp, err := http.Get(s.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %s", resp.Status)
	}
}

// TestServeAcrossInstances: two instances sharing a store (SQLite file,
// PostgreSQL database, Redis), the key ring and the audience serve the
// rounds of one workflow each; the charge happens once, its id stored in
// the shared domain data.
func TestServeAcrossInstances(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		testAcrossInstances(t, "sqlite:"+filepath.Join(t.TempDir(), "fleet.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		base := storetest.PostgresURL(t)
		prefix := storetest.UniqueName() + "_"
		t.Cleanup(func() {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, base)
			if err != nil {
				return
			}
			defer conn.Close(ctx)
			for _, table := range []string{"ops", "states", "example_kv"} {
				if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+prefix+table); err != nil {
					t.Logf("cleanup: %v", err)
				}
			}
		})
		testAcrossInstances(t, withPrefix(t, base, prefix))
	})
	t.Run("redis", func(t *testing.T) {
		base := storetest.RedisURL(t)
		prefix := storetest.UniqueName() + ":"
		t.Cleanup(func() {
			ctx := context.Background()
			opts, err := redis.ParseURL(base)
			if err != nil {
				return
			}
			rdb := redis.NewClient(opts)
			defer rdb.Close()
			for it := rdb.Scan(ctx, 0, prefix+"*", 100).Iterator(); it.Next(ctx); {
				rdb.Del(ctx, it.Val())
			}
		})
		testAcrossInstances(t, withPrefix(t, base, prefix))
	})
}

func withPrefix(t *testing.T, u, prefix string) string {
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	q.Set(storeopen.PrefixParam, prefix)
	p.RawQuery = q.Encode()
	return p.String()
}

func testAcrossInstances(t *testing.T, u string) {
	ring := testRing(t)
	a := start(t, u, ring, "a")
	b := start(t, u, ring, "b")
	ctx := context.Background()
	ca, cb := connect(t, a.URL, nil, ""), connect(t, b.URL, nil, "")

	args := map[string]any{"invoiceId": "inv_1001"}
	r1, err := ca.CallTool(ctx, &mcp.CallToolParams{Name: "charge_payment", Arguments: args})
	if err != nil || !r1.NeedsInput() {
		t.Fatalf("round 1 on a: %+v, %v", r1, err)
	}
	confirm := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	final := &mcp.CallToolParams{Name: "charge_payment", Arguments: args, InputResponses: confirm, RequestState: r1.RequestState}
	r2, err := cb.CallTool(ctx, final)
	if err != nil || r2.NeedsInput() || r2.IsError {
		t.Fatalf("round 2 on b: %+v, %v", r2, err)
	}
	inv, _, err := domain.Load[domain.Invoice](ctx, a.Data, domain.InvoiceKey("inv_1001"))
	if err != nil || inv.Status != "paid" || !strings.Contains(text(t, r2), inv.ChargeID) {
		t.Fatalf("invoice seen by a: %+v, %v; result %q", inv, err, text(t, r2))
	}
	// The same final round retried on a replays b's reply.
	again, err := ca.CallTool(ctx, final)
	if err != nil || text(t, again) != text(t, r2) {
		t.Fatalf("round 2 retried on a: %q, %v; want %q", text(t, again), err, text(t, r2))
	}
	if n, _ := domain.Effects(ctx, b.Data, "charge_payment", "inv_1001"); n != 1 {
		t.Fatalf("charged %d times", n)
	}
}

// TestServeOlderClient: a 2025-11-25 client on a stateful session gets the
// questions over its session and completes in one call.
func TestServeOlderClient(t *testing.T) {
	s := start(t, "memory:", testRing(t), "legacy")
	ctx := context.Background()
	asked := 0
	cs := connect(t, s.URL, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"closeReason": "duplicate"}}, nil
		},
	}, "2025-11-25")
	if cs.ID() == "" {
		t.Fatal("no stateful session")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: map[string]any{"ticketId": "12346"}})
	if err != nil || res.IsError || text(t, res) != "Closed ticket 12346 (duplicate)." || asked != 1 {
		t.Fatalf("legacy call: %+v %q, %v (asked %d times)", res, text(t, res), err, asked)
	}
}

// TestServeLogsOnRequest: test_logging_tool logs over the request's stream
// when, and only when, the request asks for logs.
func TestServeLogsOnRequest(t *testing.T) {
	s := start(t, "memory:", testRing(t), "logs")
	ctx := context.Background()
	var mu sync.Mutex
	var got []string
	cs := connect(t, s.URL, &mcp.ClientOptions{
		//lint:ignore SA1019 logging stays supported in SEP-2577's deprecation window; this test covers it
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			b, _ := json.Marshal(req.Params.Data)
			got = append(got, string(b))
		},
	}, "")
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_logging_tool"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	n := len(got)
	mu.Unlock()
	if n != 0 {
		t.Fatalf("logged without a log level: %v", got)
	}
	//lint:ignore SA1019 logging stays supported in SEP-2577's deprecation window; this test covers it
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_logging_tool", Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || !strings.Contains(got[0], "test_logging_tool was called") {
		t.Fatalf("with log level info: %v", got)
	}
}

// TestServeStops: Serve returns promptly when its context ends, and the
// port is closed.
func TestServeStops(t *testing.T) {
	s := start(t, "memory:", testRing(t), "stop")
	cs := connect(t, s.URL, nil, "2025-11-25") // an open stateful session
	_ = cs
	began := time.Now()
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > 12*time.Second {
		t.Fatalf("stopping took %v", d)
	}
	if resp, err := http.Get(s.base + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatal("still serving after Serve returned")
	}
}

func TestNewNeedsConfig(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range []Config{
		{StoreURL: "memory:", Ring: testRing(t), Audience: "x"},
		{Backends: &allstores.Set, Ring: testRing(t), Audience: "x"},
		{Backends: &allstores.Set, StoreURL: "memory:", Audience: "x"},
		{Backends: &allstores.Set, StoreURL: "memory:", Ring: testRing(t)},
		{Backends: &allstores.Set, StoreURL: "ftp://nowhere", Ring: testRing(t), Audience: "x"},
	} {
		if a, err := New(ctx, cfg); err == nil {
			a.Close()
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

// TestServeOlderClientCorrectsAnInvalidAnswer: an older client that sends
// a closing reason outside the enum (as TypeScript SDK and mcp-go clients
// do; go-sdk's client would refuse it itself, so a middleware answers) is
// asked again with the problem and completes with its second answer.
func TestServeOlderClientCorrectsAnInvalidAnswer(t *testing.T) {
	s := start(t, "memory:", testRing(t), "legacy")
	var messages []string
	c := mcp.NewClient(&mcp.Implementation{Name: "app-test", Version: "test"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { panic("unused") },
	})
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			er, ok := req.(*mcp.ElicitRequest)
			if !ok {
				return next(ctx, method, req)
			}
			messages = append(messages, er.Params.Message)
			reason := "because"
			if len(messages) > 1 {
				reason = "duplicate"
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"closeReason": reason}}, nil
		}
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "close_support_ticket", Arguments: map[string]any{"ticketId": "12346"}})
	if err != nil || res.IsError || text(t, res) != "Closed ticket 12346 (duplicate)." {
		t.Fatalf("legacy call: %+v, %v (asked %q)", res, err, messages)
	}
	if len(messages) != 2 || !strings.Contains(messages[1], "Please correct: closeReason: must be one of resolved, duplicate, cancelled") {
		t.Fatalf("asked %q, want the question, then again with the problem", messages)
	}
}

// TestServeInvalidArguments: a tool's invalid arguments are an error
// result the model can read; a prompt's (prompts/get has no error result)
// are JSON-RPC error -32602.
func TestServeInvalidArguments(t *testing.T) {
	s := start(t, "memory:", testRing(t), "test-1")
	cs := connect(t, s.URL, nil, "")
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: map[string]any{"ticketId": "abc"}})
	if err != nil {
		t.Fatalf("tool: %v, want an error result", err)
	}
	if !res.IsError || text(t, res) != "invalid arguments: ticketId: must match [0-9]{1,12}" {
		t.Fatalf("tool: %+v %q", res, text(t, res))
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt", Arguments: map[string]string{"bogus": "x"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "bogus: unknown argument") {
		t.Fatalf("prompt: %v, want -32602 naming the argument", err)
	}
}

// The request log names the MCP method and tool of older clients too: they
// send no Mcp-Method header, so it comes from the JSON-RPC body, which the
// handler still gets whole.
func TestRequestLogNamesOlderClientsMethods(t *testing.T) {
	var logs mrtrtest.LogBuffer
	a := &App{log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"close_support_ticket","arguments":{"ticketId":"1"}}}`
	var seen string
	h := a.logRequests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen = string(b)
	}))
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	h.ServeHTTP(httptest.NewRecorder(), req)
	if seen != body {
		t.Fatalf("the handler got %q, want the whole body", seen)
	}
	if out := logs.String(); !strings.Contains(out, "mcp_method=tools/call") || !strings.Contains(out, "mcp_name=close_support_ticket") {
		t.Fatalf("request log: %s", out)
	}
}

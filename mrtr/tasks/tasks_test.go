package tasks_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

const ext = tasks.ExtensionID

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fixture: a server with the extension, served statelessly over HTTP; the
// principal is the X-User header (a stand-in for a verified token).
type fixture struct {
	t       *testing.T
	url     string
	m       *tasks.Manager
	spans   *tracetest.SpanRecorder
	reader  *sdkmetric.ManualReader
	started chan string // ids of tasks whose run began
	ran     atomic.Int64
	askErr  chan error
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader(), started: make(chan string, 16), askErr: make(chan error, 4)}
	m, err := tasks.New(tasks.Config{
		Instance: "test", Logger: quiet, PollInterval: 20 * time.Millisecond,
		Authenticate: func(_ context.Context, extra *mcp.RequestExtra) (string, error) {
			if extra == nil || extra.Header == nil {
				return "", nil
			}
			if u := extra.Header.Get("X-User"); u != "mallory-bad-token" {
				return u, nil
			}
			return "", errors.New("bad token")
		},
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader)),
	})
	if err != nil {
		t.Fatal(err)
	}
	f.m = m
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	if err := m.Install(s); err != nil {
		t.Fatal(err)
	}
	if err := m.Install(s); err == nil {
		t.Fatal("second Install accepted")
	}
	schema := map[string]any{"type": "object"}
	m.AddTool(s, &mcp.Tool{Name: "wait", InputSchema: schema}, tasks.Optional, tasks.ToolOptions{},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.Start(ctx, func(ctx context.Context, r *tasks.Run) (*mcp.CallToolResult, error) {
				f.ran.Add(1)
				f.started <- r.ID()
				<-ctx.Done()
				return nil, ctx.Err()
			})
		})
	m.AddTool(s, &mcp.Tool{Name: "quick", InputSchema: schema}, tasks.Required, tasks.ToolOptions{TTL: time.Minute},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.Start(ctx, func(context.Context, *tasks.Run) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			})
		})
	m.AddTool(s, &mcp.Tool{Name: "timeout", InputSchema: schema}, tasks.Required, tasks.ToolOptions{Timeout: 50 * time.Millisecond},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.Start(ctx, func(ctx context.Context, _ *tasks.Run) (*mcp.CallToolResult, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})
		})
	m.AddTool(s, &mcp.Tool{Name: "ask", InputSchema: schema}, tasks.Optional, tasks.ToolOptions{},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.Start(ctx, func(ctx context.Context, r *tasks.Run) (*mcp.CallToolResult, error) {
				q := func(msg string) *mcp.ElicitParams {
					return &mcp.ElicitParams{Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}
				}
				a, err := r.Ask(ctx, mcp.InputRequestMap{"a": q("A?"), "b": q("B?")})
				if err != nil {
					return nil, err
				}
				// Reusing a key of the task is refused, whatever the round.
				_, err = r.Ask(ctx, mcp.InputRequestMap{"a": q("A again?")})
				f.askErr <- err
				c, err := r.Ask(ctx, mcp.InputRequestMap{"c": q("C?")})
				if err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d+%d answers", len(a), len(c))}}}, nil
			})
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	f.url = srv.URL
	return f
}

type rpcError = taskstest.RPCError

type call struct {
	user    string
	tasks   bool              // declare the extension
	headers map[string]string // override ("" deletes)
}

func (f *fixture) do(c call, method string, params map[string]any) (map[string]any, *rpcError) {
	f.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	cl := taskstest.NewClient(f.t, f.url)
	cl.NoTasks = !c.tasks
	if c.user != "" {
		cl.Header.Set("X-User", c.user)
	}
	cl.Edit = func(req *http.Request) {
		for k, v := range c.headers {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
	}
	return cl.Call(method, params)
}

func (f *fixture) ok(c call, method string, params map[string]any) map[string]any {
	f.t.Helper()
	res, e := f.do(c, method, params)
	if e != nil {
		f.t.Fatalf("%s: error %d %s", method, e.Code, e.Message)
	}
	return res
}

func (f *fixture) fails(c call, method string, params map[string]any, code int64) *rpcError {
	f.t.Helper()
	res, e := f.do(c, method, params)
	if e == nil {
		f.t.Fatalf("%s: want error %d, got result %v", method, code, res)
	}
	if e.Code != code {
		f.t.Fatalf("%s: error %d %q, want %d", method, e.Code, e.Message, code)
	}
	return e
}

func (f *fixture) create(c call, tool string) string {
	f.t.Helper()
	res := f.ok(c, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}})
	if res["resultType"] != "task" {
		f.t.Fatalf("%s: %v", tool, res)
	}
	return res["taskId"].(string)
}

func (f *fixture) waitStatus(c call, id, want string) map[string]any {
	f.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		res := f.ok(c, "tasks/get", map[string]any{"taskId": id})
		if res["status"] == want {
			return res
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("task %s: status %v, want %s", id, res["status"], want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var alice = call{user: "alice", tasks: true}

func TestLifecycleWire(t *testing.T) {
	f := newFixture(t)
	res := f.ok(alice, "tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}})
	for _, k := range []string{"result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval"} {
		if _, ok := res[k]; ok {
			t.Errorf("CreateTaskResult carries %q: %v", k, res)
		}
	}
	if res["resultType"] != "task" || res["status"] != "working" || res["ttlMs"] != float64(60000) || res["pollIntervalMs"] != float64(20) {
		t.Errorf("CreateTaskResult %v", res)
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if _, err := time.Parse(time.RFC3339Nano, res[k].(string)); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	id := res["taskId"].(string)
	done := f.waitStatus(alice, id, "completed")
	if done["resultType"] != "complete" {
		t.Errorf("tasks/get resultType %v", done["resultType"])
	}
	if _, ok := done["requestState"]; ok {
		t.Error("tasks/get carries requestState")
	}
	content := done["result"].(map[string]any)["content"].([]any)
	if content[0].(map[string]any)["text"] != "done" {
		t.Errorf("result %v", done["result"])
	}
	// Cancelling a finished task is an empty ack, and changes nothing.
	ack := f.ok(alice, "tasks/cancel", map[string]any{"taskId": id})
	if len(ack) != 2 || ack["resultType"] != "complete" { // resultType and the server's _meta
		t.Errorf("cancel ack %v", ack)
	}
	f.waitStatus(alice, id, "completed")
	f.fails(alice, "tasks/get", map[string]any{"taskId": "no-such-task"}, -32602)
	f.fails(alice, "tasks/result", map[string]any{"taskId": id}, -32601)
	f.fails(alice, "tasks/list", nil, -32601)
}

func TestCapabilityGate(t *testing.T) {
	f := newFixture(t)
	disc := f.ok(alice, "server/discover", nil)
	if _, ok := disc["capabilities"].(map[string]any)["extensions"].(map[string]any)[ext]; !ok {
		t.Errorf("not advertised: %v", disc["capabilities"])
	}
	id := f.create(alice, "quick")
	plain := call{user: "alice"}
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		f.fails(plain, m, map[string]any{"taskId": id, "inputResponses": map[string]any{}}, -32021)
	}
	e := f.fails(plain, "tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}}, -32021)
	if !strings.Contains(string(e.Data), `"requiredCapabilities":{"extensions":{"`+ext+`":{}}}`) {
		t.Errorf("data %s", e.Data)
	}
}

func TestOptionalRunsSyncWithoutExtension(t *testing.T) {
	f := newFixture(t)
	// ask is Optional: synchronously, Ask is not available and the tool
	// fails as the task would, with ErrNotNegotiated's text as -32603.
	e := f.fails(call{user: "alice"}, "tools/call", map[string]any{"name": "ask", "arguments": map[string]any{}}, -32603)
	if !strings.Contains(e.Message, "did not declare the tasks extension") {
		t.Fatalf("sync ask: %v", e)
	}
}

// A task belongs to the principal that created it: another principal, an
// anonymous caller and a failed authentication see -32602 on every
// method, as for an unknown id, and change nothing.
func TestPrincipalBinding(t *testing.T) {
	f := newFixture(t)
	id := f.create(alice, "wait")
	<-f.started
	for _, c := range []call{{user: "bob", tasks: true}, {tasks: true}} {
		for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
			f.fails(c, m, map[string]any{"taskId": id, "inputResponses": map[string]any{}}, -32602)
		}
	}
	f.fails(call{user: "mallory-bad-token", tasks: true}, "tasks/get", map[string]any{"taskId": id}, -32602)
	if st := f.ok(alice, "tasks/get", map[string]any{"taskId": id})["status"]; st != "working" {
		t.Fatalf("bob's cancel reached alice's task: %v", st)
	}
	f.ok(alice, "tasks/cancel", map[string]any{"taskId": id})
	f.waitStatus(alice, id, "cancelled")
}

func TestMcpNameHeader(t *testing.T) {
	f := newFixture(t)
	id := f.create(alice, "quick")
	for _, h := range []map[string]string{{"Mcp-Name": "other"}, {"Mcp-Name": ""}, {"Mcp-Name": id + "x"}} {
		for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
			c := alice
			c.headers = h
			f.fails(c, m, map[string]any{"taskId": id, "inputResponses": map[string]any{}}, -32020)
		}
	}
	c := alice
	c.headers = map[string]string{"Mcp-Name": "  " + id + " "}
	f.ok(c, "tasks/get", map[string]any{"taskId": id})
}

func TestTaskIDs(t *testing.T) {
	f := newFixture(t)
	seen := map[string]bool{}
	for range 20 {
		id := f.create(alice, "quick")
		b, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil || len(b) < 16 {
			t.Fatalf("task id %q: %d bytes, %v", id, len(b), err)
		}
		if seen[id] {
			t.Fatalf("task id %q twice", id)
		}
		seen[id] = true
	}
}

func TestCancelReachesContext(t *testing.T) {
	f := newFixture(t)
	id := f.create(alice, "wait")
	if got := <-f.started; got != id {
		t.Fatalf("started %s, created %s", got, id)
	}
	for range 2 { // idempotent
		ack := f.ok(alice, "tasks/cancel", map[string]any{"taskId": id})
		if _, ok := ack["taskId"]; ok {
			t.Errorf("ack %v", ack)
		}
	}
	got := f.waitStatus(alice, id, "cancelled")
	if _, ok := got["result"]; ok {
		t.Errorf("cancelled task has a result: %v", got)
	}
	if f.ran.Load() != 1 {
		t.Errorf("ran %d times", f.ran.Load())
	}
}

func TestTimeoutFails(t *testing.T) {
	f := newFixture(t)
	id := f.create(alice, "timeout")
	got := f.waitStatus(alice, id, "failed")
	e := got["error"].(map[string]any)
	if e["code"] != float64(-32603) || e["message"] != "task timed out" {
		t.Errorf("error %v", e)
	}
	if _, ok := got["result"]; ok {
		t.Error("failed task has a result")
	}
}

func TestInputThroughTask(t *testing.T) {
	f := newFixture(t)
	id := f.create(alice, "ask")
	got := f.waitStatus(alice, id, "input_required")
	reqs := got["inputRequests"].(map[string]any)
	if len(reqs) != 2 || reqs["a"].(map[string]any)["method"] != "elicitation/create" {
		t.Fatalf("inputRequests %v", reqs)
	}
	accept := map[string]any{"action": "accept", "content": map[string]any{"ok": true}}
	// Malformed answer to a pending key: JSON-RPC error, nothing taken.
	f.fails(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"a": "yes"}}, -32602)
	// Unknown keys are ignored; a partial answer keeps the rest pending.
	f.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"zzz": map[string]any{"x": 1}, "a": accept}})
	got = f.ok(alice, "tasks/get", map[string]any{"taskId": id})
	if got["status"] != "input_required" || len(got["inputRequests"].(map[string]any)) != 1 || got["inputRequests"].(map[string]any)["b"] == nil {
		t.Fatalf("after a partial answer: %v", got)
	}
	// Answering "a" again changes nothing.
	f.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"a": accept}})
	f.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"b": accept}})
	if err := <-f.askErr; !errors.Is(err, tasks.ErrKeyReused) {
		t.Errorf("reused key: %v", err)
	}
	got = f.waitStatus(alice, id, "input_required")
	if r := got["inputRequests"].(map[string]any); len(r) != 1 || r["c"] == nil {
		t.Fatalf("second round %v", r)
	}
	// An answer with an earlier round's key does not answer this one.
	f.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"a": accept}})
	if st := f.ok(alice, "tasks/get", map[string]any{"taskId": id})["status"]; st != "input_required" {
		t.Fatalf("old key answered the new round: %v", st)
	}
	f.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"c": accept}})
	done := f.waitStatus(alice, id, "completed")
	if txt := done["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; txt != "2+1 answers" {
		t.Errorf("result %v", txt)
	}
	// Telemetry: a span per transition, counters by tool and outcome.
	names := map[string]int{}
	for _, s := range f.spans.Ended() {
		names[s.Name()]++
	}
	if names["task created ask"] != 1 || names["task ask ask"] != 2 || names["task update ask"] != 3 || names["task ended ask"] != 1 {
		t.Errorf("spans %v", names)
	}
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				tool, _ := dp.Attributes.Value("tool")
				outcome, _ := dp.Attributes.Value("outcome")
				counts[m.Name+"/"+tool.AsString()+"/"+outcome.AsString()] += dp.Value
			}
		}
	}
	if counts["mcp.mrtr.tasks.created/ask/"] != 1 || counts["mcp.mrtr.tasks.ended/ask/completed"] != 1 || counts["mcp.mrtr.tasks.transitions/ask/ask"] != 2 {
		t.Errorf("counters %v", counts)
	}
}

func TestMemoryStoreTTL(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := tasks.NewMemoryStore(clock)
	ctx := context.Background()
	rec := &tasks.Record{ID: "x", Status: tasks.StatusCompleted, CreatedAt: now, UpdatedAt: now, TTL: time.Minute}
	if err := s.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, rec); err == nil {
		t.Fatal("duplicate id accepted")
	}
	got, err := s.Get(ctx, "x")
	if err != nil || got.Status != tasks.StatusCompleted {
		t.Fatal(got, err)
	}
	got.Status = tasks.StatusFailed // a copy: the store is unchanged
	if again, _ := s.Get(ctx, "x"); again.Status != tasks.StatusCompleted {
		t.Fatal("store shares memory with callers")
	}
	if _, err := s.Update(ctx, "x", func(*tasks.Record) error { return errors.New("no") }); err == nil {
		t.Fatal("fn error not returned")
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if _, err := s.Get(ctx, "x"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("expired record: %v", err)
	}
	if n, _ := s.Sweep(ctx, clock()); n != 1 {
		t.Fatalf("swept %d", n)
	}
}

func TestStartOutsideTaskTool(t *testing.T) {
	if _, err := tasks.Start(context.Background(), nil); err == nil {
		t.Fatal("Start outside a task tool accepted")
	}
	if _, err := tasks.New(tasks.Config{PrincipalSalt: []byte("short")}); err == nil {
		t.Fatal("short salt accepted")
	}
}

// Closing the manager ends the tasks it runs: they fail with "server
// shutting down" rather than look as if they were still running.
func TestCloseFailsRunningTasks(t *testing.T) {
	f := newFixture(t)
	id := f.create(alice, "wait")
	<-f.started
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got := f.waitStatus(alice, id, "failed")
	if e := got["error"].(map[string]any); e["message"] != "server shutting down" {
		t.Errorf("error %v", e)
	}
	res, e := f.do(alice, "tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}})
	if e == nil || e.Code != -32603 {
		t.Errorf("task created after Close: %v %v", res, e)
	}
}

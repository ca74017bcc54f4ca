package conformancetasks

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// The behaviours the conformance suite's tasks scenarios rely on
// (@modelcontextprotocol/conformance, SEP-2663), checked over streamable
// HTTP on the fixtures as Register serves them, without Node: what
// .ci/conformance.sh checks against the example server, here in go test.

var quiet = slog.New(slog.DiscardHandler)

// settle is how long a test waits for a task to reach a status; the suite
// waits 10 seconds.
const settle = 10 * time.Second

// serve starts the fixtures behind mrtr.Handler with a task manager, as
// the example server does, and returns a client of it.
func serve(t *testing.T) *client {
	t.Helper()
	clock := mrtrtest.NewClock()
	m, err := tasks.New(tasks.Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "conformance-tasks-test", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet,
		Store: store.NewMemory(store.Options{Now: clock.Now}), Tasks: m})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "conformance-tasks-test", Version: "test"}, nil)
	if err := m.Install(s); err != nil {
		t.Fatal(err)
	}
	Register(s, e)
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = m.Close(ctx)
	})
	return newClient(t, ts.URL)
}

// client sends JSON-RPC requests at protocol 2026-07-28 (stateless: the
// client's capabilities in each request's _meta), with the routing
// headers the suite sends; tasksExt says whether a request declares the
// tasks extension.
type client struct {
	t            *testing.T
	tasks, plain *taskstest.Client
}

func newClient(t *testing.T, url string) *client {
	plain := taskstest.NewClient(t, url)
	plain.NoTasks = true
	return &client{t: t, tasks: taskstest.NewClient(t, url), plain: plain}
}

// rpcError is a JSON-RPC error object.
type rpcError = taskstest.RPCError

// call sends method with params, declaring the tasks extension when
// tasksExt, and returns the result or the error.
func (c *client) call(method string, params map[string]any, tasksExt bool) (map[string]any, *rpcError) {
	c.t.Helper()
	if tasksExt {
		return c.tasks.Call(method, params)
	}
	return c.plain.Call(method, params)
}

// ok is call for a request that must succeed.
func (c *client) ok(method string, params map[string]any, tasksExt bool) map[string]any {
	c.t.Helper()
	res, rerr := c.call(method, params, tasksExt)
	if rerr != nil {
		c.t.Fatalf("%s %v: error %+v", method, params, rerr)
	}
	return res
}

// tool calls a tool by name with arguments.
func (c *client) tool(name string, args map[string]any, tasksExt bool) map[string]any {
	c.t.Helper()
	return c.ok("tools/call", map[string]any{"name": name, "arguments": args}, tasksExt)
}

// start calls a tool that must answer with a CreateTaskResult, checks its
// shape (flat, with the wire fields of SEP-2663 and none of a result, an
// MRTR round or the v1 wire) and returns the task id.
func (c *client) start(name string, args map[string]any) string {
	c.t.Helper()
	res := c.tool(name, args, true)
	wantCreateTaskResult(c.t, name, res)
	return res["taskId"].(string)
}

func wantCreateTaskResult(t *testing.T, name string, res map[string]any) {
	t.Helper()
	if res["resultType"] != "task" {
		t.Fatalf("%s: resultType %v, want task: %v", name, res["resultType"], res)
	}
	if id, _ := res["taskId"].(string); id == "" {
		t.Fatalf("%s: no taskId: %v", name, res)
	}
	for _, key := range []string{"status", "createdAt", "lastUpdatedAt"} {
		if s, _ := res[key].(string); s == "" {
			t.Errorf("%s: CreateTaskResult without %s: %v", name, key, res)
		}
	}
	for _, key := range []string{"task", "result", "error", "inputRequests", "requestState", "ttl", "pollInterval"} {
		if _, ok := res[key]; ok {
			t.Errorf("%s: CreateTaskResult carries %q: %v", name, key, res)
		}
	}
	if ttl, _ := res["ttlMs"].(float64); ttl <= 0 || ttl != float64(int64(ttl)) {
		t.Errorf("%s: ttlMs %v, want a positive integer", name, res["ttlMs"])
	}
	if res["pollIntervalMs"] != 200.0 {
		t.Errorf("%s: pollIntervalMs %v, want 200 (the spec's pollInterval)", name, res["pollIntervalMs"])
	}
}

// get is tasks/get of id.
func (c *client) get(id string) map[string]any {
	c.t.Helper()
	return c.tasks.Get(id)
}

// until polls task id until its status is one of want or terminal, and
// returns it; it fails the test after settle.
func (c *client) until(id string, want ...tasks.Status) map[string]any {
	c.t.Helper()
	return c.tasks.Until(id, settle, want...)
}

// ack checks an empty acknowledgement of tasks/update or tasks/cancel.
func ack(t *testing.T, what string, res map[string]any) {
	t.Helper()
	if res["resultType"] != "complete" {
		t.Errorf("%s: resultType %v, want complete", what, res["resultType"])
	}
	for _, key := range []string{"taskId", "status", "result", "error", "inputRequests"} {
		if _, ok := res[key]; ok {
			t.Errorf("%s: the ack carries %q: %v", what, key, res)
		}
	}
}

// asks reports whether input request ir (as on the wire: method and
// params) is a form with the field.
func asks(ir any, field string) bool {
	m, _ := ir.(map[string]any)
	params, _ := m["params"].(map[string]any)
	schema, _ := params["requestedSchema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	_, ok := props[field]
	return ok
}

// text is the first text content of a tool result, and whether it is an
// error result.
func text(t *testing.T, res map[string]any) (string, bool) {
	t.Helper()
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("result without content: %v", res)
	}
	first, _ := content[0].(map[string]any)
	s, _ := first["text"].(string)
	isError, _ := res["isError"].(bool)
	return s, isError
}

// completed checks that a terminal task completed with a result whose text
// is want and whose isError is wantError.
func completed(t *testing.T, task map[string]any, want string, wantError bool) {
	t.Helper()
	if task["status"] != "completed" {
		t.Fatalf("status %v, want completed: %v", task["status"], task)
	}
	if _, ok := task["error"]; ok {
		t.Errorf("a completed task carries an error: %v", task)
	}
	res, _ := task["result"].(map[string]any)
	if res == nil {
		t.Fatalf("a completed task without result: %v", task)
	}
	if meta, _ := res["_meta"].(map[string]any); meta["io.modelcontextprotocol/related-task"] != nil {
		t.Errorf("the inlined result carries the v1 related-task _meta: %v", meta)
	}
	got, isError := text(t, res)
	if got != want || isError != wantError {
		t.Errorf("result %q (isError %v), want %q (isError %v)", got, isError, want, wantError)
	}
}

// answers answers every key of pending with content.
func answers(pending, content map[string]any) map[string]any {
	out := map[string]any{}
	for key := range pending {
		out[key] = map[string]any{"action": "accept", "content": content}
	}
	return out
}

// missingTasksExtension checks the -32021 error a required task tool
// gives a client without the extension, naming the extension.
func missingTasksExtension(t *testing.T, rerr *rpcError) {
	t.Helper()
	if rerr == nil || rerr.Code != -32021 {
		t.Fatalf("error %+v, want -32021", rerr)
	}
	if err := taskstest.RequiresExtension(rerr.Data); err != nil {
		t.Error(err)
	}
}

// greet answers in the call, with or without the extension, and a v1
// client's task hint does not make it a task.
func TestGreetIsNeverATask(t *testing.T) {
	t.Parallel()
	c := serve(t)
	for _, tasksExt := range []bool{false, true} {
		res := c.ok("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "World"},
			"task": map[string]any{"ttl": 60000, "pollInterval": 100}}, tasksExt)
		if res["resultType"] != "complete" || res["taskId"] != nil {
			t.Fatalf("extension %v: %v, want a complete result without taskId", tasksExt, res)
		}
		if got, isError := text(t, res); got != "Hello, World!" || isError {
			t.Errorf("extension %v: %q (isError %v)", tasksExt, got, isError)
		}
	}
}

// Without the extension slow_compute answers in the call; with it, it is
// a task that completes with the same text, readable right after the
// CreateTaskResult and after it ended.
func TestSlowCompute(t *testing.T) {
	t.Parallel()
	c := serve(t)
	res := c.tool("slow_compute", map[string]any{"seconds": 0, "label": "instant"}, false)
	if res["resultType"] != "complete" || res["taskId"] != nil {
		t.Fatalf("without the extension: %v, want a complete result", res)
	}
	if got, isError := text(t, res); got != "Computed instant after 0s." || isError {
		t.Errorf("without the extension: %q (isError %v)", got, isError)
	}

	id := c.start("slow_compute", map[string]any{"seconds": 0.2, "label": "lifecycle"})
	if got := c.get(id); got["taskId"] != id || got["resultType"] != "complete" {
		t.Fatalf("tasks/get right after the CreateTaskResult: %v", got)
	}
	completed(t, c.until(id), "Computed lifecycle after 0.2s.", false)
	if got := c.get(id); got["status"] != "completed" {
		t.Errorf("tasks/get after the end: %v", got)
	}
	// Without a label the result says so.
	completed(t, c.until(c.start("slow_compute", map[string]any{"seconds": 0})), "Computed after 0s.", false)
}

// tasks/cancel stops a long computation at once: the task settles to
// cancelled (not completed, not failed), and a cancel of the ended task
// is the same empty ack.
func TestSlowComputeCancelled(t *testing.T) {
	t.Parallel()
	c := serve(t)
	id := c.start("slow_compute", map[string]any{"seconds": 60, "label": "cancel"})
	begun := time.Now()
	ack(t, "tasks/cancel", c.ok("tasks/cancel", map[string]any{"taskId": id}, true))
	got := c.until(id)
	if got["status"] != "cancelled" {
		t.Fatalf("status %v after tasks/cancel, want cancelled: %v", got["status"], got)
	}
	if waited := time.Since(begun); waited > 5*time.Second {
		t.Errorf("the cancelled computation took %s to stop", waited)
	}
	ack(t, "tasks/cancel of an ended task", c.ok("tasks/cancel", map[string]any{"taskId": id}, true))
}

// failing_job runs only as a task, which completes with a tool error
// (isError), not failed; a client without the extension gets -32021.
func TestFailingJob(t *testing.T) {
	t.Parallel()
	c := serve(t)
	_, rerr := c.call("tools/call", map[string]any{"name": "failing_job", "arguments": map[string]any{}}, false)
	missingTasksExtension(t, rerr)

	begun := time.Now()
	id := c.start("failing_job", map[string]any{})
	if got := c.get(id); got["status"] != "working" {
		t.Errorf("status %v right after the start, want working (the job runs about a second)", got["status"])
	}
	completed(t, c.until(id), "The job failed: the build broke.", true)
	if took := time.Since(begun); took < time.Second {
		t.Errorf("the job failed after %s, want about a second", took)
	}
}

// protocol_error_job's task fails with a JSON-RPC error object (a numeric
// code and a message) and no result: its task overran its time bound.
func TestProtocolErrorJob(t *testing.T) {
	t.Parallel()
	c := serve(t)
	got := c.until(c.start("protocol_error_job", map[string]any{}))
	if got["status"] != "failed" {
		t.Fatalf("status %v, want failed: %v", got["status"], got)
	}
	if _, ok := got["result"]; ok {
		t.Errorf("a failed task carries a result: %v", got)
	}
	e, _ := got["error"].(map[string]any)
	if code, _ := e["code"].(float64); code != -32603 {
		t.Errorf("error %v, want code -32603", e)
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Errorf("error %v without a message", e)
	}
}

// confirm_delete asks through the task (input_required on tasks/get, one
// elicitation/create), ignores answers to keys it did not ask, and
// completes when the answer arrives on tasks/update: deleted when
// confirmed, kept when declined.
func TestConfirmDelete(t *testing.T) {
	t.Parallel()
	c := serve(t)
	for _, tc := range []struct {
		name   string
		answer map[string]any
		want   string
	}{
		{"confirmed", map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}, "Deleted notes.txt."},
		{"declined", map[string]any{"action": "decline"}, "Kept notes.txt."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := c.start("confirm_delete", map[string]any{"filename": "notes.txt"})
			asked := c.until(id, tasks.StatusInputRequired)
			pending, _ := asked["inputRequests"].(map[string]any)
			if asked["status"] != "input_required" || len(pending) != 1 {
				t.Fatalf("want input_required with one input request: %v", asked)
			}
			for key, ir := range pending {
				if m, _ := ir.(map[string]any); m["method"] != "elicitation/create" {
					t.Fatalf("input request %s: %v, want elicitation/create", key, ir)
				}
			}
			ack(t, "tasks/update of an unknown key", c.ok("tasks/update", map[string]any{"taskId": id,
				"inputResponses": map[string]any{"unknown-key": map[string]any{"ignored": true}}}, true))
			if got := c.get(id); got["status"] != "input_required" {
				t.Fatalf("after an answer to an unknown key: %v, want input_required", got)
			}
			resp := map[string]any{}
			for key := range pending {
				resp[key] = tc.answer
			}
			ack(t, "tasks/update", c.ok("tasks/update", map[string]any{"taskId": id, "inputResponses": resp}, true))
			completed(t, c.until(id), tc.want, false)
		})
	}
}

// multi_input asks two questions at once; answered one at a time, the task
// stays input_required with only the other key, and completes once both
// are answered. The suite answers each key with both fields (name and
// confirm): a form takes its own and ignores the other.
func TestMultiInputPartialFulfillment(t *testing.T) {
	t.Parallel()
	c := serve(t)
	id := c.start("multi_input", map[string]any{})
	asked := c.until(id, tasks.StatusInputRequired)
	pending, _ := asked["inputRequests"].(map[string]any)
	if len(pending) != 2 {
		t.Fatalf("want two input requests at once: %v", asked)
	}
	keys := make([]string, 0, 2)
	for key := range pending {
		keys = append(keys, key)
	}
	first, second := keys[0], keys[1]
	both := func(name string) map[string]any {
		return map[string]any{"action": "accept", "content": map[string]any{"name": name, "confirm": true}}
	}
	ack(t, "partial tasks/update", c.ok("tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{first: both("partial-1")}}, true))
	got := c.get(id)
	left, _ := got["inputRequests"].(map[string]any)
	if got["status"] != "input_required" || len(left) != 1 || left[second] == nil {
		t.Fatalf("after answering %s: %v, want input_required on %s only", first, got, second)
	}
	ack(t, "tasks/update", c.ok("tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{second: both("partial-2")}}, true))
	// The name is the answer to the question whose form has a name field.
	name := "partial-1"
	if asks(pending[second], "name") {
		name = "partial-2"
	}
	completed(t, c.until(id), "Got both answers, "+name+" (go ahead true).", false)
}

// test_tool_with_task asks for the name in an MRTR round (no taskId), the
// round that answers it gets a CreateTaskResult (no requestState, no
// inputRequests), and the task's result greets the name; a client
// without the extension gets -32021.
func TestToolWithTaskComposesMRTRAndTasks(t *testing.T) {
	t.Parallel()
	c := serve(t)
	_, rerr := c.call("tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{}}, false)
	missingTasksExtension(t, rerr)

	round1 := c.tool("test_tool_with_task", map[string]any{}, true)
	pending, _ := round1["inputRequests"].(map[string]any)
	if round1["resultType"] != "input_required" || pending["user_name"] == nil || round1["taskId"] != nil {
		t.Fatalf("round 1: %v, want input_required asking user_name, without taskId", round1)
	}
	round2 := c.ok("tools/call", map[string]any{"name": "test_tool_with_task", "arguments": map[string]any{},
		"inputResponses": answers(pending, map[string]any{"name": "Alice"}), "requestState": round1["requestState"]}, true)
	wantCreateTaskResult(t, "round 2", round2)
	completed(t, c.until(round2["taskId"].(string)), "Hello, Alice! (from a task)", false)
}

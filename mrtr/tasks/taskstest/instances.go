package taskstest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/internal/taskpoll"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/headeruser"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Opener opens another handle on one shared backend: every call returns a
// store (its own pool, client or file handle, as a second server instance
// would have) that sees the records of the others. It registers the
// handle's cleanup with t.
type Opener func(t *testing.T) tasks.Store

// RunInstances serves the Tasks extension from two instances (two
// tasks.Managers behind two HTTP servers) on stores that open gives, and
// checks what sharing the store is for: a task that instance A runs is
// read, answered and cancelled through instance B, and its record outlives
// A.
func RunInstances(t *testing.T, open Opener) {
	salt := []byte("instances share the principal salt")
	a := newInstance(t, "a", open(t), salt)
	b := newInstance(t, "b", open(t), salt)

	// An input request of a task running on A is seen and answered on B.
	id := a.create(t, "ask")
	b.waitStatus(t, id, tasks.StatusInputRequired)
	b.call(t, tasks.MethodUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{
		"q": map[string]any{"action": "accept", "content": map[string]any{"ok": true}},
	}})
	done := b.waitStatus(t, id, tasks.StatusCompleted)
	if got := ResultText(done); got != "answer: accept" {
		t.Fatalf("result of the task through B: %q (%v)", got, done)
	}

	// tasks/cancel on B ends the run on A.
	waiting := a.create(t, "wait")
	b.call(t, tasks.MethodCancel, map[string]any{"taskId": waiting})
	b.waitStatus(t, waiting, tasks.StatusCancelled)

	// The finished task outlives the instance that ran it.
	a.close(t)
	if got := ResultText(b.waitStatus(t, id, tasks.StatusCompleted)); got != "answer: accept" {
		t.Fatalf("after A closed, B reads result %q", got)
	}
}

// instance is one server: a Manager on its store behind an HTTP server
// (stateless, JSON responses), whose principal is the X-User header.
type instance struct {
	m   *tasks.Manager
	srv *httptest.Server
}

const (
	instanceUser = "alice"
	pollInterval = 10 * time.Millisecond
)

func newInstance(t *testing.T, name string, store tasks.Store, salt []byte) *instance {
	t.Helper()
	m, err := tasks.New(tasks.Config{
		Store: store, Instance: name, PrincipalSalt: salt, PollInterval: pollInterval,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Authenticate: headeruser.Authenticate,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "instance-" + name, Version: "1"}, nil)
	if err := m.Install(s); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"type": "object"}
	m.AddTool(s, &mcp.Tool{Name: "ask", InputSchema: schema}, tasks.Required, tasks.ToolOptions{},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.Start(ctx, func(ctx context.Context, r *tasks.Run) (*mcp.CallToolResult, error) {
				answers, err := r.Ask(ctx, mcp.InputRequestMap{"q": &mcp.ElicitParams{
					Message:         "ok?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}},
				}})
				if err != nil {
					return nil, err
				}
				action := ""
				if er, ok := answers["q"].(*mcp.ElicitResult); ok {
					action = er.Action
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answer: " + action}}}, nil
			})
		})
	m.AddTool(s, &mcp.Tool{Name: "wait", InputSchema: schema}, tasks.Required, tasks.ToolOptions{},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.Start(ctx, func(ctx context.Context, _ *tasks.Run) (*mcp.CallToolResult, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})
		})
	in := &instance{m: m, srv: httptest.NewServer(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))}
	t.Cleanup(func() { in.close(t) })
	return in
}

// close stops the instance: its HTTP server, then its Manager (which fails
// the tasks it still runs). It is safe to call more than once.
func (in *instance) close(t *testing.T) {
	t.Helper()
	in.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := in.m.Close(ctx); err != nil {
		t.Errorf("close instance: %v", err)
	}
}

// call sends one JSON-RPC request of alice's client, which declared the
// extension, and returns its result, failing t on a JSON-RPC error.
func (in *instance) call(t *testing.T, method string, params map[string]any) map[string]any {
	t.Helper()
	c := NewClient(t, in.srv.URL)
	c.Header.Set("X-User", instanceUser)
	return c.OK(method, params)
}

// create calls tool, which runs as a task, and returns the task's id.
func (in *instance) create(t *testing.T, tool string) string {
	t.Helper()
	res := in.call(t, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}})
	id, ok := res["taskId"].(string)
	if res["resultType"] != "task" || !ok {
		t.Fatalf("tools/call %s: not a CreateTaskResult: %v", tool, res)
	}
	return id
}

// waitStatus polls tasks/get until the task has status want.
func (in *instance) waitStatus(t *testing.T, id string, want tasks.Status) map[string]any {
	t.Helper()
	return taskpoll.Status(t, id, string(want), 10*time.Second, pollInterval, func() map[string]any {
		return in.call(t, tasks.MethodGet, map[string]any{"taskId": id})
	})
}

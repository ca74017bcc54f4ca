package mrtr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// asTask is a program whose descriptor makes it long-running from state
// start on (what the generator emits for a spec's task block).
type asTask[F any] struct {
	mrtr.Program[F]
	d *mrtrimpl.Descriptor
}

func (p asTask[F]) Descriptor() *mrtrimpl.Descriptor { return p.d }

func withTask[F any](t *testing.T, p mrtr.Program[F], start string, required bool) mrtr.Program[F] {
	d := *p.Descriptor()
	n, _ := d.StateNamed(start)
	if n == 0 {
		t.Fatalf("no state %s", start)
	}
	d.Task = &mrtrimpl.TaskInfo{Required: required, Start: n, PollInterval: 10 * time.Millisecond}
	return asTask[F]{Program: p, d: &d}
}

type taskClient struct {
	t   *testing.T
	url string
}

func (c taskClient) call(method string, params map[string]any, tasksExt bool) (map[string]any, map[string]any) {
	c.t.Helper()
	caps := map[string]any{"elicitation": map[string]any{}}
	if tasksExt {
		caps["extensions"] = map[string]any{tasks.ExtensionID: map[string]any{}}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if n, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", n)
	}
	if n, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", n)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		c.t.Fatalf("%s: %v %s", method, err, raw)
	}
	return out.Result, out.Error
}

// A generated workflow declared long-running: its MRTR rounds run on
// tools/call, the round that reaches the start state is answered with a
// CreateTaskResult, and the effect runs inside the task, once, even when
// the client retries that round (a second task replays the effect's
// recorded outcome).
func TestWorkflowAsTask(t *testing.T) {
	clock := mrtrtest.NewClock()
	tm, err := tasks.New(tasks.Config{Logger: quiet, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "tasks-test", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet,
		Store: store.NewMemory(store.Options{Now: clock.Now}), Tasks: tm})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "tasks-test", Version: "test"}, nil)
	if err := tm.Install(s); err != nil {
		t.Fatal(err)
	}
	impl := &testprog.DeployImpl{}
	mrtr.AddTool(s, e, withTask(t, testprog.NewDeployProgram(impl), "ship", false))
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tm.Close(ctx)
	})
	c := taskClient{t: t, url: ts.URL}
	args := map[string]any{"env": "staging"}

	first, rerr := c.call("tools/call", map[string]any{"name": "deploy", "arguments": args}, true)
	if rerr != nil || first["resultType"] != "input_required" {
		t.Fatalf("round 1: %v %v", first, rerr)
	}
	if _, ok := first["taskId"]; ok {
		t.Fatal("an MRTR round carries a taskId")
	}
	answer := map[string]any{"pick": map[string]any{"action": "accept", "content": map[string]any{"services": []any{"billing"}}}}
	round2 := map[string]any{"name": "deploy", "arguments": args, "inputResponses": answer, "requestState": first["requestState"]}
	var ids []string
	for range 2 { // the client retries the round
		created, rerr := c.call("tools/call", round2, true)
		if rerr != nil || created["resultType"] != "task" {
			t.Fatalf("round 2: %v %v", created, rerr)
		}
		if _, ok := created["requestState"]; ok {
			t.Fatal("CreateTaskResult carries requestState")
		}
		ids = append(ids, created["taskId"].(string))
	}
	for _, id := range ids {
		deadline := time.Now().Add(5 * time.Second)
		for {
			got, rerr := c.call("tasks/get", map[string]any{"taskId": id}, true)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if got["status"] == "completed" {
				text := got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
				if text != "Deployed billing to staging." {
					t.Errorf("result %v", text)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("task %s: %v", id, got)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if got := impl.Deployments(); len(got) != 1 {
		t.Fatalf("deployed %d times: %v", len(got), got)
	}

	// Without the extension, an optional task tool runs in its rounds.
	plain, rerr := c.call("tools/call", map[string]any{"name": "deploy", "arguments": map[string]any{"env": "production"}}, false)
	if rerr != nil || plain["resultType"] != "input_required" {
		t.Fatalf("plain round 1: %v %v", plain, rerr)
	}
	done, rerr := c.call("tools/call", map[string]any{"name": "deploy", "arguments": map[string]any{"env": "production"}, "inputResponses": answer, "requestState": plain["requestState"]}, false)
	if rerr != nil || done["resultType"] != "complete" || done["isError"] == true {
		t.Fatalf("plain round 2: %v %v", done, rerr)
	}
	if got := impl.Deployments(); len(got) != 2 {
		t.Fatalf("deployments %v", got)
	}
}

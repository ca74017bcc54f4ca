package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/internal/taskpoll"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// rawCall posts one 2026-07-28 JSON-RPC request declaring elicitation and
// the tasks extension (taskstest.Client), and returns its result or error.
func rawCall(t *testing.T, url, method string, params map[string]any) (map[string]any, *taskstest.RPCError) {
	t.Helper()
	return rawCallAs(t, url, method, params, "")
}

// rawCallAs is rawCall with the demo bearer token of user (none for "").
func rawCallAs(t *testing.T, url, method string, params map[string]any, user string) (map[string]any, *taskstest.RPCError) {
	t.Helper()
	c := taskstest.NewClient(t, url)
	if user != "" {
		c.Header.Set("Authorization", "Bearer demo-"+user)
	}
	return c.Call(method, params)
}

func waitTask(t *testing.T, url, id, want string) map[string]any {
	t.Helper()
	return taskpoll.Status(t, id, want, 10*time.Second, 20*time.Millisecond, func() map[string]any {
		got, e := rawCall(t, url, "tasks/get", map[string]any{"taskId": id})
		if e != nil {
			t.Fatalf("tasks/get: %v", e)
		}
		return got
	})
}

// TestDeployReleaseAsTask: deploy_release confirms in an MRTR round, runs
// as a task from the canary on, asks mid-way through the task whether to
// promote (answered with tasks/update), and ends with production on the
// new version; each step ran once.
func TestDeployReleaseAsTask(t *testing.T) {
	s := start(t, "memory:", testRing(t), "tasks-1")
	ctx := context.Background()
	args := map[string]any{"service": "docs-site", "version": "v2.1.0"}
	first, e := rawCall(t, s.URL, "tools/call", map[string]any{"name": "deploy_release", "arguments": args})
	if e != nil || first["resultType"] != "input_required" {
		t.Fatalf("round 1: %v %v", first, e)
	}
	if _, ok := first["inputRequests"].(map[string]any)["start"]; !ok {
		t.Fatalf("round 1 asks %v", first["inputRequests"])
	}
	created, e := rawCall(t, s.URL, "tools/call", map[string]any{"name": "deploy_release", "arguments": args,
		"requestState":   first["requestState"],
		"inputResponses": map[string]any{"start": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	if e != nil || created["resultType"] != "task" || created["pollIntervalMs"] != float64(2000) || created["ttlMs"] != float64(3600000) {
		t.Fatalf("round 2: %v %v", created, e)
	}
	id := created["taskId"].(string)
	asked := waitTask(t, s.URL, id, "input_required")
	reqs := asked["inputRequests"].(map[string]any)
	q, ok := reqs["r1.promotion"].(map[string]any)
	if len(reqs) != 1 || !ok || !strings.Contains(q["params"].(map[string]any)["message"].(string), "The canary of docs-site v2.1.0 is healthy") {
		t.Fatalf("mid-task ask %v", reqs)
	}
	if n, _ := domain.Effects(ctx, s.Data, "deploy_release", "canary:docs-site"); n != 1 {
		t.Fatalf("canary ran %d times before the approval", n)
	}
	if _, e := rawCall(t, s.URL, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"r1.promotion": map[string]any{"action": "accept", "content": map[string]any{"action": "promote"}}}}); e != nil {
		t.Fatal(e)
	}
	done := waitTask(t, s.URL, id, "completed")
	txt := done["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
	if txt != "Deployed docs-site v2.1.0 to production." {
		t.Fatalf("result %v", txt)
	}
	wantPromotedOnce(t, s)
}

// wantPromotedOnce checks the end of a deploy_release of docs-site v2.1.0
// that promoted its canary: the version is live, and the canary and the
// promotion ran once each, the rollback never.
func wantPromotedOnce(t *testing.T, s *server) {
	t.Helper()
	ctx := context.Background()
	c, _, _ := domain.Load[domain.Component](ctx, s.Data, domain.ComponentKey("docs-site"))
	if c.Version != "v2.1.0" {
		t.Fatalf("component %+v", c)
	}
	for what, want := range map[string]int64{"canary": 1, "promote": 1, "rollback": 0} {
		if n, _ := domain.Effects(ctx, s.Data, "deploy_release", what+":docs-site"); n != want {
			t.Errorf("%s ran %d times, want %d", what, n, want)
		}
	}
}

// TestTasksAreBoundToTheirCaller: a task alice started is hers on every
// call: bob, and a caller without a token, can neither read it nor answer
// its question, although the example server finds callers by its own demo
// tokens (mrtr.Config.Authenticate), which the tasks manager shares.
func TestTasksAreBoundToTheirCaller(t *testing.T) {
	s := start(t, "memory:", testRing(t), "tasks-1")
	args := map[string]any{"service": "docs-site", "version": "v2.1.0"}
	first, e := rawCallAs(t, s.URL, "tools/call", map[string]any{"name": "deploy_release", "arguments": args}, "alice")
	if e != nil || first["resultType"] != "input_required" {
		t.Fatalf("round 1: %v %v", first, e)
	}
	created, e := rawCallAs(t, s.URL, "tools/call", map[string]any{"name": "deploy_release", "arguments": args,
		"requestState":   first["requestState"],
		"inputResponses": map[string]any{"start": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}}, "alice")
	if e != nil || created["resultType"] != "task" {
		t.Fatalf("round 2: %v %v", created, e)
	}
	id := created["taskId"].(string)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, e := rawCallAs(t, s.URL, "tasks/get", map[string]any{"taskId": id}, "alice")
		if e != nil {
			t.Fatalf("alice's tasks/get: %v", e)
		}
		if got["status"] == "input_required" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: %v", id, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, who := range []string{"bob", ""} {
		if got, e := rawCallAs(t, s.URL, "tasks/get", map[string]any{"taskId": id}, who); e == nil {
			t.Errorf("caller %q read alice's task: %v", who, got)
		}
		if got, e := rawCallAs(t, s.URL, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
			"r1.promotion": map[string]any{"action": "accept", "content": map[string]any{"action": "rollback"}}}}, who); e == nil {
			t.Errorf("caller %q answered alice's task: %v", who, got)
		}
		if got, e := rawCallAs(t, s.URL, "tasks/cancel", map[string]any{"taskId": id}, who); e == nil {
			t.Errorf("caller %q cancelled alice's task: %v", who, got)
		}
	}
	if got, e := rawCallAs(t, s.URL, "tasks/get", map[string]any{"taskId": id}, "alice"); e != nil || got["status"] != "input_required" {
		t.Fatalf("alice's task after the others tried: %v %v", got, e)
	}
}

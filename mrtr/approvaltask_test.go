package mrtr_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/generated/payouts"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/headeruser"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// A tool that runs as a task and reaches an approval gate waits, working,
// asking nothing (its status message says who must approve and where);
// nothing runs while it waits; bob's approval resumes it on its own (the
// approval's outbox calls tasks.Manager.Resume) and it completes, the
// payout sent once. A declined one completes declined.
func TestApprovalInATask(t *testing.T) {
	clock := mrtrtest.NewClock()
	codec := mrtrtest.NewCodec(t, clock)
	st := store.NewMemory(store.Options{Now: clock.Now})
	tm, err := tasks.New(tasks.Config{Logger: quiet, PollInterval: 10 * time.Millisecond, Authenticate: headeruser.Authenticate})
	if err != nil {
		t.Fatal(err)
	}
	approvals, err := approval.New(approval.Config{Store: st, Codec: codec, Audience: "tasks-test", URL: "https://tools.example.com/approvals", Logger: quiet, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "tasks-test", Codec: codec, Logger: quiet, Store: st, Tasks: tm,
		Approvals: approvals, Authenticate: headeruser.Authenticate})
	if err != nil {
		t.Fatal(err)
	}
	data := domain.NewMemory()
	s := mcp.NewServer(&mcp.Implementation{Name: "tasks-test", Version: "test"}, nil)
	if err := tm.Install(s); err != nil {
		t.Fatal(err)
	}
	mrtr.AddTool(s, e, withTask(t, payouts.NewSendPayoutProgram(&payouts.SendPayoutImpl{Data: data}), "route", true))
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tm.Close(ctx)
	})
	alice := taskstest.NewClient(t, ts.URL)
	alice.Header.Set(headeruser.Header, "alice")
	ctx := context.Background()

	for _, tc := range []struct {
		payee   string
		approve bool
		want    string
		sent    int64
	}{
		{"pay_acme", true, "Sent 2,500.00 EUR to pay_acme; payout po_", 1},
		{"pay_globex", false, "No payout was sent to pay_globex.", 0},
	} {
		created, rerr := alice.Call("tools/call", map[string]any{"name": "send_payout", "arguments": map[string]any{"payee": tc.payee, "amount": 2500}})
		if rerr != nil || created["resultType"] != "task" {
			t.Fatalf("%s: tools/call: %v %v", tc.payee, created, rerr)
		}
		id := created["taskId"].(string)
		got := waitFor(t, alice, id, func(got map[string]any) bool {
			msg, _ := got["statusMessage"].(string)
			return got["status"] == "working" && strings.Contains(msg, "Waiting for approval")
		})
		if got["inputRequests"] != nil {
			t.Fatalf("%s: a task waiting for an approval asks %v", tc.payee, got["inputRequests"])
		}
		msg := got["statusMessage"].(string)
		i := strings.Index(msg, "/approvals/")
		if i < 0 {
			t.Fatalf("%s: no link in %q", tc.payee, msg)
		}
		recID, _, _ := strings.Cut(msg[i+len("/approvals/"):], "?")
		if _, err := approvals.Decide(ctx, approval.Decide{ID: recID, Approver: "alice", Approve: true, Channel: approval.ChannelAPI}); err == nil {
			t.Fatalf("%s: alice approved her own payout", tc.payee)
		}
		if _, err := approvals.Decide(ctx, approval.Decide{ID: recID, Approver: "bob", Approve: tc.approve, Channel: approval.ChannelAPI}); err != nil {
			t.Fatalf("%s: bob deciding: %v", tc.payee, err)
		}
		if _, err := approvals.Tick(ctx); err != nil { // the instance's timers deliver the resume
			t.Fatal(err)
		}
		got = waitFor(t, alice, id, func(got map[string]any) bool { return got["status"] == "completed" })
		text := got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
		if !strings.HasPrefix(text, tc.want) {
			t.Errorf("%s: result %q, want %q", tc.payee, text, tc.want)
		}
		if n, err := domain.Effects(ctx, data, "send_payout", tc.payee); err != nil || n != tc.sent {
			t.Errorf("%s: %d payouts sent, %v; want %d", tc.payee, n, err, tc.sent)
		}
	}
}

// waitFor polls tasks/get until ok says the task is as wanted (5 s).
func waitFor(t *testing.T, c *taskstest.Client, id string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, rerr := c.Call("tasks/get", map[string]any{"taskId": id})
		if rerr != nil {
			t.Fatal(rerr)
		}
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: %v", id, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

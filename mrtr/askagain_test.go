package mrtr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// A check that asks again (mrtr.AskAgain): the workflow goes back to the
// question, which shows why; the refusals are counted in the continuation;
// no answer is taken twice, not even one given up front.

var reaskArgs = map[string]any{"release": "4.2"}

func ticket(id string) *mcp.ElicitResult { return mrtrtest.Accept(map[string]any{"id": id}) }

func reaskHarness(t *testing.T, impl *testprog.ReaskImpl) (*mrtrtest.Harness[*testprog.ReaskFlow], *bytes.Buffer) {
	var logs bytes.Buffer
	return mrtrtest.New(t, testprog.NewReaskProgram(impl), mrtrtest.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))), &logs
}

// wantReasked checks that reply asks for the ticket again, saying why.
func wantReasked(t *testing.T, reply *mrtr.Reply, why string) {
	t.Helper()
	ep, ok := reply.InputRequests["ticket"].(*mcp.ElicitParams)
	if !ok {
		t.Fatalf("reply %+v does not ask for the ticket", reply)
	}
	want := "Which change ticket approves release 4.2?\n\n" + why
	if ep.Message != want {
		t.Fatalf("asked again with %q, want %q", ep.Message, want)
	}
}

func TestAskAgainShowsWhyAndTakesTheNewAnswer(t *testing.T) {
	impl := &testprog.ReaskImpl{Approved: map[string]bool{"CHG-2": true}}
	h, _ := reaskHarness(t, impl)
	r1 := call(t, h, reaskArgs, "", nil)
	if ep := r1.InputRequests["ticket"].(*mcp.ElicitParams); strings.Contains(ep.Message, "\n") {
		t.Fatalf("the first question explains a refusal that did not happen: %q", ep.Message)
	}
	r2 := call(t, h, reaskArgs, r1.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-1")})
	r3 := call(t, h, reaskArgs, r2.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if got := strings.Join(r3.Path, " > "); got != "confirmTicket > verify > askTicket" {
		t.Fatalf("round 3 ran %q", got)
	}
	wantReasked(t, r3, "ticket CHG-1 is not approved for release 4.2; pick another (2 attempts left)")
	// The form asked again is prefilled with the refused answer (the first
	// question had no default).
	if s := string(r1.InputRequests["ticket"].(*mcp.ElicitParams).RequestedSchema.(json.RawMessage)); strings.Contains(s, "default") {
		t.Fatalf("the first question has a default: %s", s)
	}
	if s := string(r3.InputRequests["ticket"].(*mcp.ElicitParams).RequestedSchema.(json.RawMessage)); !strings.Contains(s, `"default":"CHG-1"`) {
		t.Fatalf("the question asked again is not prefilled with the refused answer: %s", s)
	}
	// The question asked again is the question: its answer is taken (the
	// explanation is not part of what the answer is pinned to).
	r4 := call(t, h, reaskArgs, r3.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-2")})
	r5 := call(t, h, reaskArgs, r4.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if r5.NeedsInput() || r5.Final.Outcome != mrtr.OutcomeSuccess || r5.Final.Text != "Release 4.2 approved under CHG-2." {
		t.Fatalf("round 5: %+v", r5)
	}
	if n := impl.Checks.Load(); n != 2 {
		t.Fatalf("the check ran %d times, want 2 (once per answer)", n)
	}
}

func TestAskAgainIsBounded(t *testing.T) {
	impl := &testprog.ReaskImpl{}
	h, _ := reaskHarness(t, impl)
	reply := call(t, h, reaskArgs, "", nil)
	for i := 1; i <= 3; i++ {
		reply = call(t, h, reaskArgs, reply.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-9")})
		reply = call(t, h, reaskArgs, reply.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
		if i < 3 {
			wantReasked(t, reply, "ticket CHG-9 is not approved for release 4.2; pick another "+[]string{"", "(2 attempts left)", "(1 attempt left)"}[i])
		}
	}
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeFailed || reply.Final.Text != "No change ticket approves release 4.2." {
		t.Fatalf("after 3 refused answers: %+v, want the exhausted state", reply)
	}
	// The count is in the sealed continuation: a client cannot lower it,
	// and an earlier token, sent again with another answer to start over
	// from its count, is refused (the round record holds its first answer).
	r1 := call(t, h, reaskArgs, "", nil)
	r2 := call(t, h, reaskArgs, r1.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-9")})
	r3 := call(t, h, reaskArgs, r2.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	call(t, h, reaskArgs, r3.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-8")})
	if _, err := h.Call(context.Background(), reaskArgs, r3.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-7")}); err == nil {
		t.Fatal("an earlier requestState was taken again with another answer")
	}
}

// An answer given up front is refused like any other, and then not taken
// again: not when the check that refuses it runs in a later round than
// the ask took it (the question is asked afresh), and not in the round
// after, where the answer to the question asked again wins over the
// up-front one the client sends once more.
func TestAskAgainDoesNotReuseUpFrontAnswers(t *testing.T) {
	impl := &testprog.ReaskImpl{Approved: map[string]bool{"CHG-2": true}}
	h, _ := reaskHarness(t, impl)
	args := map[string]any{"release": "4.2", "inputs": map[string]any{"ticket": map[string]any{"id": "CHG-1"}}}
	r1 := call(t, h, args, "", nil)
	if got := strings.Join(r1.Path, " > "); got != "lookup > askTicket > confirmTicket" {
		t.Fatalf("round 1 ran %q", got)
	}
	r2 := call(t, h, args, r1.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if got := strings.Join(r2.Path, " > "); got != "confirmTicket > verify > askTicket" {
		t.Fatalf("round 2 ran %q: the refused up-front answer was taken again", got)
	}
	wantReasked(t, r2, "ticket CHG-1 is not approved for release 4.2; pick another (2 attempts left)")
	r3 := call(t, h, args, r2.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-2")})
	if ep, ok := r3.InputRequests["confirm"].(*mcp.ElicitParams); !ok || ep.Message != "Release 4.2 under ticket CHG-2?" {
		t.Fatalf("round 3 did not take the new answer: %+v", r3)
	}
	if n := impl.Checks.Load(); n != 1 {
		t.Fatalf("the check ran %d times, want once: the refused answer was checked again", n)
	}
}

// mrtr.AskAgain from a check whose state has no askAgain is a bug the log
// names; the client sees a dependency failure, not the message.
func TestAskAgainWithoutAskAgainInTheSpec(t *testing.T) {
	h, logs := reaskHarness(t, &testprog.ReaskImpl{MisplacedAskAgain: true})
	reply, err := h.Call(context.Background(), reaskArgs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDependencyError(t, reply, logs, "lookup cannot ask again")
	if !strings.Contains(logs.String(), "the spec gives it no askAgain") {
		t.Fatalf("the log does not say the spec has no askAgain there:\n%s", logs)
	}
}

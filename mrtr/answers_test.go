package mrtr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// Answer pinning: an answer counts only for a request this server sent in
// the previous round of this workflow.

func code(digits string) mcp.InputResponseMap {
	return mcp.InputResponseMap{"code": mrtrtest.Accept(map[string]any{"digits": digits})}
}

// Answers sent with a first call (no requestState) were never asked for:
// they are ignored and the question is asked.
func TestAnswersOnAFirstCallAreIgnored(t *testing.T) {
	impl := &testprog.UnlockImpl{}
	h := mrtrtest.New(t, testprog.NewUnlockProgram(impl))
	r := call(t, h, map[string]any{"door": "front"}, "", code("1234"))
	if !r.NeedsInput() || r.InputRequests["code"] == nil || impl.Checks.Load() != 0 {
		t.Fatalf("a first call with answers: %+v (checks %d), want the question", r, impl.Checks.Load())
	}
}

// After a loop back to the same question (a check refused the code), the
// earlier answer does not count again: the question is asked again in the
// same round, instead of the round spinning on the same wrong answer.
func TestALoopBackAsksAgain(t *testing.T) {
	impl := &testprog.UnlockImpl{}
	h := mrtrtest.New(t, testprog.NewUnlockProgram(impl))
	args := map[string]any{"door": "front"}
	r1 := call(t, h, args, "", nil)
	r2 := call(t, h, args, r1.RequestState, code("0000"))
	if !r2.NeedsInput() || r2.InputRequests["code"] == nil || impl.Checks.Load() != 1 {
		t.Fatalf("after a wrong code: %+v (checks %d), want the question again after one check", r2, impl.Checks.Load())
	}
	r3 := call(t, h, args, r2.RequestState, code("1234"))
	if r3.Final == nil || r3.Final.Text != "Door front unlocked with 1234." {
		t.Fatalf("right code: %+v", r3.Final)
	}
}

// A retry that adds a key the round never asked for is the same round: the
// key is ignored and the first reply replays, instead of "already used
// with other input". An answer to a request that was not sent (the
// optional sampling request, to a client without sampling) is ignored too.
func TestUnsolicitedAnswersAreIgnored(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	h.Capabilities = mrtrtest.Capabilities("elicitation")
	r1 := call(t, h, transferArgs, "", nil)
	if r1.InputRequests["summary"] != nil {
		t.Fatalf("the optional sampling request was sent to a client without sampling: %v", r1.InputRequests)
	}
	answers := mcp.InputResponseMap{"memo": memo("rent")}
	r2 := call(t, h, transferArgs, r1.RequestState, answers)
	withExtra := mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("unasked"), "nobody": memo("x")}
	again := call(t, h, transferArgs, r1.RequestState, withExtra)
	if again.RequestState != r2.RequestState {
		t.Fatalf("a retry with unsolicited keys did not replay the round: %+v", again)
	}
}

// A finished round replays after its token expired: the record outlives
// the token. An expired token whose round never ran starts nothing.
func TestExpiredTokenReplaysARecordedRound(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	gate := toGate(t, h)
	answers := mcp.InputResponseMap{"confirm": confirm(true)}
	first := call(t, h, transferArgs, gate.RequestState, answers)
	if first.Final == nil || first.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("final round: %+v", first.Final)
	}
	h.Clock.Advance(5*time.Minute + seal.DefaultSkew + time.Second) // past the TTL of 5m

	late := call(t, h, transferArgs, gate.RequestState, answers)
	if late.Final == nil || late.Final.Text != first.Final.Text || impl.SentCount() != 1 {
		t.Fatalf("retry after expiry: %+v (sent %d), want the recorded reply", late.Final, impl.SentCount())
	}
	gate2 := toGate(t, h)
	h.Clock.Advance(5*time.Minute + seal.DefaultSkew + time.Second)
	if _, err := h.Call(context.Background(), transferArgs, gate2.RequestState, answers); !mrtrtest.IsInvalidState(err) {
		t.Fatalf("an expired token whose round never ran: %v, want the restart error", err)
	}
}

// A replayed input_required carries only requests the retrying client can
// answer: a retry from a client that no longer declares elicitation gets
// -32021, as a first reply would.
func TestReplayRespectsTheRetrysCapabilities(t *testing.T) {
	h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
	r1 := call(t, h, transferArgs, "", nil)
	answers := mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent")}
	r2 := call(t, h, transferArgs, r1.RequestState, answers)
	if r2.InputRequests["confirm"] == nil {
		t.Fatalf("expected the gate: %+v", r2)
	}
	h.Capabilities = mrtrtest.Capabilities("sampling")
	_, err := h.Call(context.Background(), transferArgs, r1.RequestState, answers)
	if mrtrtest.ErrorCode(err) != -32021 {
		t.Fatalf("replay to a client without elicitation: %v, want -32021", err)
	}
}

// changedQuestions serves transfer as a later build whose confirmation
// gate reads differently: Questions renders the gate's new text.
type changedQuestions struct {
	mrtr.Program[*testprog.TransferFlow]
}

func (c changedQuestions) Questions(f *testprog.TransferFlow, s uint16) []mrtrimpl.Pending {
	qs := c.Program.Questions(f, s)
	for i, q := range qs {
		if ep, ok := q.Params.(*mcp.ElicitParams); ok && q.Key == "confirm" {
			changed := *ep
			changed.Message = "Send " + ep.Message + " (to a new payee)"
			qs[i].Params = &changed
		}
	}
	return qs
}

// An answer counts only for the very question that was sent: when what a
// gate confirms changed since it was shown (a deploy between the rounds),
// its yes does not count and the gate is asked again; the same yes to the
// unchanged gate passes.
func TestAnAnswerIsPinnedToTheQuestionShown(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	gate := toGate(t, h)
	later := &mrtrtest.Harness[*testprog.TransferFlow]{Program: changedQuestions{h.Program}, Engine: h.Engine, Store: h.Store,
		Clock: h.Clock, Principal: h.Principal, Capabilities: h.Capabilities}
	yes := mcp.InputResponseMap{"confirm": confirm(true)}
	r := call(t, later, transferArgs, gate.RequestState, yes)
	if !r.NeedsInput() || r.InputRequests["confirm"] == nil || impl.SentCount() != 0 {
		t.Fatalf("a yes to a gate that changed since it was shown: %+v (sent %d), want the gate again", r, impl.SentCount())
	}
	fresh := toGate(t, h)
	if r := call(t, h, transferArgs, fresh.RequestState, yes); r.Final == nil || r.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("a yes to the unchanged gate: %+v", r.Final)
	}
}

// A form asked again after a wrong answer keeps the fields that were
// right (as defaults) and leaves the wrong one empty, in the same order.
func TestAReaskedFormKeepsTheValidAnswers(t *testing.T) {
	h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
	r1 := call(t, h, transferArgs, "", nil)
	answers := mcp.InputResponseMap{"memo": mrtrtest.Accept(map[string]any{"note": "   ", "urgent": true}), "summary": mrtrtest.Text("rent")}
	r2 := call(t, h, transferArgs, r1.RequestState, answers)
	ep, ok := r2.InputRequests["memo"].(*mcp.ElicitParams)
	if !ok {
		t.Fatalf("the memo was not asked again: %+v", r2)
	}
	schema, _ := json.Marshal(ep.RequestedSchema)
	var form struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(schema, &form); err != nil {
		t.Fatal(err)
	}
	if form.Properties["urgent"]["default"] != true {
		t.Errorf("the valid urgent answer is not kept: %s", schema)
	}
	if _, ok := form.Properties["note"]["default"]; ok {
		t.Errorf("the wrong note is kept as a default: %s", schema)
	}
	if !strings.Contains(ep.Message, "note:") {
		t.Errorf("the question does not say which field is wrong: %q", ep.Message)
	}
	if bytes.Index(schema, []byte(`"note"`)) > bytes.Index(schema, []byte(`"urgent"`)) {
		t.Errorf("fields reordered: %s", schema)
	}
}

package mrtrtest

import (
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
)

// The rounds a walk turns into, on transfer: inspect (check with outcomes
// frozen and open, numbered in that order) → askMemo (a form and a sampling
// request) → confirm (a gate) → recheck → send (an effect with an
// operation id of its own) → done.
func TestWalkPlans(t *testing.T) {
	memo := Accept(map[string]any{"note": "example"})
	summary := Text("A sampled answer.")
	w := NewWalker(func(map[string][]uint8) (mrtr.Program[*testprog.TransferFlow], func() int) {
		return testprog.NewTransferProgram(&testprog.TransferImpl{}), func() int { return 0 }
	}, Fixtures{Answers: map[string]mcp.InputResponse{"memo": memo, "summary": summary}})
	d := w.descriptor()
	if got := stateNamed(d, "inspect").Outcomes; !reflect.DeepEqual(got, []string{"frozen", "open"}) {
		t.Fatalf("inspect's outcomes %q", got)
	}
	answered := mcp.InputResponseMap{"memo": memo, "summary": summary}
	yes := Accept(map[string]any{"confirm": true})

	pl := w.plan(t, d, "inspect>(open)askMemo>confirm>recheck>send>done")
	want := plan{
		walk:     "inspect>(open)askMemo>confirm>recheck>send>done",
		outcomes: map[string][]uint8{"inspectAccount": {2}},
		rounds: []ScriptRound{
			{Path: "inspect > askMemo", Asks: []string{"memo", "summary"}},
			{Path: "askMemo > confirm", Send: answered, Asks: []string{"confirm"}},
			{Path: "confirm > recheck > send > done", Send: mcp.InputResponseMap{"confirm": yes}},
		},
		want:    mrtr.OutcomeSuccess,
		effects: 1,
		answers: w.fx.Answers,
	}
	if !reflect.DeepEqual(pl, want) {
		t.Fatalf("plan\n%+v\nwant\n%+v", pl, want)
	}

	pl = w.plan(t, d, "inspect>(open)askMemo>confirm>(decline)declined")
	if last := pl.rounds[len(pl.rounds)-1]; !reflect.DeepEqual(last.Send, mcp.InputResponseMap{"confirm": Accept(map[string]any{"confirm": false})}) || pl.want != mrtr.OutcomeCancelled || pl.effects != 0 {
		t.Fatalf("declining the gate: %+v", pl)
	}
	if pl = w.plan(t, d, "inspect>(frozen)frozen"); !reflect.DeepEqual(pl.outcomes, map[string][]uint8{"inspectAccount": {1}}) || pl.want != mrtr.OutcomeFailed {
		t.Fatalf("the frozen outcome: %+v", pl)
	}

	// At askMemo, the gate's answer is sent instead, and askMemo asks again.
	pl = w.rejectPlan(t, d, "inspect>(open)askMemo")
	if last := pl.rounds[len(pl.rounds)-1]; !reflect.DeepEqual(last, ScriptRound{Path: "askMemo", Send: mcp.InputResponseMap{"confirm": yes}, Asks: []string{"memo", "summary"}}) {
		t.Fatalf("rejected inputs at askMemo: %+v", last)
	}
	// At confirm, the form's answers are sent again, and confirm asks again.
	pl = w.rejectPlan(t, d, "inspect>(open)askMemo>confirm")
	if last := pl.rounds[len(pl.rounds)-1]; !reflect.DeepEqual(last, ScriptRound{Path: "confirm", Send: answered, Asks: []string{"confirm"}}) {
		t.Fatalf("rejected inputs at confirm: %+v", last)
	}
	// The confirmation rides along with the answers that lead to the gate.
	pl = w.confirmEarlyPlan(t, d, "inspect>(open)askMemo>confirm")
	if last := pl.rounds[len(pl.rounds)-1]; !reflect.DeepEqual(last, ScriptRound{Path: "askMemo > confirm", Send: mcp.InputResponseMap{"memo": memo, "summary": summary, "confirm": yes}, Asks: []string{"confirm"}}) {
		t.Fatalf("early confirmation: %+v", last)
	}
}

package vocab

import "testing"

// Every edge says what it is: its label, its constant, and whether it is
// an outcome's or an arm's.
func TestEdges(t *testing.T) {
	for _, c := range []struct {
		e             Edge
		label, goName string
	}{
		{Next, "next", "Next"},
		{Decline, "decline", "Decline"},
		{Cancel, "cancel", "Cancel"},
		{Default, "default", "Default"},
		{AskAgain, "askAgain", "AskAgain"},
		{Exhausted, "exhausted", "Exhausted"},
		{OutcomeEdge("approved"), "approved", ""},
		{CaseEdge("above 500"), "above 500", ""},
	} {
		if got := c.e.Label(); got != c.label {
			t.Errorf("%q.Label() = %q, want %q", c.e, got, c.label)
		}
		if got := c.e.GoName(); got != c.goName {
			t.Errorf("%q.GoName() = %q, want %q", c.e, got, c.goName)
		}
	}
	if l, ok := CaseEdge("gold").Case(); !ok || l != "gold" {
		t.Errorf("CaseEdge(gold).Case() = %q, %v", l, ok)
	}
	if _, ok := OutcomeEdge("gold").Case(); ok {
		t.Error("an outcome's edge is an arm's")
	}
	if _, ok := CaseEdge("gold").Outcome(); ok {
		t.Error("an arm's edge is an outcome's")
	}
}

// Every state kind has a word and a constant name; only asks and gates are
// interactive.
func TestStateKinds(t *testing.T) {
	for k, want := range map[StateKind]string{
		StateCheck: "StateCheck", StateAsk: "StateAsk", StateConfirm: "StateConfirm",
		StateEffect: "StateEffect", StateTerminal: "StateTerminal", StateBranch: "StateBranch",
	} {
		if got := k.GoName(); got != want {
			t.Errorf("%v.GoName() = %q, want %q", k, got, want)
		}
		if k.Interactive() != (k == StateAsk || k == StateConfirm) {
			t.Errorf("%v.Interactive() = %v", k, k.Interactive())
		}
	}
	if StateBranch.String() != "branch" {
		t.Errorf("StateBranch is %q", StateBranch)
	}
}

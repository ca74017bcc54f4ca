package spec

import (
	"slices"
	"strings"
	"testing"
)

const questionsSpec = `version: 1
package: q
tools:
  close_account:
    description: Close an account.
    arguments:
      plan: {type: enum, values: [free, paid], required: true}
    initial: byPlan
    questions:
      reason:
        elicit:
          message: Why?
          fields:
            text: {type: string, required: true, maxLength: 100}
    states:
      byPlan:
        branch: plan
        cases: {free: askFree, paid: askPaid}
      askFree:
        ask:
          reason: question
        next: done
      askPaid:
        ask:
          reason: question
          refund:
            elicit:
              message: Refund?
              fields:
                yes: {type: boolean, required: true}
        next: done
      done: {terminal: success, message: 'Closed ({reason.text}).'}
`

// Both asks hold the one question: one key, one request, listed once.
func TestQuestionIsOneRequest(t *testing.T) {
	f, ds := Parse("q.mrtr.yaml", []byte(questionsSpec), Options{})
	if f == nil || ds.HasErrors() {
		t.Fatalf("does not load: %v", ds)
	}
	tool := f.Tools[0]
	q := tool.Question("reason")
	free, paid := tool.State("askFree"), tool.State("askPaid")
	if q == nil || free.Request("reason") != q || paid.Request("reason") != q {
		t.Fatalf("the asks do not share the question: %v %v %v", q, free.Request("reason"), paid.Request("reason"))
	}
	if got := []string{paid.Requests[0].Key, paid.Requests[1].Key}; !slices.Equal(got, []string{"reason", "refund"}) {
		t.Errorf("askPaid's requests are %v, want sorted by key", got)
	}
	var keys []string
	for _, r := range tool.Requests() {
		keys = append(keys, r.Key)
	}
	if !slices.Equal(keys, []string{"reason", "refund"}) {
		t.Errorf("Requests() = %v, want each key once", keys)
	}
	if askers := tool.AskersOf(q); len(askers) != 2 || !tool.Shared(q) || tool.Shared(paid.Request("refund")) {
		t.Errorf("AskersOf = %d states, Shared wrong", len(askers))
	}
	if q.Pos.Line != 10 || q.Pos.Col != 7 {
		t.Errorf("the question is at %d:%d, want its key in questions (10:7)", q.Pos.Line, q.Pos.Col)
	}
}

func TestQuestionMisuse(t *testing.T) {
	swap := func(old, new string) []byte {
		if !strings.Contains(questionsSpec, old) {
			t.Fatalf("%q is not in the spec", old)
		}
		return []byte(strings.Replace(questionsSpec, old, new, 1))
	}
	for _, c := range []struct {
		name             string
		data             []byte
		pos, rule, words string
	}{
		{"an unknown question", swap("        ask:\n          reason: question\n        next: done\n      askPaid:", "        ask:\n          reson: question\n        next: done\n      askPaid:"),
			"21:18", "unknown-reference", `state "askFree" asks question "reson", which the workflow does not define`},
		{"an unused question", swap("    states:\n", "      spare:\n        elicit:\n          message: Spare?\n          fields:\n            x: {type: boolean, required: true}\n    states:\n"),
			"15:7", "ask", `question "spare" is asked in no state`},
		{"a local entry with a question's key", swap("          reason: question\n          refund:", "          reason:\n            elicit:\n              message: Why not?\n              fields:\n                text: {type: string, required: true, maxLength: 9}\n          refund:"),
			"25:11", "name-collision", `input request key "reason" is already used`},
		{"some other word", swap("        ask:\n          reason: question\n        next: done\n      askPaid:", "        ask:\n          reason: questions\n        next: done\n      askPaid:"),
			"21:19", "schema", `must be "question"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Parse("p.mrtr.yaml", c.data, Options{})
			expectDiag(t, ds, c.pos, c.rule, c.words)
		})
	}
}

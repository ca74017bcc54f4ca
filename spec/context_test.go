package spec

import (
	"strings"
	"testing"
)

// contextSpec is a tool whose ticket question uses a validator with
// context reading an argument, a continuation field and an earlier answer.
const contextSpec = `version: 1
package: p
validators:
  forRelease:
    type: string
    reads: [component, running, change.kind]
tools:
  roll_out:
    description: Roll out under a ticket.
    arguments:
      component: {type: string, maxLength: 20, required: true}
    continuation:
      fields:
        running: {type: string, maxLength: 16}
        found: {type: array, maxItems: 3, items: {type: option, maxLength: 20, titleMaxLength: 40}}
    initial: inspect
    states:
      inspect:
        check: inspect
        sets: [running, found]
        next: askChange
      askChange:
        ask:
          change:
            elicit:
              message: What kind of change?
              fields:
                kind: {type: enum, values: [minor, major], required: true}
        next: askTicket
      askTicket:
        ask:
          ticket:
            elicit:
              message: Which ticket?
              fields:
                id: {type: string, maxLength: 12, required: true, validate: [forRelease]}
                parts: {type: array, minItems: 2, items: {type: enum, valuesFrom: found}}
        next: done
        maxAttempts: 3
        onExhausted: done
      done:
        terminal: success
        message: Done.
`

func TestValidatorReadsResolve(t *testing.T) {
	f, ds := Parse("p.mrtr.yaml", []byte(contextSpec), Options{})
	if ds.HasErrors() {
		t.Fatalf("the valid spec: %s", ds.Error())
	}
	tool := f.Tools[0]
	reads := tool.ReadsOf("forRelease")
	if len(reads) != 3 || reads[0].Kind != RefArgument || reads[1].Kind != RefContinuation || reads[2].Kind != RefFormField || reads[2].Field != tool.State("askChange").Request("change").Field("kind") {
		t.Fatalf("reads: %+v", reads)
	}
	ask := tool.State("askTicket")
	if !ask.UsesFlowValidators(f) || !ask.CountsRefusals() || ask.RefusalLimit() != 3 {
		t.Fatalf("askTicket: uses %v, counts %v, bound %d", ask.UsesFlowValidators(f), ask.CountsRefusals(), ask.RefusalLimit())
	}
	es := ask.Edges()
	if last := es[len(es)-1]; last.On.Label() != "exhausted" || last.To != "done" {
		t.Fatalf("askTicket's edges: %+v", es)
	}
}

func TestValidatorReadsMisuse(t *testing.T) {
	swap := func(old, new string) []byte {
		if !strings.Contains(contextSpec, old) {
			t.Fatalf("%q is not in the spec", old)
		}
		return []byte(strings.Replace(contextSpec, old, new, 1))
	}
	for _, c := range []struct {
		name             string
		data             []byte
		pos, rule, words string
	}{
		{"a bound without a validator with context", swap("validate: [forRelease]", "validate: []"), "40:22", "state", `state "askTicket": maxAttempts bounds the answers validators with context refuse, but no form field of this ask uses one`},
		{"onExhausted without maxAttempts", swap("        maxAttempts: 3\n", ""), "39:9", "state", "maxAttempts and onExhausted bound the answers"},
		{"a bound on a check", swap("        next: askChange\n", "        next: askChange\n        maxAttempts: 2\n"), "22:9", "state", `maxAttempts does not apply to a check state`},
		{"an unknown read", swap("[component, running, change.kind]", "[component, runnin]"), "6:24", "unknown-reference", `"runnin" names no argument, continuation field or form field`},
		{"a read of a whole form", swap("[component, running, change.kind]", "[change]"), "6:13", "unknown-reference", `"change" is the answer of a elicitation/create request`},
		{"minItems above the list's maxItems", swap("minItems: 2", "minItems: 4"), "37:17", "field", `form field "parts": minItems 4 is above the maxItems 3 of continuation list "found" it offers`},
		{"an empty reads", swap("[component, running, change.kind]", "[]"), "6:12", "schema", "minimum 1 items"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Parse("p.mrtr.yaml", c.data, Options{})
			expectDiag(t, ds, c.pos, c.rule, c.words)
		})
	}
}

package lint

import (
	"fmt"

	"github.com/mrtrgen/mrtrgen/spec"
)

// Validators with context (reads:) read the flow when an answer arrives:
// arguments (always given), continuation fields (value-not-set proves them
// set on every path to the ask, as it does for templates) and the answers
// of earlier asks (answer-not-given proves them given on every path). A
// validator that may refuse any answer for a reason of the flow asks
// again and again unless the ask bounds it (unbounded-ask-cycle).

// validatorReads lists, for state s, what the validators with context of
// its forms read, one entry per read of each use.
func (c *checker) validatorReads(t *spec.Tool, s *spec.State) []validatorRead {
	var out []validatorRead
	for _, u := range t.FlowValidatorUses(c.file) {
		if u.State != s {
			continue
		}
		for _, ref := range t.ReadsOf(u.Validator.Name) {
			out = append(out, validatorRead{use: u, ref: ref,
				what: fmt.Sprintf("validator %s of form field %q of request %s", u.Validator.Name, u.Field.Name, u.Request.Key),
				sc:   c.toolScope(t, u.Field.Lint, u.Request.Lint, s.Lint)})
		}
	}
	return out
}

type validatorRead struct {
	use  spec.FlowValidatorUse
	ref  spec.ValueRef
	what string
	sc   scope
}

// readsContinuationInValidators reports whether a validator with context
// of the workflow reads a continuation field: the workflow must then say
// who sets it (sets:), as one that offers options must.
func readsContinuationInValidators(t *spec.Tool) bool {
	for _, vr := range t.ValidatorReads {
		for _, ref := range vr.Reads {
			if ref.Kind == spec.RefContinuation {
				return true
			}
		}
	}
	return false
}

// checkValidatorAnswers is answer-not-given for validators with context:
// an answer a validator reads must be given on every path to the ask
// that uses it, and not be one of that ask's own.
func checkValidatorAnswers(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		var flow *answerFlow
		for i, s := range t.States {
			for _, rd := range c.validatorReads(t, s) {
				if rd.ref.Kind != spec.RefFormField {
					continue
				}
				if flow == nil {
					flow = c.answers(t)
				}
				key := rd.ref.Path[0]
				bit, missing := flow.notGiven(i, key)
				if !missing {
					continue
				}
				if flow.owner[bit] == i {
					c.report(r, rd.use.Ref.Pos, rd.sc, "%s %q: %s in state %q reads %s, the answer to %q, which is asked in this same state: it is not given yet when the validator runs",
						t.Kind, t.Name, rd.what, s.Name, rd.ref.Name(), key)
					continue
				}
				c.report(r, rd.use.Ref.Pos, rd.sc, "%s %q: %s in state %q reads %s, the answer to %q, which is not given on every path here (it is given only after %q by its next edge); on the walk %s the round would fail",
					t.Kind, t.Name, rd.what, s.Name, rd.ref.Name(), key, flow.g.states[flow.owner[bit]].Name, flow.witness(i, key))
			}
		}
	}
}

// checkUnboundedValidators reports an ask whose form uses a validator with
// context but that has no maxAttempts: such a validator may refuse every
// answer (the ticket never covers this release), and the question would
// be asked forever.
func checkUnboundedValidators(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		reported := map[*spec.State]bool{}
		for _, u := range t.FlowValidatorUses(c.file) {
			if u.State.OnExhausted != nil || reported[u.State] {
				continue
			}
			reported[u.State] = true
			c.report(r, u.Ref.Pos, c.toolScope(t, u.Field.Lint, u.Request.Lint, u.State.Lint),
				"%s %q: validator %s of form field %q reads the flow and may refuse every answer, so state %q can ask again and again without a bound; give the ask maxAttempts: N and onExhausted: <state>",
				t.Kind, t.Name, u.Validator.Name, u.Field.Name, u.State.Name)
		}
	}
}

package lint

import (
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Rules of structured output (spec/output.go).
var outputRules = []*Rule{
	{
		ID: "output-field-conflict", Severity: spec.Error,
		Summary: "two terminal states declare an output field of one name differently",
		Hint:    "give the field the same type and constraints in every state, or rename one",
		Why: `A tool has one outputSchema and one Go output struct: the output fields of all its terminal
states are its properties. A name declared in two states with another type or other
constraints would need two schemas for one property (title, description, example and
required may differ: each state's own check insists on what that state requires).`,
		Bad: `found:   {terminal: success, output: {id: {type: string, maxLength: 20}}}
created: {terminal: success, output: {id: {type: integer}}}`,
		Good: `found:   {terminal: success, output: {id: {type: string, maxLength: 20}}}
created: {terminal: success, output: {id: {type: string, maxLength: 20, required: true}}}`,
		check:   checkOutputConflicts,
		compile: true,
	},
	{
		ID: "output-missing", Severity: spec.Warning,
		Summary: "a tool with structured output ends without output in a state that is not an error",
		Hint:    "declare the output this state can give (at least the fields every result has); send declines and cancels to such a state: onDecline and onCancel on the workflow do it for every ask and gate without its own",
		Why: `A client checks every result that is not an error (isError) against the tool's
outputSchema, and a result without structured content fails that check. A success or
cancelled terminal state without output sends an empty object, and so does an ask or
gate without onDecline or onCancel (declining or cancelling it ends the workflow as
cancelled by itself), so the outputSchema can require none of the fields: clients learn
less from it than the other states promise. Failed terminal states are error results
and need no output.

onDecline and onCancel written on the workflow name the terminal state every ask and
gate without its own goes to when the user declines or cancels: one end with output
for all of them, and the rule then reports only the ends really without output.`,
		Bad: `onDecline: declined    # on the workflow: every ask and gate without its own
done:     {terminal: success, message: 'Found {id}.', output: {id: {type: string, maxLength: 20, required: true}}}
declined: {terminal: cancelled, message: Nothing was looked up.}`,
		Good: `onDecline: declined    # on the workflow: every ask and gate without its own
onCancel: declined
done:     {terminal: success, message: 'Found {id}.', output: {id: {type: string, maxLength: 20, required: true}}}
declined: {terminal: cancelled, message: Nothing was looked up., output: {id: {type: string, maxLength: 20}}}`,
		check: checkOutputMissing,
	},
	{
		ID: "sensitive-output", Severity: spec.Error,
		Summary: "an output field is named like a secret or like a sensitive value",
		Hint:    "leave the secret out of the result (give a reference, the last four digits, or nothing)",
		Why: `A structured result goes to the client and, through it, to the model and its logs, and
the server keeps it in its round record so that a retry gets the same reply. A token,
password, key or one-time code does not belong there, nor does a value the spec keeps
server-side (a sensitive continuation or form field of the same name, which the output
method would copy). Names are matched by words as for secret-not-sensitive.`,
		Bad:   "done: {terminal: success, output: {apiKey: {type: string, maxLength: 64}}}",
		Good:  "done: {terminal: success, output: {keyId: {type: string, maxLength: 32}}}",
		check: checkSensitiveOutput,
	},
}

// checkOutputConflicts reports output fields of one name with two shapes.
func checkOutputConflicts(c *checker, r *Rule) {
	for _, t := range c.file.Tools {
		first := map[string]*spec.Field{}
		firstState := map[string]string{}
		for _, s := range t.OutputStates() {
			for _, f := range s.Output {
				prev, ok := first[f.Name]
				if !ok {
					first[f.Name], firstState[f.Name] = f, s.Name
					continue
				}
				if !spec.SameShape(prev, f) {
					c.report(r, f.Pos, c.toolScope(t, s.Lint, f.Lint), "tool %q: output field %q of state %s is not declared as in state %s (%s at %s): a tool has one outputSchema",
						t.Name, f.Name, s.Name, firstState[f.Name], prev.Type, prev.Pos)
				}
			}
		}
	}
}

// checkOutputMissing reports non-error terminal states without output in a
// tool with output.
func checkOutputMissing(c *checker, r *Rule) {
	for _, t := range c.file.Tools {
		if !t.HasOutput() {
			continue
		}
		var with []string
		for _, s := range t.OutputStates() {
			with = append(with, s.Name)
		}
		for _, s := range t.States {
			if s.Kind != vocab.StateTerminal || s.Outcome == vocab.OutcomeFailed || len(s.Output) > 0 {
				continue
			}
			c.report(r, s.Pos, c.toolScope(t, s.Lint), "tool %q: terminal state %s (%s) declares no output, unlike %s: it sends an empty structured result, so the outputSchema can require none of the output fields",
				t.Name, s.Name, s.Outcome, strings.Join(with, ", "))
		}
		for _, s := range t.ImplicitEnds() {
			var how []string
			if s.OnDecline == nil {
				how = append(how, "onDecline")
			}
			if s.OnCancel == nil {
				how = append(how, "onCancel")
			}
			ends := "declining or cancelling it ends the workflow as cancelled"
			if s.Approval() != nil && s.OnExpire == nil {
				how = append(how, "onExpire")
				ends = "declining, cancelling or the approval's expiry ends the workflow"
				if s.OnDecline != nil && s.OnCancel != nil {
					ends = "the approval's expiry ends the workflow as expired"
				}
			}
			to := "point it at a terminal state with output"
			if slices.Contains(how, "onDecline") || slices.Contains(how, "onCancel") {
				to += " (onDecline and onCancel on the workflow do it for every ask and gate without its own)"
			}
			c.report(r, s.Pos, c.toolScope(t, s.Lint), "tool %q: %s state %s has no %s, so %s with an empty structured result, and the outputSchema can require none of the output fields (unlike %s); %s",
				t.Name, s.Kind, s.Name, strings.Join(how, " or "), ends, strings.Join(with, ", "), to)
		}
	}
}

// checkSensitiveOutput reports output fields named like secrets or like a
// sensitive value of the workflow.
func checkSensitiveOutput(c *checker, r *Rule) {
	for _, t := range c.file.Tools {
		sensitive := map[string]string{}
		for _, f := range t.Continuation.Fields {
			if f.Sensitive {
				sensitive[f.Name] = "continuation field"
			}
		}
		for _, s := range t.States {
			for _, q := range s.Requests {
				for _, f := range q.Fields {
					if f.Sensitive {
						sensitive[f.Name] = "form field of " + q.Key
					}
				}
			}
		}
		for _, s := range t.OutputStates() {
			for _, f := range s.Output {
				sc := c.toolScope(t, s.Lint, f.Lint)
				if w := secretName(f.Name); w != "" {
					c.report(r, f.Pos, sc, "tool %q: output field %q of state %s is named like a secret (%s): a structured result goes to the client and the model, and is kept in the round record", t.Name, f.Name, s.Name, w)
					continue
				}
				if what, ok := sensitive[f.Name]; ok {
					c.report(r, f.Pos, sc, "tool %q: output field %q of state %s has the name of a sensitive %s: a structured result goes to the client and the model, and is kept in the round record", t.Name, f.Name, s.Name, what)
				}
			}
		}
	}
}

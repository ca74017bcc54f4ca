package breaking

import (
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
)

// outputRule: what clients read from a tool's structured result.
var outputRule = &Rule{
	ID: "output-narrowed", Category: Client, Severity: Error,
	Summary: "the structured result no longer has a field the outputSchema required, or a field changed its type",
	Hint:    "keep the field (required, of its type) and add the new one beside it, or publish the change as a new tool",
	Why: `Clients read structuredContent by the outputSchema they saw: a field it required is
one they use without looking. Removing it, making it optional (or a state or an end
that lacks it, which makes the schema drop it from required: removing the workflow's
onDecline or onCancel brings back asks and gates that end without output) or changing
its type breaks them, and clients that check results against the new schema cannot
tell.`,
	Old:   `done: {terminal: success, output: {id: {type: string, maxLength: 20, required: true}}}`,
	New:   `done: {terminal: success, output: {ref: {type: string, maxLength: 20, required: true}}}`,
	Fixed: `done: {terminal: success, output: {id: {type: string, maxLength: 20, required: true}, ref: {type: string, maxLength: 20, required: true}}}`,
	check: checkOutputNarrowed,
}

func checkOutputNarrowed(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		if p.old.Kind != p.new.Kind || !p.old.HasOutput() {
			continue
		}
		now := map[string]spec.OutputField{}
		for _, f := range p.new.OutputFields() {
			now[f.Name] = f
		}
		for _, was := range p.old.OutputFields() {
			f, ok := now[was.Name]
			switch {
			case was.SchemaRequired && !ok:
				c.report(r, p.new.Pos, was.Pos, c.toolScope(p.new), "%s %q: output field %q, which the outputSchema required, is gone: clients that read it find nothing", p.new.Kind, p.new.Name, was.Name)
			case was.SchemaRequired && !f.SchemaRequired:
				c.report(r, f.Pos, was.Pos, c.toolScope(p.new), "%s %q: output field %q is no longer required by the outputSchema (%s): clients that read it may find nothing", p.new.Kind, p.new.Name, was.Name, whyNotRequired(p.old, p.new))
			case ok && (f.Type != was.Type || (f.Items == nil) != (was.Items == nil) || (f.Items != nil && f.Items.Type != was.Items.Type)):
				c.report(r, f.Pos, was.Pos, c.toolScope(p.new), "%s %q: output field %q changed its type from %s to %s: clients read it as the old type", p.new.Kind, p.new.Name, was.Name, was.Type, f.Type)
			}
		}
	}
}

// whyNotRequired says why the new tool's outputSchema requires less: asks
// and gates that now end the workflow without output (naming the
// workflow's onDecline or onCancel when it was removed), else a state
// that lacks the field.
func whyNotRequired(was, now *spec.Tool) string {
	ends := now.ImplicitEnds()
	if len(ends) == 0 || len(was.ImplicitEnds()) > 0 {
		return "a state or an end lacks it"
	}
	var names, gone []string
	for _, s := range ends {
		names = append(names, s.Name)
	}
	if was.OnDecline != nil && now.OnDecline == nil {
		gone = append(gone, "onDecline")
	}
	if was.OnCancel != nil && now.OnCancel == nil {
		gone = append(gone, "onCancel")
	}
	verb, are := " now ends", " is"
	if len(names) > 1 {
		verb = " now end"
	}
	if len(gone) > 1 {
		are = " are"
	}
	why := strings.Join(names, ", ") + verb + " the workflow without output"
	if len(gone) > 0 {
		why += ": the workflow's " + strings.Join(gone, " and ") + are + " gone"
	}
	return why
}

package breaking

import (
	"fmt"

	"github.com/mrtrgen/mrtrgen/spec"
)

// goTypeRule reports a goType added, changed or removed on a value of both
// versions. The value's JSON form is its type, which the other rules
// compare: a goType alone changes the Go the handler is written against,
// never the wire (schemas, answers, tokens).
var goTypeRule = &Rule{
	ID: "go-type-changed", Category: "", Severity: Info,
	Summary: "the Go type of an argument, form, continuation or output field (goType) was added, changed or removed: the handler's Go API changes, the wire does not",
	Hint:    "update the handler to the new Go type; nothing to do for clients or waiting workflows",
	Why: `goType binds a value to a Go type of the user's (uuid.UUID, a domain ID type) while its
JSON form stays the field's type. Generated code validates, renders and carries that JSON
form, so tokens minted by either build open on the other, and clients see the same
schemas. What changes is the Go the handler is written against: f.Args, the answers,
f.Continuation and the output struct use the new type, and the build fails until the
handler does. During a rolling deploy each build converts the carried JSON form to its
own type: a value the new type refuses refuses the waiting workflow, as a narrowed
constraint would (tighten the pattern with it).`,
	Old:   `arguments: {orderId: {type: string, required: true, maxLength: 36}}`,
	New:   `arguments: {orderId: {type: string, required: true, maxLength: 36, goType: github.com/google/uuid.UUID}}`,
	check: checkGoTypeChanged,
}

func checkGoTypeChanged(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		compare := func(what string, of, nf *spec.Field, sc scope) {
			if of == nil || nf == nil || of.GoType == nil && nf.GoType == nil || goTypeText(of) == goTypeText(nf) {
				return
			}
			pos := nf.Pos
			if nf.GoType != nil {
				pos = nf.GoType.Pos
			}
			c.report(r, pos, of.Pos, sc, "the Go type of %s changed from %s to %s: the handler's code changes, the wire does not", what, goTypeText(of), goTypeText(nf))
		}
		for _, of := range p.old.Arguments {
			nf := p.new.Argument(of.Name)
			compare(fmt.Sprintf("argument %q", of.Name), of, nf, c.toolScope(p.new))
		}
		for _, of := range p.old.Continuation.Fields {
			compare(fmt.Sprintf("continuation field %q", of.Name), of, p.new.Continuation.Field(of.Name), c.toolScope(p.new))
		}
		for _, oq := range p.old.Requests() {
			for _, nq := range p.new.Requests() {
				if nq.Key != oq.Key {
					continue
				}
				for _, of := range oq.Fields {
					compare(fmt.Sprintf("form field %q", oq.Key+"."+of.Name), of, nq.Field(of.Name), c.toolScope(p.new, nq.Lint))
				}
			}
		}
		for _, of := range p.old.OutputFields() {
			for _, nf := range p.new.OutputFields() {
				if nf.Name == of.Name {
					compare(fmt.Sprintf("output field %q", of.Name), of.Field, nf.Field, c.toolScope(p.new))
				}
			}
		}
	}
}

// goTypeText names the Go type of f's value: its goType, or the type
// generated without one.
func goTypeText(f *spec.Field) string {
	if f.GoType != nil {
		return f.GoType.String()
	}
	switch f.Type {
	case spec.TypeNumber:
		return "float64"
	case spec.TypeInteger:
		return "int64"
	case spec.TypeBoolean:
		return "bool"
	case spec.TypeString:
		return "string"
	}
	return "the " + f.Type.String() + " type"
}

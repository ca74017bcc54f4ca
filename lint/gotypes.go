package lint

import "github.com/mrtrgen/mrtrgen/spec"

// goTypeLoaderRules are reported when mrtrgen generate or check loads the
// Go types a spec binds values to (generator.CheckGoTypes): they need the
// user's module, which lint does not read.
var goTypeLoaderRules = []*Rule{
	{ID: "go-type", Severity: spec.Error,
		Summary: "a goType names no Go type of the module, or one whose JSON form is not of the field's type",
		Hint:    "name a type with MarshalJSON and UnmarshalJSON, MarshalText and UnmarshalText (a string), or the field's kind as its underlying type",
		Why: "A value bound to a Go type (goType) keeps its JSON form in every schema and in the continuation; the type converts to and from it. " +
			"mrtrgen generate and check load the type with the go command of the output directory (the user's module) and refuse one that does not exist, " +
			"or whose JSON form cannot be the field's type: MarshalText makes a string, an underlying int64 an integer. " +
			"A type with its own MarshalJSON is taken at its word, and each value is checked at run time. `mrtrgen lint` does not load Go code, so it does not report this rule."},
}

var goTypeRules = []*Rule{
	{
		ID: "go-type-without-example", Severity: spec.Warning,
		Summary: "a string bound to a Go type (goType) has neither an example nor a pattern",
		Hint:    "give the field an example the type accepts (example: 6f1c2d3e-4a5b-4c6d-8e7f-001122334455), or a pattern of the values it accepts",
		Why: `The generated tests, the fake handler and Drive<Tool> build a value of the type from the
field's example, converted as a client's value is (jsonform.Must). Without one, mrtrgen
derives a string from the constraints: one matching the pattern, which a type whose
pattern says what it accepts takes, or else "example", which a type with its own
UnmarshalText or UnmarshalJSON (a UUID, a decimal, a currency code) refuses: the
generated tests then fail with an internal error instead of running the workflow.`,
		Bad:   `paymentId: {type: string, required: true, maxLength: 36, goType: github.com/google/uuid.UUID}`,
		Good:  `paymentId: {type: string, required: true, maxLength: 36, goType: github.com/google/uuid.UUID, example: 6f1c2d3e-4a5b-4c6d-8e7f-001122334455}`,
		check: checkGoTypeWithoutExample,
	},
}

// checkGoTypeWithoutExample reports each goType string without an example
// or a pattern, once per field (a question asked in several states has one).
func checkGoTypeWithoutExample(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		seen := map[*spec.Field]bool{}
		check := func(f *spec.Field, what string, inner ...*spec.LintConfig) {
			if f.GoType == nil || f.Type != spec.TypeString || f.Example != nil || f.Pattern != "" || seen[f] {
				return
			}
			seen[f] = true
			c.report(r, f.GoType.Pos, c.toolScope(t, append(inner, f.Lint)...),
				"%s %q: %s %q has %s %s but no example or pattern; the generated tests derive a value the type may refuse", t.Kind, t.Name, what, f.Name, "goType", f.GoType)
		}
		for _, f := range t.Arguments {
			check(f, "argument")
		}
		for _, f := range t.Continuation.Fields {
			check(f, "continuation field")
		}
		for _, q := range t.Requests() {
			for _, f := range q.Fields {
				check(f, "form field", q.Lint)
			}
		}
		for _, s := range t.OutputStates() {
			for _, f := range s.Output {
				check(f, "output field", s.Lint)
			}
		}
	}
}

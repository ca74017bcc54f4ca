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

package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
)

// The generated validation tests: for each constraint of each argument and
// form field, a value that breaks it, sent with otherwise valid input, and
// the problem the generated validator must report. A validator that loses a
// check (a bound, a pattern, a format, an enum, a length, a list size,
// required) fails its test.

// breakCase is one broken value and the problem it must cause.
type breakCase struct {
	field string // the field's name
	value any    // a JSON value; nil leaves the field out
	want  string // a prefix of the problem
}

// breakCases lists the cases of a field (and of its items).
func breakCases(f *spec.Field) []breakCase {
	var out []breakCase
	if f.Required && f.Default == nil {
		out = append(out, breakCase{f.Name, nil, f.Name + ": required"})
	}
	if f.Type != spec.TypeArray {
		for _, c := range valueBreaks(f, f.Name) {
			c.field = f.Name
			out = append(out, c)
		}
		return out
	}
	if f.Items == nil {
		return out
	}
	item := func(i int) any {
		v, err := exampleValue(f.Items, i%max(1, len(f.Items.Values)))
		if err != nil {
			return nil
		}
		return v
	}
	items := func(n int) []any {
		out := []any{}
		for i := range n {
			out = append(out, item(i))
		}
		return out
	}
	if item(0) == nil {
		return out
	}
	if f.MinItems != nil && *f.MinItems > 0 {
		out = append(out, breakCase{f.Name, items(*f.MinItems - 1), fmt.Sprintf("%s: choose at least %d", f.Name, *f.MinItems)})
	}
	if f.MaxItems != nil {
		out = append(out, breakCase{f.Name, items(*f.MaxItems + 1), fmt.Sprintf("%s: choose at most %d", f.Name, *f.MaxItems)})
	}
	for _, c := range valueBreaks(f.Items, f.Name+"[]") {
		out = append(out, breakCase{f.Name, []any{c.value}, c.want})
	}
	return out
}

// valueBreaks are the broken values of a scalar constraint; label names
// the value in problems.
func valueBreaks(f *spec.Field, label string) []breakCase {
	var out []breakCase
	add := func(v any, want string) { out = append(out, breakCase{value: v, want: label + ": " + want}) }
	switch f.Type {
	case spec.TypeString:
		if f.MinLength != nil && *f.MinLength > 0 {
			add(xs(*f.MinLength-1), fmt.Sprintf("at least %d characters", *f.MinLength))
		}
		if f.MaxLength != nil {
			add(xs(*f.MaxLength+1), fmt.Sprintf("at most %d characters", *f.MaxLength))
		}
		if f.Regexp != nil {
			if i := slices.IndexFunc(nonMatching, func(s string) bool { return !f.Regexp.MatchString(s) }); i >= 0 {
				add(nonMatching[i], "must match ")
			}
		}
		if bad, ok := badFormat[f.Format]; ok {
			add(bad, "must be a valid "+f.Format)
		}
	case spec.TypeInteger:
		if f.Minimum != nil {
			add(int64(*f.Minimum)-1, "at least "+formatNum(*f.Minimum))
		}
		if f.Maximum != nil {
			add(int64(*f.Maximum)+1, "at most "+formatNum(*f.Maximum))
		}
	case spec.TypeNumber:
		if f.Minimum != nil {
			add(*f.Minimum-1, "at least "+formatNum(*f.Minimum))
		}
		if f.Maximum != nil {
			add(*f.Maximum+1, "at most "+formatNum(*f.Maximum))
		}
	case spec.TypeEnum:
		v := "not-a-value"
		for slices.ContainsFunc(f.Values, func(e spec.EnumValue) bool { return e.Value == v }) {
			v += "!"
		}
		add(v, "must be one of ")
	}
	return out
}

// xs is a string of n x's, written strings.Repeat("x", n) when long.
type xs int

// breakValue is the Go literal of a broken value.
func breakValue(v any) jen.Code {
	switch x := v.(type) {
	case nil:
		return jen.Nil()
	case xs:
		if x > 16 {
			return jen.Qual("strings", "Repeat").Call(jen.Lit("x"), jen.Lit(int(x)))
		}
		return jen.Lit(strings.Repeat("x", int(x)))
	case []any:
		vals := make([]jen.Code, len(x))
		for i, e := range x {
			vals[i] = breakValue(e)
		}
		return jen.Index().Any().Values(vals...)
	}
	return valueCode(v)
}

// nonMatching are strings tried, in order, against a pattern: the first it
// does not match breaks it.
var nonMatching = []string{"", " ", "!", "x", "0", "~ ~"}

// badFormat is a value of each format that is not valid.
var badFormat = map[string]string{
	"email": "not an address", "uri": "no-scheme", "date": "2026-13-01", "date-time": "not a time",
}

// validationTests emits Test<Tool>Validation when the workflow has
// arguments or form fields with constraints.
func (w *workflow) validationTests(jf *jen.File) {
	n := w.n
	type row struct {
		key string // "" for arguments, else the request key
		c   breakCase
	}
	var rows []row
	valid := jen.Dict{}
	validOf := func(key string, fields []*spec.Field) bool {
		base := jen.Dict{}
		for _, f := range fields {
			if f.Required {
				v, err := exampleValue(f, 0)
				if err != nil {
					return false
				}
				base[jen.Lit(f.Name)] = valueCode(v)
			}
		}
		used := false
		for _, f := range fields {
			for _, c := range breakCases(f) {
				rows = append(rows, row{key, c})
				used = true
			}
		}
		if used {
			valid[jen.Lit(key)] = jen.Values(base)
		}
		return true
	}
	if !validOf("", w.t.Arguments) {
		return
	}
	var decoders []*spec.InputRequest
	for _, q := range w.requests() {
		if q.Kind != spec.RequestElicit {
			continue
		}
		before := len(rows)
		if !validOf(q.Key, q.Fields) {
			return
		}
		if len(rows) > before {
			decoders = append(decoders, q)
		}
	}
	if len(rows) == 0 {
		return
	}
	jf.Commentf("Test%sValidation sends, for each constraint of an argument or a form", n.base)
	jf.Comment("field, valid input but for one value that breaks the constraint, and")
	jf.Comment("checks that validation reports it.")
	jf.Func().Id("Test" + n.base + "Validation").Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).BlockFunc(func(g *jen.Group) {
		g.Id("p").Op(":=").Id(n.program()).Values(jen.Dict{jen.Id("h"): jen.Op("&").Id(w.fakeName()).Values()})
		g.Comment(`valid input, by input request key ("" for the arguments)`)
		g.Id("valid").Op(":=").Map(jen.String()).Map(jen.String()).Any().Values(valid)
		g.Id("cases").Op(":=").Index().Struct(
			jen.Id("key").String(),
			jen.Id("field").String(),
			jen.Id("value").Any().Comment("nil: left out"),
			jen.Id("want").String().Comment("the start of the problem"),
		).ValuesFunc(func(cs *jen.Group) {
			for _, r := range rows {
				cs.Line().Values(jen.Lit(r.key), jen.Lit(r.c.field), breakValue(r.c.value), jen.Lit(r.c.want))
			}
			cs.Line()
		})
		g.For(jen.List(jen.Id("_"), jen.Id("tc")).Op(":=").Range().Id("cases")).BlockFunc(func(l *jen.Group) {
			l.Id("input").Op(":=").Qual("maps", "Clone").Call(jen.Id("valid").Index(jen.Id("tc").Dot("key")))
			l.If(jen.Id("tc").Dot("value").Op("==").Nil()).Block(
				jen.Delete(jen.Id("input"), jen.Id("tc").Dot("field")),
			).Else().Block(
				jen.Id("input").Index(jen.Id("tc").Dot("field")).Op("=").Id("tc").Dot("value"),
			)
			l.Var().Id("problems").Qual(pkgMRTR, "Problems")
			l.Switch(jen.Id("tc").Dot("key")).BlockFunc(func(sw *jen.Group) {
				sw.Case(jen.Lit("")).Block(
					jen.List(jen.Id("raw"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(jen.Id("input")),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("t").Dot("Fatal").Call(jen.Err())),
					jen.List(jen.Id("_"), jen.Err()).Op("=").Id("p").Dot("NewFlow").Call(jen.Qual("context", "Background").Call(), jen.Op("&").Qual(pkgMRTR, "Call").Values(), jen.Id("raw")),
					jen.Var().Id("ae").Op("*").Qual(pkgMRTR, "ArgumentError"),
					jen.If(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("ae"))).Block(
						jen.Id("problems").Op("=").Id("ae").Dot("Problems"),
					),
				)
				for _, q := range decoders {
					sw.Case(jen.Lit(q.Key)).Block(
						jen.List(jen.Id("_"), jen.Id("problems")).Op("=").Id("p").Dot(w.answerDecoder(q)).Call(jen.Qual("context", "Background").Call(), jen.Id("input")),
					)
				}
			})
			l.If(jen.Op("!").Qual("slices", "ContainsFunc").Call(jen.Id("problems"), jen.Func().Params(jen.Id("s").String()).Bool().Block(
				jen.Return(jen.Qual("strings", "HasPrefix").Call(jen.Id("s"), jen.Id("tc").Dot("want"))),
			))).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("%q %s = %#v: problems %q, want one starting %q"), jen.Id("tc").Dot("key"), jen.Id("tc").Dot("field"), jen.Id("tc").Dot("value"), jen.Id("problems"), jen.Id("tc").Dot("want")),
			)
		})
	})
	jf.Line()
}

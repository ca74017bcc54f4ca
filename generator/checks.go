package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/mrtr/problem"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
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
	want  string // the problem, worded by package problem
}

// breakCases lists the cases of a field (and of its items).
func breakCases(f *spec.Field) []breakCase {
	var out []breakCase
	if f.Required && f.Default == nil {
		out = append(out, breakCase{f.Name, nil, problem.Required(f.Name)})
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
	// How many distinct values an item can take: the enum's values, or the
	// options a dynamic multi-select's list offers in the tests.
	distinct := len(f.Items.Values)
	if f.Items.Dynamic() {
		opts, _ := exampleOptions(f.Items.Source)
		distinct = len(opts)
	}
	item := func(i int) any {
		v, err := exampleValue(f.Items, i%max(1, distinct))
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
		out = append(out, breakCase{f.Name, items(*f.MinItems - 1), problem.TooFew(f.Name, *f.MinItems)})
	}
	// Repeated enum values count once, so an enum list can only exceed
	// maxItems when the enum has more values.
	enum := f.Items.Type == spec.TypeEnum
	if f.MaxItems != nil && (!enum || *f.MaxItems < distinct) {
		out = append(out, breakCase{f.Name, items(*f.MaxItems + 1), problem.TooMany(f.Name, *f.MaxItems)})
	}
	if f.UniqueItems {
		out = append(out, breakCase{f.Name, []any{item(0), item(0)}, problem.Repeated(f.Name, fmt.Sprint(item(0)))})
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
	add := func(v any, want string) { out = append(out, breakCase{value: v, want: want}) }
	switch f.Type {
	case spec.TypeString:
		if f.MinLength != nil && *f.MinLength > 0 {
			add(xs(*f.MinLength-1), problem.TooShort(label, *f.MinLength, *f.MinLength-1))
		}
		if f.MaxLength != nil {
			add(xs(*f.MaxLength+1), problem.TooLong(label, *f.MaxLength, *f.MaxLength+1))
		}
		if f.Regexp != nil {
			if i := slices.IndexFunc(nonMatching, func(s string) bool { return !f.Regexp.MatchString(s) }); i >= 0 {
				add(nonMatching[i], problem.NoMatch(label, f.Pattern))
			}
		}
		if bad, ok := badFormat[f.Format]; ok {
			add(bad, problem.BadFormat(label, f.Format))
		}
	case spec.TypeInteger:
		if f.Minimum != nil {
			add(int64(*f.Minimum)-1, problem.BelowMinimum(label, *f.Minimum))
		}
		if f.Maximum != nil {
			add(int64(*f.Maximum)+1, problem.AboveMaximum(label, *f.Maximum))
		}
	case spec.TypeNumber:
		if f.Minimum != nil {
			add(*f.Minimum-1, problem.BelowMinimum(label, *f.Minimum))
		}
		if f.Maximum != nil {
			add(*f.Maximum+1, problem.AboveMaximum(label, *f.Maximum))
		}
	case spec.TypeEnum:
		if f.Dynamic() {
			// The options the tests' flow offers (see exampleGo).
			opts, err := exampleOptions(f.Source)
			if err != nil {
				break
			}
			v := "not-offered"
			for slices.ContainsFunc(opts, func(o spec.Option) bool { return o.Value == v }) {
				v += "!"
			}
			add(v, problem.NotOffered(label, strings.Join(optionValues(opts), ", "), v))
			break
		}
		v := "not-a-value"
		for slices.ContainsFunc(f.Values, func(e spec.EnumValue) bool { return e.Value == v }) {
			v += "!"
		}
		add(v, problem.NotOneOf(label, strings.Join(values(f.Values), ", ")))
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
	// One input: its decoder, its valid value, the values that break it.
	type input struct {
		decoder, valid string
		q              *spec.InputRequest // nil for the arguments
		base           jen.Dict
		cases          []breakCase
	}
	inputOf := func(decoder, valid string, q *spec.InputRequest, fields []*spec.Field) (input, bool) {
		in := input{decoder: decoder, valid: valid, q: q, base: jen.Dict{}}
		for _, f := range fields {
			if f.Required {
				v, err := exampleValue(f, 0)
				if err != nil {
					return in, false
				}
				in.base[jen.Lit(f.Name)] = valueCode(v)
			}
		}
		for _, f := range fields {
			in.cases = append(in.cases, breakCases(f)...)
		}
		return in, true
	}
	var inputs []input
	args, ok := inputOf("decodeArguments", "validArguments", nil, w.t.Arguments)
	if !ok {
		return
	}
	inputs = append(inputs, args)
	for _, q := range w.requests() {
		if q.Kind != vocab.Elicit {
			continue
		}
		for _, form := range w.forms(q) { // each state's own form, validated as that state does
			name := spec.GoName(q.Key) + siteSuffix(form)
			in, ok := inputOf("decode"+name+"Answer", "valid"+name+"Answer", form, form.Fields)
			if !ok {
				return
			}
			inputs = append(inputs, in)
		}
	}
	inputs = slices.DeleteFunc(inputs, func(in input) bool { return len(in.cases) == 0 })
	if len(inputs) == 0 {
		return
	}
	jf.Commentf("Test%sValidation sends, for each constraint of an argument or a form", n.base)
	jf.Comment("field, valid input but for one value that breaks the constraint, and")
	jf.Comment("checks that validation reports it.")
	jf.Func().Id("Test" + n.base + "Validation").Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).BlockFunc(func(g *jen.Group) {
		g.Id("p").Op(":=").Id(n.program()).Values(jen.Dict{jen.Id("h"): jen.Op("&").Id(w.fakeName()).Values()})
		var forms []*spec.InputRequest
		for _, in := range inputs {
			if in.q != nil {
				forms = append(forms, in.q)
			}
		}
		w.offeringFlow(g, forms)
		for _, in := range inputs {
			if in.q == nil {
				g.Id(in.decoder).Op(":=").Qual(pkgTest, "ArgumentDecoder").Call(jen.Id("p"))
			} else {
				g.Id(in.decoder).Op(":=").Qual(pkgTest, "AnswerDecoder").Call(w.decoderRef(in.q))
			}
			g.Id(in.valid).Op(":=").Map(jen.String()).Any().Values(in.base)
		}
		for _, in := range inputs {
			for _, c := range in.cases {
				g.Qual(pkgTest, "Broken").Call(jen.Id("t"), jen.Id(in.decoder), jen.Id(in.valid), jen.Lit(c.field), breakValue(c.value), jen.Lit(c.want))
			}
		}
	})
	jf.Line()
}

// offeringFlow declares f, a flow offering the options the tests' fake
// sets, when one of the forms offers a continuation list: their decoders
// check answers against the options of a flow.
func (w *workflow) offeringFlow(g *jen.Group, forms []*spec.InputRequest) {
	var sources []*spec.Field
	for _, q := range forms {
		for _, src := range offeredSources(q) {
			if !slices.Contains(sources, src) {
				sources = append(sources, src)
			}
		}
	}
	reads := slices.ContainsFunc(forms, w.requestReadsFlow)
	if len(sources) == 0 && !reads {
		return
	}
	g.Id("f").Op(":=").Op("&").Id(w.n.flow()).Values()
	for _, src := range sources {
		if v, err := w.exampleGo(src); err == nil {
			g.Id("f").Dot("Continuation").Dot(field(src.Name)).Op("=").Add(v)
		}
	}
	if !reads {
		return
	}
	// The answers validators with context read are given (the fake's
	// validators accept what they read).
	var keys []string
	for _, vr := range w.t.ValidatorReads {
		for _, ref := range vr.Reads {
			if ref.Kind == spec.RefFormField && !slices.Contains(keys, ref.Path[0]) {
				keys = append(keys, ref.Path[0])
			}
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		g.Id("f").Dot(field(k)).Op("=").Op("&").Id(w.n.answer(k)).Values()
	}
}

// validatorTests emits Test<Tool>Validators when the workflow's arguments
// or the forms its fixture workflow asks use custom validators: each use,
// one at a time, refuses (the user must be told why), fails as a
// dependency (the round must end as a dependency error, the text in the
// log only), and is not called for a value that breaks a built-in
// constraint of its field.
func (w *workflow) validatorTests(jf *jen.File) {
	type use struct {
		validator, request string
		f                  *spec.Field
	}
	var uses []use
	add := func(request string, fields []*spec.Field) {
		for _, f := range fields {
			vs := f.Validate
			if f.Type == spec.TypeArray && f.Items != nil {
				vs = f.Items.Validate
			}
			for _, v := range vs {
				uses = append(uses, use{v.Name, request, f})
			}
		}
	}
	add("", w.t.Arguments)
	// Every form, on the default path or not: CheckValidator finds a route
	// to it as the matrix does (the fake steered onto the branch that asks).
	for _, q := range w.requests() {
		if q.Kind == vocab.Elicit {
			add(q.Key, q.Fields)
		}
	}
	if len(uses) == 0 {
		return
	}
	n := w.n
	jf.Commentf("Test%sValidators makes each use of a custom validator, one at a time,", n.base)
	jf.Comment("refuse the value (the user must be told why) and fail as a dependency (the")
	jf.Comment("round must end as a dependency error, the text in the log only); a value that")
	jf.Comment("breaks a built-in constraint of the same field must not reach the validator.")
	jf.Func().Id("Test" + n.base + "Validators").Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).BlockFunc(func(g *jen.Group) {
		g.Id("h").Op(":=").Op("&").Id(w.fakeName()).Values()
		g.Id("fx").Op(":=").Id("fixtures" + n.base).Call(jen.Id("h"))
		g.Id("p").Op(":=").Id(n.newProgram()).Call(jen.Id("h"))
		for _, u := range uses {
			v, err := exampleValue(u.f, 0)
			if err != nil {
				g.Commentf("Not checked: %s of %s (no example value; give the field an example:).", u.validator, u.f.Name)
				continue
			}
			d := jen.Dict{jen.Id("Field"): jen.Lit(u.f.Name), jen.Id("Value"): valueCode(v)}
			if u.request != "" {
				d[jen.Id("Request")] = jen.Lit(u.request)
			}
			for _, c := range breakCases(u.f) {
				if c.value != nil {
					d[jen.Id("Broken")] = breakValue(c.value)
					break
				}
			}
			g.Qual(pkgTest, "CheckValidator").Call(jen.Id("t"), jen.Id("p"), jen.Id("fx"),
				jen.Id("h").Dot("fake").Dot("Use").Call(jen.Lit(u.validator), jen.Qual(pkgTest, "ValidatorUse").Values(d)))
		}
	})
	jf.Line()
}

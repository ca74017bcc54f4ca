package generator

import (
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// validators emits argument decoding (NewFlow), one check function per
// constrained field, and the decoders of answers. Every constraint of the
// spec appears as its own if statement, so a reviewer can match them.
func (w *workflow) validators(jf *jen.File) {
	t, n := w.t, w.n
	jf.Comment("NewFlow decodes and validates the arguments; it runs on every round.")
	jf.Func().Params(jen.Id("p").Id(n.program())).Id("NewFlow").
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("c").Op("*").Qual(pkgMRTR, "Call"), jen.Id("raw").Qual("encoding/json", "RawMessage")).
		Params(jen.Op("*").Id(n.flow()), jen.Error()).
		BlockFunc(func(g *jen.Group) {
			g.List(jen.Id("in"), jen.Err()).Op(":=").Add(implX("DecodeObject")).Call(jen.Id("raw"))
			g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
			g.Id("f").Op(":=").Op("&").Id(n.flow()).Values(jen.Dict{jen.Id("Call"): jen.Id("c"), jen.Id("state"): w.stateID(t.Initial)})
			g.Var().Id("problems").Qual(pkgImpl, "Problems")
			known := []jen.Code{jen.Id("in")}
			for _, a := range t.Arguments {
				known = append(known, jen.Lit(a.Name))
			}
			g.Id("problems").Dot("Unknown").Call(known...)
			for _, a := range t.Arguments {
				w.readField(g, reader{src: "in", scope: "Arg", fail: []jen.Code{jen.Nil()}}, a, jen.Id("f").Dot("Args").Dot(field(a.Name)))
			}
			g.Return(jen.Id("f"), jen.Id("problems").Dot("Err").Call())
		})
	jf.Line()
	for _, a := range t.Arguments {
		w.patternVars(jf, a, "Arg")
	}
	for _, q := range w.requests() {
		for _, f := range q.Fields {
			w.patternVars(jf, f, q.Key)
		}
		if q.Text != nil {
			w.patternVars(jf, q.Text, q.Key)
		}
		if q.Kind != vocab.ElicitURL { // mrtrimpl.X.Opened() decodes a URL step
			for _, form := range w.forms(q) {
				w.answerDecoderFunc(jf, form)
			}
		}
	}
	w.continuationCheck(jf)
	w.canonicalContinuation(jf)
	w.outputChecks(jf)
}

// canonicalLists are the continuation's lists of enum values.
func (w *workflow) canonicalLists() []*spec.Field {
	var out []*spec.Field
	for _, c := range w.t.Continuation.Fields {
		if c.Type == spec.TypeArray && c.Items != nil && c.Items.Type == spec.TypeEnum {
			out = append(out, c)
		}
	}
	return out
}

func (w *workflow) canonicalName() string { return "canonical" + w.n.base + "Continuation" }

// canonicalContinuation emits the function that makes the lists of enum
// values a handler stored in the continuation canonical, as answers are:
// generated code calls it after every check and effect, so what later
// states read (templates, operation ids) and what is sealed does not
// depend on the order a handler appended values in.
func (w *workflow) canonicalContinuation(jf *jen.File) {
	lists := w.canonicalLists()
	if len(lists) == 0 {
		return
	}
	jf.Commentf("%s makes the continuation's lists of enum values canonical (each", w.canonicalName())
	jf.Comment("value once, in spec order) after a handler may have set them.")
	jf.Func().Id(w.canonicalName()).Params(jen.Id("f").Op("*").Id(w.n.flow())).BlockFunc(func(g *jen.Group) {
		for _, c := range lists {
			v := jen.Id("f").Dot("Continuation").Dot(field(c.Name))
			g.Add(v.Clone()).Op("=").Qual(pkgImpl, "SpecOrder").Call(v.Clone(), jen.Id(w.enumValues(w.enumOf[c.Items])))
		}
	})
	jf.Line()
}

// canonicalCall is the call of canonicalContinuation, or nothing.
func (w *workflow) canonicalCall() jen.Code {
	if len(w.canonicalLists()) == 0 {
		return jen.Null()
	}
	return jen.Id(w.canonicalName()).Call(jen.Id("f"))
}

// continuationCheck emits CheckContinuation: the built-in constraints of
// what the workflow carries, continuation fields (which handlers fill) and
// answers. The engine checks them before it seals a continuation (an enum
// value outside the list would otherwise be sealed), and again when it
// opens one, so a value a narrowed constraint no longer allows is refused
// (constraint_narrowed). Custom validators are not run again: they ran
// when the value was taken. A value still at its zero value has not been
// set, and is not checked.
func (w *workflow) continuationCheck(jf *jen.File) {
	const scope = "Continuation"
	for _, c := range w.t.Continuation.Fields {
		w.patternVars(jf, c, scope)
	}
	jf.Comment("CheckContinuation checks what the workflow carries (continuation fields, answers)")
	jf.Comment("against the spec's built-in constraints, before the engine seals it and when it opens")
	jf.Comment("it again; a value still at its zero value is not set yet.")
	jf.Func().Params(jen.Id("p").Id(w.n.program())).Id("CheckContinuation").
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("f").Op("*").Id(w.n.flow())).
		Qual(pkgImpl, "Problems").
		BlockFunc(func(g *jen.Group) {
			var body []func(*jen.Group)
			for _, c := range w.t.Continuation.Fields {
				if c.Type == spec.TypeArray && c.Items != nil && c.Items.Type == spec.TypeOption {
					body = append(body, func(g *jen.Group) {
						g.If(jen.Id("list").Op(":=").Id("f").Dot("Continuation").Dot(field(c.Name)), jen.Len(jen.Id("list")).Op(">").Lit(0)).BlockFunc(func(b *jen.Group) {
							w.optionListChecks(b, c, scope)
						})
					})
					continue
				}
				if hasBuiltinChecks(c) {
					body = append(body, func(g *jen.Group) {
						w.carriedChecks(g, c, jen.Id("f").Dot("Continuation").Dot(field(c.Name)), false, scope, c.Name)
					})
				}
			}
			for _, q := range w.requests() {
				if check := w.answerChecks(q); check != nil {
					body = append(body, check)
				}
			}
			if len(body) == 0 {
				g.Return(jen.Nil())
				return
			}
			g.Var().Id("problems").Qual(pkgImpl, "Problems")
			for _, b := range body {
				b(g)
			}
			g.Return(jen.Id("problems"))
		})
	jf.Line()
}

// optionListChecks appends the checks of a continuation list of options a
// handler filled: its bounds, each value's constraints (it is a string),
// each title's length, and values that are there and distinct.
func (w *workflow) optionListChecks(b *jen.Group, c *spec.Field, scope string) {
	countChecks(b, c, jen.Len(jen.Id("list")), "FewerItems", "MoreItems")
	item := c.Items
	if hasBuiltins(item) || item.TitleMaxLength != nil || item.TitlePattern != "" {
		b.For(jen.List(jen.Id("_"), jen.Id("o")).Op(":=").Range().Id("list")).BlockFunc(func(l *jen.Group) {
			if hasBuiltins(item) {
				l.Id("v").Op(":=").Id("o").Dot("Value")
				w.checks(l, item, scope, c.Name+"[]")
			}
			if item.TitleMaxLength != nil {
				l.If(jen.Id("n").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(jen.Id("o").Dot("Title")), jen.Id("n").Op(">").Lit(*item.TitleMaxLength)).Block(
					problemCall("TooLong", jen.Lit(c.Name+"[].title"), jen.Lit(*item.TitleMaxLength), jen.Id("n")))
			}
			if item.TitlePattern != "" {
				l.If(jen.Op("!").Id(w.titlePatternVar(scope, item)).Dot("MatchString").Call(jen.Id("o").Dot("Title"))).Block(
					problemCall("NoMatch", jen.Lit(c.Name+"[].title"), jen.Lit(item.TitlePattern)))
			}
		})
	}
	b.Add(implX("CheckOptions")).Call(jen.Op("&").Id("problems"), jen.Lit(c.Name), jen.Id("list"))
}

// hasBuiltinChecks reports whether carriedChecks emits anything for f.
func hasBuiltinChecks(f *spec.Field) bool {
	if f == nil {
		return false
	}
	if f.Type == spec.TypeArray {
		return f.MinItems != nil || f.MaxItems != nil || hasBuiltinChecks(f.Items)
	}
	// A goType value is checked to have a JSON form, with or without
	// constraints on it.
	return hasBuiltins(f) || f.GoType != nil
}

// answerChecks returns what checks the answer to q again, or nil when it
// has no built-in constraint.
func (w *workflow) answerChecks(q *spec.InputRequest) func(*jen.Group) {
	a := jen.Id("f").Dot(field(q.Key))
	switch q.Kind {
	case vocab.ElicitURL:
		return nil // nothing to check: the step's answer carries nothing
	case vocab.Sample:
		if q.MaxLength == nil {
			return nil
		}
		return func(g *jen.Group) {
			g.If(a.Clone().Op("!=").Nil()).Block(
				jen.If(jen.Id("n").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(a.Clone().Dot("Text")), jen.Id("n").Op(">").Lit(*q.MaxLength)).Block(
					problemCall("TooLong", jen.Lit(q.Key), jen.Lit(*q.MaxLength), jen.Id("n"))))
		}
	case vocab.Roots:
		minItems := 0
		if q.MinItems != nil {
			minItems = *q.MinItems
		}
		return func(g *jen.Group) {
			g.If(a.Clone().Op("!=").Nil()).Block(
				jen.Id("problems").Op("=").Append(jen.Id("problems"), implX("CheckRoots").Call(a.Clone().Dot("URIs"), jen.Lit(minItems), jen.Lit(q.MaxItems)).Op("...")))
		}
	}
	var checked []*spec.Field
	for _, f := range q.Fields {
		if hasBuiltinChecks(f) {
			checked = append(checked, f)
		}
	}
	if len(checked) == 0 {
		return nil
	}
	// A carried answer's offered values are checked against the options
	// the continuation carries, as the decoder checked them.
	var sources []*spec.Field
	for _, src := range offeredSources(q) {
		for _, f := range checked {
			e := f
			if f.Type == spec.TypeArray && f.Items != nil {
				e = f.Items
			}
			if e.Source == src && !slices.Contains(sources, src) {
				sources = append(sources, src)
			}
		}
	}
	return func(g *jen.Group) {
		g.If(jen.Id("a").Op(":=").Add(a), jen.Id("a").Op("!=").Nil()).BlockFunc(func(g *jen.Group) {
			for _, src := range sources {
				g.Id(offeredVar(src)).Op(":=").Add(optionsOf(src))
			}
			for _, f := range checked {
				w.carriedChecks(g, f, jen.Id("a").Dot(field(f.Name)), optional(f), q.Key, q.Key+"."+f.Name)
			}
		})
	}
}

// carriedChecks appends the built-in checks of carried value v of field f
// (a pointer when ptr), when it is set.
func (w *workflow) carriedChecks(g *jen.Group, f *spec.Field, v *jen.Statement, ptr bool, scope, label string) {
	if f.Type == spec.TypeArray {
		g.If(jen.Id("list").Op(":=").Add(v), jen.Len(jen.Id("list")).Op(">").Lit(0)).BlockFunc(func(b *jen.Group) {
			countChecksAs(b, f, label, jen.Len(jen.Id("list")), "FewerItems", "MoreItems")
			if hasBuiltins(f.Items) {
				b.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("list")).BlockFunc(func(l *jen.Group) {
					w.checks(l, f.Items, scope, label+"[]")
				})
			}
		})
		return
	}
	if f.GoType != nil {
		w.carriedGoTypeChecks(g, f, v, ptr, scope, label)
		return
	}
	if ptr {
		value := jen.Op("*").Add(v.Clone())
		if f.Type == spec.TypeEnum {
			value = jen.String().Call(value)
		}
		g.If(v.Clone().Op("!=").Nil()).BlockFunc(func(b *jen.Group) {
			b.Id("v").Op(":=").Add(value)
			w.checks(b, f, scope, label)
		})
		return
	}
	if f.Type == spec.TypeEnum {
		v = jen.String().Call(v) // checks compares it as the string it came as
	}
	g.If(jen.Id("v").Op(":=").Add(v), jen.Id("v").Op("!=").Add(zeroOf(f))).BlockFunc(func(b *jen.Group) {
		w.checks(b, f, scope, label)
	})
}

// carriedGoTypeChecks is carriedChecks for a value of a goType: its JSON
// form must exist and be of the field's type (a problem otherwise, so
// nothing that does not convert is sealed or sent), and is checked when
// set (not nil, or not the zero value of its JSON form).
func (w *workflow) carriedGoTypeChecks(g *jen.Group, f *spec.Field, v *jen.Statement, ptr bool, scope, label string) {
	to := func(x jen.Code) *jen.Statement {
		return jen.List(jen.Id("v"), jen.Err()).Op(":=").Qual(pkgJSONForm, "To").Types(wireType(f)).Call(x)
	}
	if !hasBuiltins(f) {
		// Nothing to check on the JSON form but that there is one.
		value := v.Clone()
		if ptr {
			value = jen.Op("*").Add(v.Clone())
		}
		check := jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Qual(pkgJSONForm, "To").Types(wireType(f)).Call(value), jen.Err().Op("!=").Nil()).Block(convertProblem(label))
		if ptr {
			g.If(v.Clone().Op("!=").Nil()).Block(check)
		} else {
			g.Add(check)
		}
		return
	}
	if ptr {
		g.If(v.Clone().Op("!=").Nil()).Block(
			jen.If(to(jen.Op("*").Add(v.Clone())), jen.Err().Op("!=").Nil()).Block(convertProblem(label)).Else().BlockFunc(func(b *jen.Group) {
				w.checks(b, f, scope, label)
			}))
		return
	}
	g.If(to(v.Clone()), jen.Err().Op("!=").Nil()).Block(convertProblem(label)).Else().If(jen.Id("v").Op("!=").Add(zeroOf(f))).BlockFunc(func(b *jen.Group) {
		w.checks(b, f, scope, label)
	})
}

// countChecks appends the bounds of array field f on its length n; fewer
// and more are the Problems methods that word them.
func countChecks(g *jen.Group, f *spec.Field, n jen.Code, fewer, more string) {
	countChecksAs(g, f, f.Name, n, fewer, more)
}

// countChecksAs is countChecks naming the list label ("reason.tags" for a
// carried answer's field).
func countChecksAs(g *jen.Group, f *spec.Field, label string, n jen.Code, fewer, more string) {
	if f.MinItems != nil {
		g.If(jen.Add(n).Op("<").Lit(*f.MinItems)).Block(problemCall(fewer, jen.Lit(label), jen.Lit(*f.MinItems)))
	}
	if f.MaxItems != nil {
		g.If(jen.Add(n).Op(">").Lit(*f.MaxItems)).Block(problemCall(more, jen.Lit(label), jen.Lit(*f.MaxItems)))
	}
}

// problemCall is problems.<method>(args...): a problem worded by package
// problem, through mrtrimpl.Problems.
func problemCall(method string, args ...jen.Code) *jen.Statement {
	return jen.Id("problems").Dot(method).Call(args...)
}

// hasBuiltins reports whether scalar field f has a built-in constraint
// (anything checks emits but custom validators).
func hasBuiltins(f *spec.Field) bool {
	return f.MinLength != nil || f.MaxLength != nil || f.Pattern != "" || f.Format != "" ||
		f.Minimum != nil || f.Maximum != nil || f.Type == spec.TypeEnum
}

// offeredVar is the local variable of a decoder holding the options of a
// continuation list a form offers (see offeredDecls).
func offeredVar(src *spec.Field) string { return "offered" + spec.GoName(src.Name) }

// offeredSources lists the continuation lists the dynamic fields of a form
// offer, once each, in field order.
func offeredSources(q *spec.InputRequest) []*spec.Field {
	var out []*spec.Field
	for _, f := range q.Fields {
		e := f
		if f.Type == spec.TypeArray && f.Items != nil {
			e = f.Items
		}
		if e.Dynamic() && e.Source != nil && !slices.Contains(out, e.Source) {
			out = append(out, e.Source)
		}
	}
	return out
}

// optionsOf is the list src holds as []mrtr.Option: itself, or a list of
// strings each its own title.
func optionsOf(src *spec.Field) *jen.Statement {
	v := jen.Id("f").Dot("Continuation").Dot(field(src.Name))
	if src.Items.Type == spec.TypeString {
		return implX("StringOptions").Call(v)
	}
	return v
}

// zeroOf is the zero value of a scalar field's Go type.
func zeroOf(f *spec.Field) jen.Code {
	switch f.Type {
	case spec.TypeString, spec.TypeEnum:
		return jen.Lit("")
	case spec.TypeBoolean:
		return jen.False()
	}
	return jen.Lit(0)
}

// patternVars emits the compiled pattern of a field (or of its items).
func (w *workflow) patternVars(jf *jen.File, f *spec.Field, scope string) {
	if f.Type == spec.TypeArray {
		// Items have the field's name, and so the field's pattern variable.
		f = f.Items
	}
	if f == nil {
		return
	}
	if f.Pattern != "" {
		jf.Var().Id(w.patternVar(scope, f)).Op("=").Qual("regexp", "MustCompile").Call(jen.Lit("^(?:" + f.Pattern + ")$"))
		jf.Line()
	}
	if f.TitlePattern != "" {
		jf.Var().Id(w.titlePatternVar(scope, f)).Op("=").Qual("regexp", "MustCompile").Call(jen.Lit("^(?:" + f.TitlePattern + ")$"))
		jf.Line()
	}
}

// titlePatternVar names the compiled titlePattern of a list's options.
func (w *workflow) titlePatternVar(scope string, f *spec.Field) string {
	return w.n.helper(scope, f.Name, "titlePattern")
}

func (w *workflow) patternVar(scope string, f *spec.Field) string {
	return w.n.helper(scope, f.Name, "pattern")
}

// reader says how a decoder reports a custom validator that failed as a
// dependency: it returns fail (the zero values of its other results) and
// the error; where prefixes the value's name in that error ("terms." for
// a form field, "" for an argument).
type reader struct {
	src   string
	scope string
	where string
	fail  []jen.Code
	// answer, when reading a state's own form of a question, is the
	// question: its fields say which Go values are pointers.
	answer *spec.InputRequest
}

// readField appends the statements that read field f from the map r.src
// into dst, recording problems.
func (w *workflow) readField(g *jen.Group, r reader, f *spec.Field, dst *jen.Statement) {
	optional := optional(f)
	if r.answer != nil && r.answer.Field(f.Name) != nil {
		optional = !r.answer.Field(f.Name).Required && r.answer.Field(f.Name).Default == nil
	}
	if f.Type == spec.TypeArray {
		w.readArray(g, r, f, dst)
		return
	}
	getter, want := formGetter(f.Type)
	g.Switch(jen.List(jen.Id("v"), jen.Id("st")).Op(":=").Add(implX(getter)).Call(jen.Id(r.src), jen.Lit(f.Name)), jen.Id("st")).BlockFunc(func(sw *jen.Group) {
		sw.Case(jen.Qual(pkgImpl, "Present")).BlockFunc(func(c *jen.Group) {
			guarded(c, hasBuiltins(f) && len(f.Validate) > 0,
				func(b *jen.Group) { w.checks(b, f, r.scope, f.Name) },
				func(b *jen.Group) { w.validatorCalls(b, r, f.Validate, f.Name, jen.Id("v")) })
			if f.GoType != nil {
				set := dst.Clone().Op("=").Id("t")
				if optional {
					set = dst.Clone().Op("=").Op("&").Id("t")
				}
				c.If(jen.List(jen.Id("t"), jen.Err()).Op(":=").Qual(pkgJSONForm, "From").Types(userType(f)).Call(jen.Id("v")), jen.Err().Op("!=").Nil()).
					Block(convertProblem(f.Name)).Else().Block(set)
				return
			}
			val := jen.Id("v")
			static := f.Type == spec.TypeEnum && !f.Dynamic()
			if static {
				val = jen.Id(w.enumOf[f].name).Call(jen.Id("v"))
			}
			if optional {
				if static {
					c.Id("e").Op(":=").Add(val)
					c.Add(dst.Clone()).Op("=").Op("&").Id("e")
				} else {
					c.Add(dst.Clone()).Op("=").Op("&").Id("v")
				}
			} else {
				c.Add(dst.Clone()).Op("=").Add(val)
			}
		})
		switch {
		case f.Default != nil:
			sw.Case(jen.Qual(pkgImpl, "Absent")).Block(dst.Clone().Op("=").Add(w.defaultLiteral(f)))
		case f.Required:
			sw.Case(jen.Qual(pkgImpl, "Absent")).Block(problemCall("Required", jen.Lit(f.Name)))
		}
		sw.Case(jen.Qual(pkgImpl, "WrongType")).Block(problemCall("WrongType", jen.Lit(f.Name), jen.Lit(want)))
	})
}

// guarded appends the built-in checks of a value, then its custom
// validators; with guard, the validators run only when no built-in check
// added a problem: a value already known to be wrong is not sent to a
// validator's backend (which may be slow, or count calls).
func guarded(g *jen.Group, guard bool, builtins, validators func(*jen.Group)) {
	if !guard {
		builtins(g)
		validators(g)
		return
	}
	g.Id("checked").Op(":=").Len(jen.Id("problems"))
	builtins(g)
	g.If(jen.Len(jen.Id("problems")).Op("==").Id("checked")).BlockFunc(validators)
}

// readArray reads a list. A list of enum values is made canonical before
// anything reads it: each value once, in the order of the spec's values
// (with uniqueItems, a repeated value is a problem instead), and its
// bounds count distinct values. Custom validators of the items run once
// the whole list has passed its built-in checks.
func (w *workflow) readArray(g *jen.Group, r reader, f *spec.Field, dst *jen.Statement) {
	g.Switch(jen.List(jen.Id("list"), jen.Id("st")).Op(":=").Add(implX("FormList")).Call(jen.Id(r.src), jen.Lit(f.Name)), jen.Id("st")).BlockFunc(func(sw *jen.Group) {
		sw.Case(jen.Qual(pkgImpl, "Present")).BlockFunc(func(c *jen.Group) {
			w.readList(c, r, f, dst)
		})
		switch {
		case f.Default != nil:
			sw.Case(jen.Qual(pkgImpl, "Absent")).Block(dst.Clone().Op("=").Add(w.defaultLiteral(f)))
		case f.Required:
			sw.Case(jen.Qual(pkgImpl, "Absent")).Block(problemCall("Required", jen.Lit(f.Name)))
		}
		sw.Case(jen.Qual(pkgImpl, "WrongType")).Block(problemCall("WrongType", jen.Lit(f.Name), jen.Lit("a list")))
	})
}

// readList reads a list that was sent: its count (of an enum list, once it
// is canonical), each item, repeats, and then the items' custom
// validators.
func (w *workflow) readList(c *jen.Group, r reader, f *spec.Field, dst *jen.Statement) {
	item := f.Items
	enum := item.Type == spec.TypeEnum
	dynamic := item.Dynamic()
	guard := len(item.Validate) > 0
	bounded := f.MinItems != nil || f.MaxItems != nil
	if guard || (enum && bounded) {
		c.Id("checked").Op(":=").Len(jen.Id("problems"))
	}
	if !enum {
		countChecks(c, f, jen.Len(jen.Id("list")), "TooFew", "TooMany")
	}
	if dynamic {
		// Items not offered are named in one problem, each once.
		c.Var().Id("unoffered").Index().String()
	}
	c.For(jen.List(jen.Id("i"), jen.Id("it")).Op(":=").Range().Id("list")).BlockFunc(func(l *jen.Group) {
		w.readListItem(l, r, f, dst)
	})
	if dynamic {
		c.If(jen.Len(jen.Id("unoffered")).Op(">").Lit(0)).Block(
			problemCall("NotOffered", jen.Lit(f.Name+"[]"), jen.Id(offeredVar(item.Source)), jen.Id("unoffered").Op("...")))
	}
	if f.UniqueItems {
		c.If(jen.Id("twice").Op(":=").Qual(pkgImpl, "Repeated").Call(dst.Clone()), jen.Len(jen.Id("twice")).Op(">").Lit(0)).Block(
			problemCall("Repeated", jen.Lit(f.Name), jen.Qual(pkgImpl, "Join").Call(jen.Id("twice"))))
	}
	if enum {
		w.canonicalEnumList(c, f, dst, bounded)
	}
	if guard {
		c.If(jen.Len(jen.Id("problems")).Op("==").Id("checked")).Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Add(dst.Clone())).BlockFunc(func(l *jen.Group) {
				arg := jen.Id("x")
				if enum && !dynamic {
					arg = jen.String().Call(jen.Id("x")) // enum items are validated as strings
				}
				w.validatorCalls(l, r, item.Validate, f.Name+"[]", arg)
			}))
	}
}

// readListItem reads item i of a list, it, into dst: of the item type, then
// offered (a dynamic enum), one of the values (an enum) or within the
// item's built-in constraints.
func (w *workflow) readListItem(l *jen.Group, r reader, f *spec.Field, dst *jen.Statement) {
	item := f.Items
	as, want := itemGetter(item.Type)
	l.List(jen.Id("v"), jen.Id("ok")).Op(":=").Add(implX(as)).Call(jen.Id("it"))
	l.If(jen.Id("ok").Op("!=").Qual(pkgImpl, "Present")).Block(
		problemCall("ItemWrongType", jen.Lit(f.Name), jen.Id("i"), jen.Lit(want)),
		jen.Continue(),
	)
	val := jen.Id("v")
	switch {
	case item.Dynamic():
		offered := jen.Id(offeredVar(item.Source))
		l.If(jen.Op("!").Add(implX("Offered")).Call(offered, jen.Id("v"))).Block(
			jen.Id("unoffered").Op("=").Append(jen.Id("unoffered"), jen.Id("v")),
			jen.Continue(),
		)
	case item.Type == spec.TypeEnum:
		e := w.enumOf[item]
		// A value outside the list is not kept: SpecOrder
		// would drop it anyway.
		l.If(jen.Op("!").Qual("slices", "Contains").Call(w.allowedValues(item, e), jen.Id(e.name).Call(jen.Id("v")))).Block(
			problemCall("NotOneOf", jen.Lit(f.Name+"[]"), jen.Lit(strings.Join(values(item.Values), ", "))),
			jen.Continue(),
		)
		val = jen.Id(e.name).Call(jen.Id("v"))
	default:
		w.checks(l, item, r.scope, f.Name+"[]")
	}
	l.Add(dst.Clone()).Op("=").Append(dst.Clone(), val)
}

// canonicalEnumList makes the enum list dst one answer however it was
// sent, and then counts its distinct values against the bounds.
func (w *workflow) canonicalEnumList(c *jen.Group, f *spec.Field, dst *jen.Statement, bounded bool) {
	item := f.Items
	if item.Dynamic() {
		c.Comment("One answer, however it was sent: each value once, in the order offered.")
		c.Add(dst.Clone()).Op("=").Add(implX("OfferedOrder")).Call(dst.Clone(), jen.Id(offeredVar(item.Source)))
	} else {
		c.Comment("One answer, however it was sent: each value once, in the order of the spec's values.")
		c.Add(dst.Clone()).Op("=").Qual(pkgImpl, "SpecOrder").Call(dst.Clone(), jen.Id(w.enumValues(w.enumOf[item])))
	}
	if bounded {
		// The bounds count distinct values, once every value is known.
		c.If(jen.Len(jen.Id("problems")).Op("==").Id("checked")).BlockFunc(func(b *jen.Group) {
			countChecks(b, f, jen.Len(dst.Clone()), "TooFew", "TooMany")
		})
	}
}

// validatorCalls appends the calls of custom validators on value arg: an
// mrtr.Invalid becomes a problem (the user corrects it); any other error
// ends the decoder, a dependency failure the engine logs.
func (w *workflow) validatorCalls(g *jen.Group, r reader, vs []spec.NameRef, label string, arg jen.Code) {
	for _, v := range vs {
		if fv := w.g.f.Validator(v.Name); fv != nil && fv.InContext() {
			w.flowValidatorCall(g, r, fv, label, arg)
			continue
		}
		g.If(
			jen.Err().Op(":=").Id("p").Dot("h").Dot(method(v.Name)).Call(jen.Id("ctx"), arg),
			jen.Err().Op("!=").Nil().Op("&&").Op("!").Id("problems").Dot("AddInvalid").Call(jen.Lit(label), jen.Err()),
		).Block(jen.Return(append(slices.Clone(r.fail), implX("ValidatorFailed").Call(jen.Lit(v.Name), jen.Lit(r.where+label), jen.Err()))...))
	}
}

// getter names the mrtrimpl readers of a scalar type: of a form field
// (FormInt) and of a list item (AsInt), and the type as a problem words
// it.
type getter struct{ form, item, want string }

var getters = map[spec.FieldType]getter{
	spec.TypeInteger: {"FormInt", "AsInt", "an integer"},
	spec.TypeNumber:  {"FormFloat", "AsFloat", "a number"},
	spec.TypeBoolean: {"FormBool", "AsBool", "true or false"},
}

// stringGetter reads every other type: strings, enums, options.
var stringGetter = getter{"FormString", "AsString", "a string"}

func getterOf(t spec.FieldType) getter {
	if g, ok := getters[t]; ok {
		return g
	}
	return stringGetter
}

// formGetter is the reader of a form field of type t, and t as a problem
// words it.
func formGetter(t spec.FieldType) (string, string) { return getterOf(t).form, getterOf(t).want }

// itemGetter is the reader of a list item of type t, and t as a problem
// words it.
func itemGetter(t spec.FieldType) (string, string) { return getterOf(t).item, getterOf(t).want }

// defaultLiteral is the Go value of a field's default.
func (w *workflow) defaultLiteral(f *spec.Field) *jen.Statement {
	switch v := f.Default.(type) {
	case string:
		if f.Type == spec.TypeEnum {
			return jen.Id(w.enumConst(w.enumOf[f], v))
		}
		return jen.Lit(v)
	case int64:
		return intLit(v)
	case float64:
		return jen.Lit(v)
	case bool:
		return jen.Lit(v)
	case []string:
		// A default list is canonical too: each value once, in spec order.
		e := w.enumOf[f]
		return jen.Index().Id(e.name).ValuesFunc(func(g *jen.Group) {
			for _, x := range values(f.Items.Values) {
				if slices.Contains(v, x) {
					g.Id(w.enumConst(e, x))
				}
			}
		})
	}
	return jen.Nil()
}

// intLit is an untyped integer constant: 18, not int64(18).
func intLit(v int64) *jen.Statement { return jen.Op(strconv.FormatInt(v, 10)) }

// checks appends an if statement per built-in constraint of field f on
// its value v, right where the decoder has read it; label names the value
// in problems. Custom validators are validatorCalls.
func (w *workflow) checks(g *jen.Group, f *spec.Field, scope, label string) {
	if f.MinLength != nil {
		g.If(jen.Id("n").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(jen.Id("v")), jen.Id("n").Op("<").Lit(*f.MinLength)).Block(
			problemCall("TooShort", jen.Lit(label), jen.Lit(*f.MinLength), jen.Id("n")))
	}
	if f.MaxLength != nil {
		g.If(jen.Id("n").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(jen.Id("v")), jen.Id("n").Op(">").Lit(*f.MaxLength)).Block(
			problemCall("TooLong", jen.Lit(label), jen.Lit(*f.MaxLength), jen.Id("n")))
	}
	if f.Pattern != "" {
		g.If(jen.Op("!").Id(w.patternVar(scope, f)).Dot("MatchString").Call(jen.Id("v"))).Block(
			problemCall("NoMatch", jen.Lit(label), jen.Lit(f.Pattern)))
	}
	if f.Format != "" {
		g.Id("problems").Dot("CheckFormat").Call(jen.Lit(label), jen.Lit(f.Format), jen.Id("v"))
	}
	num := func(x float64) jen.Code {
		if f.Type == spec.TypeInteger {
			return intLit(int64(x))
		}
		return jen.Lit(x)
	}
	if f.Minimum != nil {
		g.If(jen.Id("v").Op("<").Add(num(*f.Minimum))).Block(
			problemCall("BelowMinimum", jen.Lit(label), num(*f.Minimum)))
	}
	if f.Maximum != nil {
		g.If(jen.Id("v").Op(">").Add(num(*f.Maximum))).Block(
			problemCall("AboveMaximum", jen.Lit(label), num(*f.Maximum)))
	}
	if f.Dynamic() {
		offered := jen.Id(offeredVar(f.Source))
		g.If(jen.Op("!").Add(implX("Offered")).Call(offered, jen.Id("v"))).Block(
			problemCall("NotOffered", jen.Lit(label), offered, jen.Id("v")))
	} else if f.Type == spec.TypeEnum {
		e := w.enumOf[f]
		g.If(jen.Op("!").Qual("slices", "Contains").Call(w.allowedValues(f, e), jen.Id(e.name).Call(jen.Id("v")))).Block(
			problemCall("NotOneOf", jen.Lit(label), jen.Lit(strings.Join(values(f.Values), ", "))))
	}
}

func (w *workflow) answerDecoder(q *spec.InputRequest) string {
	return "decode" + spec.GoName(q.Key) + siteSuffix(q)
}

// decoderRef is the decoder of q's answer as Take and the tests use it:
// p.decodeKey, or p.decodeKey(f) for a form that offers the flow's options.
func (w *workflow) decoderRef(q *spec.InputRequest) *jen.Statement {
	d := jen.Id("p").Dot(w.answerDecoder(q))
	if q.Kind == vocab.Elicit && (len(offeredSources(q)) > 0 || w.requestReadsFlow(q)) {
		d = d.Call(jen.Id("f"))
	}
	return d
}

// answerDecoderFunc emits the decoder of one request's answer: typed,
// validated, with every problem reported so the question can be asked
// again saying what to fix.
func (w *workflow) answerDecoderFunc(jf *jen.File, q *spec.InputRequest) {
	name := w.answerDecoder(q)
	recv := jen.Id("p").Id(w.n.program())
	ctx := jen.Id("ctx").Qual("context", "Context")
	switch q.Kind {
	case vocab.Elicit:
		results := []jen.Code{jen.Op("*").Id(w.n.answer(q.Key)), jen.Qual(pkgImpl, "Problems"), jen.Error()}
		body := func(g *jen.Group) {
			g.Id("a").Op(":=").Op("&").Id(w.n.answer(q.Key)).Values()
			g.Var().Id("problems").Qual(pkgImpl, "Problems")
			for _, f := range q.Fields {
				w.readField(g, reader{src: "content", scope: q.Key, where: q.Key + ".", fail: []jen.Code{jen.Nil(), jen.Nil()}, answer: shared(q)}, f, jen.Id("a").Dot(field(f.Name)))
			}
			g.Return(jen.Id("a"), jen.Id("problems"), jen.Nil())
		}
		sources := offeredSources(q)
		if len(sources) == 0 && !w.requestReadsFlow(q) {
			jf.Commentf("%s validates the form answered for %q%s: problems are for the user to", name, q.Key, siteOf(q))
			jf.Comment("correct; an error is a custom validator that could not check a value.")
			jf.Func().Params(recv).Id(name).Params(ctx, jen.Id("content").Map(jen.String()).Any()).Params(results...).BlockFunc(body)
			break
		}
		// The options a field offers are the flow's, and so is what its
		// validators with context read: the decoder is made for one flow.
		if len(sources) > 0 {
			jf.Commentf("%s returns the validator of the form answered for %q in flow f: a", name, q.Key)
			jf.Comment("choice must be one of the options f offered. Problems are for the user to")
			jf.Comment("correct; an error is a custom validator that could not check a value.")
		} else {
			jf.Commentf("%s returns the validator of the form answered for %q in flow f, which", name, q.Key)
			jf.Comment("its validators with context read. Problems are for the user to correct; an")
			jf.Comment("error is a custom validator that could not check a value.")
		}
		jf.Func().Params(recv).Id(name).Params(jen.Id("f").Op("*").Id(w.n.flow())).
			Func().Params(jen.Qual("context", "Context"), jen.Map(jen.String()).Any()).Params(results...).
			Block(jen.Return(jen.Func().Params(ctx, jen.Id("content").Map(jen.String()).Any()).Params(results...).BlockFunc(func(g *jen.Group) {
				for _, src := range sources {
					g.Id(offeredVar(src)).Op(":=").Add(optionsOf(src))
				}
				body(g)
			})))
	case vocab.Sample:
		jf.Commentf("%s validates the text the client's model returned for %q.", name, q.Key)
		if t := q.Text; t != nil {
			jf.Comment("Problems are for the model to correct; an error is a custom validator that")
			jf.Comment("could not check the text.")
			jf.Func().Params(recv).Id(name).Params(ctx, jen.Id("v").String()).
				Params(jen.Op("*").Qual(pkgMRTR, "Sampled"), jen.Qual(pkgImpl, "Problems"), jen.Error()).
				BlockFunc(func(g *jen.Group) {
					g.Var().Id("problems").Qual(pkgImpl, "Problems")
					guarded(g, hasBuiltins(t) && len(t.Validate) > 0,
						func(b *jen.Group) { w.checks(b, t, q.Key, q.Key) },
						func(b *jen.Group) {
							w.validatorCalls(b, reader{scope: q.Key, fail: []jen.Code{jen.Nil(), jen.Nil()}}, t.Validate, q.Key, jen.Id("v"))
						})
					g.Return(jen.Op("&").Qual(pkgMRTR, "Sampled").Values(jen.Dict{jen.Id("Text"): jen.Id("v")}), jen.Id("problems"), jen.Nil())
				})
			break
		}
		jf.Func().Params(recv).Id(name).Params(ctx, jen.Id("text").String()).
			Params(jen.Op("*").Qual(pkgMRTR, "Sampled"), jen.Qual(pkgImpl, "Problems"), jen.Error()).
			BlockFunc(func(g *jen.Group) {
				g.Var().Id("problems").Qual(pkgImpl, "Problems")
				if q.MaxLength != nil {
					g.If(jen.Id("n").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(jen.Id("text")), jen.Id("n").Op(">").Lit(*q.MaxLength)).Block(
						problemCall("TooLong", jen.Lit(q.Key), jen.Lit(*q.MaxLength), jen.Id("n")))
				}
				g.Return(jen.Op("&").Qual(pkgMRTR, "Sampled").Values(jen.Dict{jen.Id("Text"): jen.Id("text")}), jen.Id("problems"), jen.Nil())
			})
	case vocab.Roots:
		minItems := 0
		if q.MinItems != nil {
			minItems = *q.MinItems
		}
		jf.Commentf("%s validates the roots the client listed for %q.", name, q.Key)
		jf.Func().Params(recv).Id(name).Params(ctx, jen.Id("uris").Index().String()).
			Params(jen.Op("*").Qual(pkgMRTR, "RootList"), jen.Qual(pkgImpl, "Problems")).
			Block(jen.Return(
				jen.Op("&").Qual(pkgMRTR, "RootList").Values(jen.Dict{jen.Id("URIs"): jen.Id("uris")}),
				implX("CheckRoots").Call(jen.Id("uris"), jen.Lit(minItems), jen.Lit(q.MaxItems)),
			))
	}
	jf.Line()
}

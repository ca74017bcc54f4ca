package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// requestFuncs emits the input request builders (elicitation forms, sampling,
// roots, confirmation gates) and the message templates they use.
func (w *workflow) requestFuncs(jf *jen.File) {
	first := func(s *spec.State, q *spec.InputRequest) bool { return w.t.AskersOf(q)[0] == s }
	for _, s := range w.t.States {
		for _, q := range s.Requests {
			switch {
			case w.t.HasSiteForms(q): // each state asks its own form
				w.requestBuilderFunc(jf, s, s.Form(q))
			case first(s, q): // a question is built once, by key
				w.requestBuilderFunc(jf, s, q)
			}
		}
		if s.Confirm != nil {
			w.gateBuilderFunc(jf, s)
		}
		if s.Approval() != nil {
			w.approvalFuncDecl(jf, s)
		}
	}
	for _, s := range w.t.States {
		for _, q := range s.Requests {
			if !first(s, q) {
				continue
			}
			if q.Message != nil {
				w.templateFuncDecl(jf, w.templateFunc(s.Name, q.Key+"Message"), q.Message)
			}
			if q.URL != nil {
				w.urlTemplateFuncDecl(jf, w.templateFunc(s.Name, q.Key+"URL"), q.URL)
			}
			if q.Prompt != nil {
				w.templateFuncDecl(jf, w.templateFunc(s.Name, q.Key+"Prompt"), q.Prompt)
			}
		}
		if s.Confirm != nil {
			w.templateFuncDecl(jf, w.templateFunc(s.Name, "Message"), s.Confirm.Message)
			if s.Confirm.Typed != nil {
				w.templateFuncDecl(jf, w.templateFunc(s.Name, "Typed"), s.Confirm.Typed)
			}
		}
		if !isDefaultKey(s.Idempotency) {
			w.templateFuncDecl(jf, w.templateFunc(s.Name, "OperationID"), s.Idempotency.Key)
		}
		if s.Message != nil {
			w.templateFuncDecl(jf, w.templateFunc(s.Name, "Message"), s.Message)
		}
		for i, m := range s.Messages {
			if m.Text != nil {
				w.templateFuncDecl(jf, w.templateFunc(s.Name, fmt.Sprintf("Message%d", i+1)), m.Text)
			}
		}
		w.contentTemplates(jf, s)
	}
}

func (w *workflow) requestBuilder(q *spec.InputRequest) string {
	return "request" + spec.GoName(q.Key) + siteSuffix(q)
}
func (w *workflow) gateBuilder(s *spec.State) string         { return "gate" + spec.GoName(s.Name) }
func (w *workflow) templateFunc(state, suffix string) string { return w.n.helper(state, suffix) }
func (w *workflow) schemaVar(parts ...string) string         { return w.n.helper(append(parts, "schema")...) }

func (w *workflow) requestBuilderFunc(jf *jen.File, s *spec.State, q *spec.InputRequest) {
	name := w.requestBuilder(q)
	// The question's templates are rendered by the functions of the
	// first state asking it, whichever state's form is built.
	tplState := s.Name
	schemaVar := w.schemaVar(q.Key)
	if q.Site != nil {
		tplState = w.t.AskersOf(q.Site)[0].Name
		schemaVar = w.schemaVar(s.Name, q.Key)
	}
	pending := jen.Dict{jen.Id("Key"): jen.Lit(q.Key), jen.Id("Kind"): requestKind(q.Kind)}
	if q.Optional {
		pending[jen.Id("Optional")] = jen.True()
	}
	withProblems := func(text jen.Code) jen.Code {
		return implX("WithProblems").Call(text, jen.Id("problems"))
	}
	switch q.Kind {
	case vocab.Elicit:
		schema := jen.Id(schemaVar)
		if offers := w.offers(q); len(offers) > 0 {
			jf.Commentf("%s is the form of input request %q%s, but for the options its", schemaVar, q.Key, siteOf(q))
			jf.Comment("dynamic fields offer: the request adds those from the flow's continuation.")
			schema = implX("OfferSchema").Call(append([]jen.Code{schema}, offers...)...)
		} else {
			jf.Commentf("%s is the form of input request %q%s.", schemaVar, q.Key, siteOf(q))
		}
		jf.Var().Id(schemaVar).Op("=").Qual("encoding/json", "RawMessage").Call(jsonLiteral(requestedSchema(q)))
		jf.Line()
		pending[jen.Id("Params")] = jen.Op("&").Qual(pkgMCP, "ElicitParams").Values(jen.Dict{
			jen.Id("Mode"):            jen.Lit("form"),
			jen.Id("Message"):         withProblems(jen.Id(w.templateFunc(tplState, q.Key+"Message")).Call(jen.Id("f"))),
			jen.Id("RequestedSchema"): schema,
		})
	case vocab.Sample:
		params := jen.Dict{
			jen.Id("Messages"): jen.Index().Op("*").Qual(pkgMCP, "SamplingMessage").Values(jen.Values(jen.Dict{
				jen.Id("Role"):    jen.Lit("user"),
				jen.Id("Content"): jen.Op("&").Qual(pkgMCP, "TextContent").Values(jen.Dict{jen.Id("Text"): withProblems(jen.Id(w.templateFunc(tplState, q.Key+"Prompt")).Call(jen.Id("f")))}),
			})),
			jen.Id("MaxTokens"): jen.Lit(q.MaxTokens),
		}
		if q.SystemPrompt != "" {
			params[jen.Id("SystemPrompt")] = jen.Lit(q.SystemPrompt)
		}
		pending[jen.Id("Params")] = jen.Op("&").Qual(pkgMCP, "CreateMessageParams").Values(params)
	case vocab.Roots:
		pending[jen.Id("Params")] = jen.Op("&").Qual(pkgMCP, "ListRootsParams").Values()
	case vocab.ElicitURL:
		// No elicitationId: 2026-07-28 correlates through requestState (the
		// engine adds one for older clients asked over their session).
		pending[jen.Id("Params")] = jen.Op("&").Qual(pkgMCP, "ElicitParams").Values(jen.Dict{
			jen.Id("Mode"):    jen.Lit("url"),
			jen.Id("Message"): withProblems(jen.Id(w.templateFunc(tplState, q.Key+"Message")).Call(jen.Id("f"))),
			jen.Id("URL"):     jen.Id(w.templateFunc(tplState, q.Key+"URL")).Call(jen.Id("f")),
		})
	}
	if q.Site != nil {
		jf.Commentf("%s builds state %s's own form of question %q; problems with a previous answer are added to it.", name, s.Name, q.Key)
	} else if askers := w.t.AskersOf(q); len(askers) > 1 {
		jf.Commentf("%s builds question %q of states %s; problems with a previous answer are added to it.", name, q.Key, stateNames(askers))
	} else {
		jf.Commentf("%s builds input request %q of state %s; problems with a previous answer are added to it.", name, q.Key, s.Name)
	}
	problemsParam := jen.Id("problems").Qual(pkgImpl, "Problems")
	if q.Kind == vocab.Roots {
		problemsParam = jen.Id("_").Qual(pkgImpl, "Problems")
	}
	jf.Func().Params(jen.Id(w.n.program())).Id(name).Params(jen.Id("f").Op("*").Id(w.n.flow()), problemsParam).Qual(pkgImpl, "Pending").Block(
		jen.Return(jen.Qual(pkgImpl, "Pending").Values(pending)),
	)
	jf.Line()
}

// offers are the mrtrimpl.Offer literals of a form's dynamic fields, in
// field order: each field and the options of its continuation list.
func (w *workflow) offers(q *spec.InputRequest) []jen.Code {
	var out []jen.Code
	for _, f := range q.Fields {
		e, multi := f, false
		if f.Type == spec.TypeArray && f.Items != nil {
			e, multi = f.Items, true
		}
		if !e.Dynamic() || e.Source == nil {
			continue
		}
		d := jen.Dict{jen.Id("Field"): jen.Lit(f.Name), jen.Id("Options"): optionsOf(e.Source)}
		if multi {
			d[jen.Id("Multi")] = jen.True()
		}
		out = append(out, jen.Qual(pkgImpl, "Offer").Values(d))
	}
	return out
}

func (w *workflow) gateBuilderFunc(jf *jen.File, s *spec.State) {
	g := s.Confirm
	if g.Typed != nil {
		w.typedGateBuilderFunc(jf, s)
		return
	}
	schema := w.schemaVar(s.Name, "gate")
	jf.Commentf("%s is the yes/no form of confirmation gate %s.", schema, s.Name)
	jf.Var().Id(schema).Op("=").Qual("encoding/json", "RawMessage").Call(jsonLiteral(gateSchema(g)))
	jf.Line()
	jf.Commentf("%s builds the question of confirmation gate %s.", w.gateBuilder(s), s.Name)
	w.gateBuilderBody(jf, s, jen.Id(schema))
}

// gateBuilderBody emits the request builder of gate s, which asks with its
// message (and the problems of the last answer) for the form schema.
func (w *workflow) gateBuilderBody(jf *jen.File, s *spec.State, schema jen.Code) {
	jf.Func().Params(jen.Id(w.n.program())).Id(w.gateBuilder(s)).Params(jen.Id("f").Op("*").Id(w.n.flow()), jen.Id("problems").Qual(pkgImpl, "Problems")).Qual(pkgImpl, "Pending").Block(
		jen.Return(jen.Qual(pkgImpl, "Pending").Values(jen.Dict{
			jen.Id("Key"):  jen.Lit(s.Confirm.Key),
			jen.Id("Kind"): jen.Qual(pkgVocab, "Elicit"),
			jen.Id("Params"): jen.Op("&").Qual(pkgMCP, "ElicitParams").Values(jen.Dict{
				jen.Id("Mode"):            jen.Lit("form"),
				jen.Id("Message"):         implX("WithProblems").Call(jen.Id(w.templateFunc(s.Name, "Message")).Call(jen.Id("f")), jen.Id("problems")),
				jen.Id("RequestedSchema"): schema,
			}),
		})),
	)
	jf.Line()
}

// typedGateBuilderFunc emits the request builder of a typed confirmation:
// its form, one string field titled with the text to type, is built from
// the flow.
func (w *workflow) typedGateBuilderFunc(jf *jen.File, s *spec.State) {
	g := s.Confirm
	jf.Commentf("%s builds the question of typed confirmation %s: the user types %s.", w.gateBuilder(s), s.Name, g.Typed.Raw)
	w.gateBuilderBody(jf, s, implX("TypedSchema").Call(jen.Lit(g.Field), jen.Id(w.templateFunc(s.Name, "Typed")).Call(jen.Id("f"))))
}

// templateFuncDecl emits a function rendering a template from the flow.
func (w *workflow) templateFuncDecl(jf *jen.File, name string, tpl *spec.Template) {
	jf.Commentf("%s renders %q.", name, tpl.Raw)
	w.templateFuncBody(jf, name, tpl, nil)
}

// urlTemplateFuncDecl emits a function rendering the url of a URL-mode
// elicitation: every value is URL-escaped (mrtrimpl.X.URLValue), so none can
// add a path segment, a query parameter or a fragment.
func (w *workflow) urlTemplateFuncDecl(jf *jen.File, name string, tpl *spec.Template) {
	jf.Commentf("%s renders the URL %q, its values escaped.", name, tpl.Raw)
	w.templateFuncBody(jf, name, tpl, func(v *jen.Statement) *jen.Statement { return implX("URLValue").Call(v) })
}

func (w *workflow) templateFuncBody(jf *jen.File, name string, tpl *spec.Template, wrap func(*jen.Statement) *jen.Statement) {
	flowParam := jen.Id("f").Op("*").Id(w.n.flow())
	if len(tpl.Refs()) == 0 {
		jf.Func().Id(name).Params(jen.Id("_").Op("*").Id(w.n.flow())).String().Block(jen.Return(jen.Lit(literalText(tpl))))
		jf.Line()
		return
	}
	if hasSections(tpl) {
		jf.Func().Id(name).Params(flowParam).String().BlockFunc(func(g *jen.Group) { w.sectionedFuncBody(g, tpl) })
		jf.Line()
		return
	}
	type piece struct{ value, guard *jen.Statement }
	var pieces []piece
	conditional := false
	for _, p := range tpl.Parts {
		if p.Ref == nil {
			pieces = append(pieces, piece{value: jen.Lit(p.Literal)})
			continue
		}
		v, guard := w.refValue(p.Ref)
		if wrap != nil {
			v = wrap(v)
		}
		pieces = append(pieces, piece{value: v, guard: guard})
		conditional = conditional || guard != nil
	}
	if !conditional {
		// Every value is there: one concatenation.
		var sum *jen.Statement
		for _, p := range pieces {
			if sum == nil {
				sum = p.value
			} else {
				sum = sum.Op("+").Add(p.value)
			}
		}
		jf.Func().Id(name).Params(flowParam).String().Block(jen.Return(sum))
		jf.Line()
		return
	}
	// Values that may be missing (optional arguments, answers not given
	// yet) are written only when present.
	jf.Func().Id(name).Params(flowParam).String().BlockFunc(func(g *jen.Group) {
		g.Var().Id("b").Qual("strings", "Builder")
		for _, p := range pieces {
			write := jen.Id("b").Dot("WriteString").Call(p.value)
			if p.guard != nil {
				g.If(p.guard).Block(write)
			} else {
				g.Add(write)
			}
		}
		g.Return(jen.Id("b").Dot("String").Call())
	})
	jf.Line()
}

func literalText(tpl *spec.Template) string {
	var s string
	for _, p := range tpl.Parts {
		s += p.Literal
	}
	return s
}

// refValue is the string value of one placeholder, and the condition under
// which it is there (nil: always).
func (w *workflow) refValue(ref *spec.TemplateRef) (value, guard *jen.Statement) {
	f := jen.Id("f")
	if ref.Format != nil {
		return w.formattedRef(ref)
	}
	switch ref.Kind {
	case spec.RefWorkflowID:
		return f.Dot("Call").Dot("WorkflowID"), nil
	case spec.RefArgument:
		a := w.t.Argument(ref.Path[0])
		return fieldValue(a, f.Clone().Dot("Args").Dot(field(a.Name)), optional(a), nil)
	case spec.RefContinuation:
		c := w.t.Continuation.Field(ref.Path[0])
		return fieldValue(c, f.Clone().Dot("Continuation").Dot(field(c.Name)), false, nil)
	case spec.RefTransient:
		c := w.t.Continuation.TransientValue(ref.Path[0]).Field
		return fieldValue(c, f.Clone().Dot("Transient").Dot(field(c.Name)), false, nil)
	case spec.RefFormField:
		q := w.request(ref.Path[0])
		fd := q.Field(ref.Path[1])
		ans := f.Clone().Dot(field(q.Key))
		return fieldValue(fd, ans.Clone().Dot(field(fd.Name)), optional(fd), ans.Clone().Op("!=").Nil())
	case spec.RefSampled:
		ans := f.Clone().Dot(field(ref.Path[0]))
		return ans.Clone().Dot("Text"), ans.Clone().Op("!=").Nil()
	case spec.RefRoots:
		ans := f.Clone().Dot(field(ref.Path[0]))
		return jen.Qual("strings", "Join").Call(ans.Clone().Dot("URIs"), jen.Lit(", ")), ans.Clone().Op("!=").Nil()
	case spec.RefItem:
		return w.itemValue(ref), nil
	}
	panic(fmt.Sprintf("generator: unknown template reference kind %v", ref.Kind))
}

func (w *workflow) request(key string) *spec.InputRequest {
	for _, q := range w.requests() {
		if q.Key == key {
			return q
		}
	}
	return nil
}

// fieldValue is the string value v of field fd and the condition under
// which it is there: guard (if any) and, for an optional value, presence.
func fieldValue(fd *spec.Field, v *jen.Statement, optional bool, guard *jen.Statement) (*jen.Statement, *jen.Statement) {
	v, guard = presentValue(fd, v, optional, guard)
	return valueString(fd, v), guard
}

// presentValue is value v of field fd and the condition under which it is
// there: an optional value (other than a list, nil when absent) is
// dereferenced, once guard (if any) and its presence hold.
func presentValue(fd *spec.Field, v *jen.Statement, optional bool, guard *jen.Statement) (*jen.Statement, *jen.Statement) {
	if optional && fd.Type != spec.TypeArray {
		present := v.Clone().Op("!=").Nil()
		if guard != nil {
			guard = guard.Op("&&").Add(present)
		} else {
			guard = present
		}
		v = jen.Op("*").Add(v.Clone())
	}
	return wire(fd, v), guard // a goType value is shown as its JSON form
}

// valueString is the text of value v of field fd in a message.
func valueString(fd *spec.Field, v *jen.Statement) *jen.Statement {
	s := v
	switch fd.Type {
	case spec.TypeEnum:
		s = jen.String().Call(v)
	case spec.TypeInteger:
		s = jen.Qual("strconv", "FormatInt").Call(v, jen.Lit(10))
	case spec.TypeNumber:
		s = jen.Qual("strconv", "FormatFloat").Call(v, jen.LitRune('f'), jen.Lit(-1), jen.Lit(64))
	case spec.TypeBoolean:
		s = jen.Qual("strconv", "FormatBool").Call(v)
	case spec.TypeArray:
		if fd.Items != nil && fd.Items.Type == spec.TypeOption {
			s = implX("JoinTitles").Call(v) // what the user was shown
		} else {
			s = jen.Qual(pkgImpl, "Join").Call(v)
		}
	}
	return s
}

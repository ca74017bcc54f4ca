package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Content kinds, resources and completions (docs/spec.md): the handler
// methods that give content bytes and completions, the final of a
// terminal state with content items, and the program's Complete.

// contentTypes is the MCP type of each content kind, as generated code
// writes it in mrtrimpl.Content's Type (the values of its constants in
// mrtr/internal/handlertypes, which generated code cannot import).
var contentTypes = map[spec.ContentKind]string{
	spec.ContentImage: "image", spec.ContentAudio: "audio",
	spec.ContentResourceLink: "resource_link", spec.ContentResource: "resource",
}

// stateContent lists the content items of a terminal state: its content
// (tools), contents (resources) or the content of its messages (prompts).
func stateContent(s *spec.State) []*spec.Content {
	items := slices.Clone(s.Content)
	for _, m := range s.Messages {
		if m.Content != nil {
			items = append(items, m.Content)
		}
	}
	return items
}

// hasContent reports whether the terminal state declares content items.
func hasContent(s *spec.State) bool { return len(stateContent(s)) > 0 }

// contentMethods are the handler methods content items and completions
// name (from:), each once, in state order and then by argument.
func (w *workflow) contentMethods(seen map[string]bool) []handlerMethod {
	flowParam := jen.Id("f").Op("*").Id(w.n.flow())
	ctxParam := jen.Id("ctx").Qual("context", "Context")
	var ms []handlerMethod
	for _, s := range w.t.States {
		for _, c := range stateContent(s) {
			if c.From == nil || seen[c.From.Name] {
				continue
			}
			seen[c.From.Name] = true
			m := handlerMethod{name: method(c.From.Name), kind: "content", specName: c.From.Name,
				params: []jen.Code{ctxParam, flowParam}, results: []jen.Code{jen.Index().Byte(), jen.Error()}}
			m.doc = []string{
				fmt.Sprintf("%s gives the bytes of the %s (%s) that state %s returns.", m.name, c.Kind, c.MIMEType, s.Name),
				"It runs when the workflow ends there (a retry may run it again); a replayed round sends the recorded result.",
				"Returning no bytes, or an error, fails the round as a dependency failure (the error goes to the log only).",
			}
			ms = append(ms, m)
		}
	}
	for _, a := range w.t.Arguments {
		if a.Complete == nil || a.Complete.From == nil || seen[a.Complete.From.Name] {
			continue
		}
		seen[a.Complete.From.Name] = true
		m := handlerMethod{name: method(a.Complete.From.Name), kind: "complete", specName: a.Complete.From.Name,
			params:  []jen.Code{ctxParam, jen.Id("value").String(), jen.Id("resolved").Map(jen.String()).String()},
			results: []jen.Code{jen.Index().String(), jen.Error()}}
		m.doc = []string{
			fmt.Sprintf("%s completes argument %s on completion/complete: the values to offer for what the user", m.name, a.Name),
			"typed so far (value), best first; resolved holds the arguments the client already chose.",
			"At most 100 are sent. An error is logged and answered as an internal error.",
		}
		ms = append(ms, m)
	}
	return ms
}

// contentTemplates declares the template functions of a state's content
// items.
func (w *workflow) contentTemplates(jf *jen.File, s *spec.State) {
	for i, c := range stateContent(s) {
		if c.URI != nil {
			w.contentURIFuncDecl(jf, w.templateFunc(s.Name, fmt.Sprintf("Content%dURI", i+1)), c.URI)
		}
		if c.Text != nil {
			w.templateFuncDecl(jf, w.templateFunc(s.Name, fmt.Sprintf("Content%dText", i+1)), c.Text)
		}
	}
}

// contentURIFuncDecl emits a function rendering a content item's uri. Each
// value put between the template's literal parts is escaped
// (mrtrimpl.X.URLValue), so it stays one segment and adds no query or
// fragment; a uri that is one whole value is the caller's URI as given.
// Either way the engine checks the URI before it is sent
// (checkURI in mrtr/uricheck.go).
func (w *workflow) contentURIFuncDecl(jf *jen.File, name string, tpl *spec.Template) {
	if len(tpl.Parts) == 1 && tpl.Parts[0].Ref != nil {
		w.templateFuncDecl(jf, name, tpl)
		return
	}
	jf.Commentf("%s renders the URI %q, its values escaped.", name, tpl.Raw)
	w.templateFuncBody(jf, name, tpl, func(v *jen.Statement) *jen.Statement { return implX("URLValue").Call(v) })
}

// contentValue is the mrtrimpl.Content of item i of state s (a composite
// literal; untyped, as an element of a []mrtrimpl.Content); bytes names
// the variable holding its bytes, when it has a from.
func (w *workflow) contentValue(s *spec.State, i int, c *spec.Content, bytes string, typed bool) jen.Code {
	d := jen.Dict{jen.Id("Type"): jen.Lit(contentTypes[c.Kind])}
	if c.MIMEType != "" {
		d[jen.Id("MIMEType")] = jen.Lit(c.MIMEType)
	}
	if c.URI != nil {
		d[jen.Id("URI")] = jen.Id(w.templateFunc(s.Name, fmt.Sprintf("Content%dURI", i+1))).Call(jen.Id("f"))
	}
	if c.Text != nil {
		d[jen.Id("Text")] = jen.Id(w.templateFunc(s.Name, fmt.Sprintf("Content%dText", i+1))).Call(jen.Id("f"))
	}
	for k, v := range map[string]string{"Name": c.Name, "Title": c.Title, "Description": c.Description} {
		if v != "" {
			d[jen.Id(k)] = jen.Lit(v)
		}
	}
	if c.From != nil {
		d[jen.Id("Data")] = jen.Id(bytes)
		if c.Kind == spec.ContentResource {
			d[jen.Id("Blob")] = jen.True()
		}
	}
	if !typed {
		return jen.Values(d)
	}
	return jen.Qual(pkgImpl, "Content").Values(d)
}

// contentTerminalCase is the case of a terminal state with content items:
// the handler methods give the bytes (a failure fails the round), then the
// final carries the items after the text, or in the prompt's messages.
func (w *workflow) contentTerminalCase(c *jen.Group, s *spec.State) {
	items := stateContent(s)
	vars := map[*spec.Content]string{}
	for i, it := range items {
		if it.From == nil {
			continue
		}
		v := fmt.Sprintf("content%d", i+1)
		vars[it] = v
		what := strings.Join(strings.Fields(fmt.Sprintf("%d (%s %s of state %s)", i+1, it.Kind, it.MIMEType, s.Name)), " ")
		c.List(jen.Id(v), jen.Err()).Op(":=").Add(implX("Bytes")).Call(jen.Id("ctx"), jen.Lit(what),
			jen.Func().Params(jen.Id("ctx").Qual("context", "Context")).Params(jen.Index().Byte(), jen.Error()).Block(
				jen.Return(jen.Id("p").Dot("h").Dot(method(it.From.Name)).Call(jen.Id("ctx"), jen.Id("f")))))
		c.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Qual(pkgImpl, "Step").Values(), jen.Err()))
	}
	index := func(it *spec.Content) int { return slices.Index(items, it) }
	final := jen.Dict{jen.Id("Outcome"): finalOutcome(s.Outcome)}
	switch w.t.Kind {
	case vocab.KindPrompt:
		var msgs []jen.Code
		for i, m := range s.Messages {
			if m.Content != nil {
				msgs = append(msgs, oneLine(
					pair{jen.Id("Role"), jen.Lit(m.Role)},
					pair{jen.Id("Content"), jen.Op("&").Add(w.contentValue(s, index(m.Content), m.Content, vars[m.Content], true))},
				))
				continue
			}
			msgs = append(msgs, oneLine(
				pair{jen.Id("Role"), jen.Lit(m.Role)},
				pair{jen.Id("Text"), jen.Id(w.templateFunc(s.Name, fmt.Sprintf("Message%d", i+1))).Call(jen.Id("f"))},
			))
		}
		final[jen.Id("Messages")] = jen.Index().Qual(pkgMRTR, "PromptMessage").Add(rows(msgs...))
	default:
		if s.Message != nil {
			final[jen.Id("Text")] = jen.Id(w.templateFunc(s.Name, "Message")).Call(jen.Id("f"))
		}
		var cs []jen.Code
		for _, it := range s.Content {
			cs = append(cs, w.contentValue(s, index(it), it, vars[it], false))
		}
		final[jen.Id("Content")] = jen.Index().Qual(pkgImpl, "Content").Add(rows(cs...))
	}
	c.Return(jen.Id("r").Dot("Finish").Call(jen.Qual(pkgMRTR, "Final").Values(final)))
}

// hasCompletions reports whether an argument declares completions.
func (w *workflow) hasCompletions() bool {
	return slices.ContainsFunc(w.t.Arguments, func(a *spec.Field) bool { return a.Complete != nil })
}

// completer emits the program's Complete (mrtrimpl.Completer), when an
// argument declares completions.
func (w *workflow) completer(jf *jen.File) {
	if !w.hasCompletions() {
		return
	}
	jf.Var().Id("_").Qual(pkgImpl, "Completer").Op("=").Id(w.n.program()).Values()
	jf.Line()
	jf.Commentf("Complete completes the arguments of %s %s that declare completions", w.t.Kind, w.t.Name)
	jf.Comment("(completion/complete); others get none.")
	jf.Func().Params(jen.Id("p").Id(w.n.program())).Id("Complete").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.List(jen.Id("argument"), jen.Id("value")).String(), jen.Id("resolved").Map(jen.String()).String(),
	).Params(jen.Index().String(), jen.Error()).Block(
		jen.Switch(jen.Id("argument")).BlockFunc(func(g *jen.Group) {
			for _, a := range w.t.Arguments {
				if a.Complete == nil {
					continue
				}
				if a.Complete.From != nil {
					g.Case(jen.Lit(a.Name)).Block(jen.Return(jen.Id("p").Dot("h").Dot(method(a.Complete.From.Name)).Call(jen.Id("ctx"), jen.Id("value"), jen.Id("resolved"))))
					continue
				}
				g.Case(jen.Lit(a.Name)).Block(jen.Return(implX("CompleteValues").Call(
					jen.Index().String().ValuesFunc(func(vg *jen.Group) {
						for _, v := range a.Complete.Values {
							vg.Lit(v)
						}
					}), jen.Id("value")), jen.Nil()))
			}
		}),
		jen.Return(jen.Index().String().Values(), jen.Nil()),
	)
	jf.Line()
}

// resourceInfo is the descriptor's Resource.
func (w *workflow) resourceInfo() jen.Code {
	r := w.t.Resource
	d := jen.Dict{}
	if r.URI != "" {
		d[jen.Id("URI")] = jen.Lit(r.URI)
	}
	if r.URITemplate != "" {
		d[jen.Id("URITemplate")] = jen.Lit(r.URITemplate)
	}
	if r.MIMEType != "" {
		d[jen.Id("MIMEType")] = jen.Lit(r.MIMEType)
	}
	return jen.Op("&").Qual(pkgImpl, "ResourceInfo").Values(d)
}

// contentText describes a content item in the page's ends table.
func contentText(c *spec.Content) string {
	var b []string
	b = append(b, c.Kind.String())
	if c.MIMEType != "" {
		b = append(b, code(c.MIMEType))
	}
	if c.URI != nil {
		b = append(b, cellCode(c.URI.Raw))
	}
	if c.Text != nil {
		b = append(b, cell(c.Text.Raw))
	}
	if c.From != nil {
		b = append(b, "from "+code(c.From.Name))
	}
	return "[" + strings.Join(b, " ") + "]"
}

package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
)

// Transient values (continuation.transient) are computed by a handler
// method before each render of a template naming them and kept in the
// flow's Transient struct, which no codec reads or writes: they are never
// carried, so they cost the token nothing.

// transientType is the Go struct holding a workflow's transient values.
func (w *workflow) transientType() string { return w.n.base + "Transient" }

// stateTransients lists the transient values the templates of state s
// name, in declaration order (none: the state computes nothing).
func (w *workflow) stateTransients(s *spec.State) []*spec.Transient {
	used := map[string]bool{}
	for _, tpl := range s.Templates() {
		for _, ref := range tpl.Refs() {
			if ref.Kind == spec.RefTransient {
				used[ref.Path[0]] = true
			}
			if ref.Format != nil && ref.Format.ArgRef != nil && ref.Format.ArgRef.Kind == spec.RefTransient {
				used[ref.Format.ArgRef.Path[0]] = true
			}
		}
	}
	var out []*spec.Transient
	for _, v := range w.t.Continuation.Transient {
		if used[v.Name] {
			out = append(out, v)
		}
	}
	return out
}

// transientMethods are the handler methods computing transient values.
func (w *workflow) transientMethods() []handlerMethod {
	flowParam := jen.Id("f").Op("*").Id(w.n.flow())
	ctxParam := jen.Id("ctx").Qual("context", "Context")
	var ms []handlerMethod
	for _, v := range w.t.Continuation.Transient {
		m := handlerMethod{name: method(v.From.Name), kind: "transient", specName: v.Name,
			params: []jen.Code{ctxParam, flowParam}, results: []jen.Code{w.goType(v.Field, false), jen.Error()}}
		m.doc = []string{
			fmt.Sprintf("%s computes transient value %s, which templates show but the continuation never carries.", m.name, v.Name),
			"It runs before each render of a template naming it (the first ask and every re-ask);",
			"an error fails the round as a dependency failure.",
		}
		if len(v.Reads) > 0 {
			var names []string
			for _, r := range v.Reads {
				names = append(names, r.Name())
			}
			m.doc = append(m.doc, fmt.Sprintf("It may read %s (reads: in the spec), which are set wherever it runs.", strings.Join(names, ", ")))
		}
		ms = append(ms, m)
	}
	return ms
}

// transientDecls emits the struct of transient values and the program's
// RenderTransient, which the engine calls before pinning the questions of
// a resumed round and each state's case calls before it renders.
func (w *workflow) transientDecls(jf *jen.File) {
	if len(w.t.Continuation.Transient) == 0 {
		return
	}
	n := w.n
	jf.Commentf("%s holds the transient values of %s: computed before each render, never carried.", w.transientType(), w.t.Name)
	jf.Type().Id(w.transientType()).StructFunc(func(g *jen.Group) {
		for _, v := range w.t.Continuation.Transient {
			g.Commentf("%s is transient value %q, from %s.", field(v.Name), v.Name, method(v.From.Name))
			g.Id(field(v.Name)).Add(w.goType(v.Field, false))
		}
	})
	jf.Line()
	jf.Comment("RenderTransient computes the transient values the templates of state s name, unless")
	jf.Comment("they were computed for s and not rendered since (the engine computes them for the")
	jf.Comment("questions of a resumed round, and its first step renders those).")
	jf.Func().Params(jen.Id("p").Id(n.program())).Id("RenderTransient").
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("f").Op("*").Id(n.flow()), jen.Id("s").Uint16()).Error().
		BlockFunc(func(g *jen.Group) {
			g.If(jen.Id("f").Dot("transientFor").Op("==").Id("s")).Block(jen.Return(jen.Nil()))
			g.Var().Err().Error()
			var cases []jen.Code
			for _, s := range w.t.States {
				vs := w.stateTransients(s)
				if len(vs) == 0 {
					continue
				}
				cases = append(cases, jen.Case(w.stateID(s.Name)).BlockFunc(func(c *jen.Group) {
					for _, v := range vs {
						c.If(
							jen.List(jen.Id("f").Dot("Transient").Dot(field(v.Name)), jen.Err()).Op("=").Id("p").Dot("h").Dot(method(v.From.Name)).Call(jen.Id("ctx"), jen.Id("f")),
							jen.Err().Op("!=").Nil(),
						).Block(jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit(fmt.Sprintf("transient value %s: %s: %%w", v.Name, method(v.From.Name))), jen.Err())))
					}
				}))
			}
			if len(cases) > 0 {
				g.Switch(jen.Id(n.state()).Call(jen.Id("s"))).Block(cases...)
			}
			g.Id("f").Dot("transientFor").Op("=").Id("s")
			g.Return(jen.Nil())
		})
	jf.Line()
}

// transientStep is what a state's case does first when its templates name
// transient values: compute them (or take those the engine computed for
// this render) and mark them used, so a re-ask later in the round
// computes them again.
func (w *workflow) transientStep(c *jen.Group, s *spec.State) {
	if len(w.stateTransients(s)) == 0 {
		return
	}
	c.If(jen.Err().Op(":=").Id("p").Dot("RenderTransient").Call(jen.Id("ctx"), jen.Id("f"), jen.Uint16().Call(w.stateID(s.Name))), jen.Err().Op("!=").Nil()).
		Block(jen.Return(jen.Qual(pkgImpl, "Step").Values(), jen.Err()))
	c.Id("f").Dot("transientFor").Op("=").Lit(0)
}

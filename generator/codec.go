package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// codec emits the continuation codec (continuation fields, then each
// answer with a presence byte, in state order) and the canonical argument
// encoding the requestState is bound to. Field by field, no reflection;
// binenc documents the encoding, and the schema hash sealed with it
// changes whenever this layout does.
func (w *workflow) codec(jf *jen.File) {
	t, n := w.t, w.n
	recv := jen.Id(n.program())
	b := jen.Id("b")

	jf.Comment("AppendArgs appends the canonical encoding of the arguments; requestState is")
	jf.Comment("bound to its digest, so a continuation cannot be replayed with other arguments.")
	jf.Func().Params(recv.Clone()).Id("AppendArgs").Params(jen.Id("b").Index().Byte(), jen.Id("f").Op("*").Id(n.flow())).Index().Byte().BlockFunc(func(g *jen.Group) {
		for _, a := range t.Arguments {
			w.encodeField(g, a, jen.Id("f").Dot("Args").Dot(field(a.Name)), optional(a))
		}
		g.Return(b)
	})
	jf.Line()

	jf.Comment("AppendContinuation appends what the workflow carries between rounds.")
	jf.Func().Params(recv.Clone()).Id("AppendContinuation").Params(jen.Id("b").Index().Byte(), jen.Id("f").Op("*").Id(n.flow())).Index().Byte().BlockFunc(func(g *jen.Group) {
		for _, c := range t.Continuation.Fields {
			w.encodeField(g, c, jen.Id("f").Dot("Continuation").Dot(field(c.Name)), false)
		}
		for _, q := range w.requests() {
			a := jen.Id("f").Dot(field(q.Key))
			g.Id("b").Op("=").Qual(pkgBinenc, "AppendBool").Call(b, a.Clone().Op("!=").Nil())
			g.If(a.Clone().Op("!=").Nil()).BlockFunc(func(g *jen.Group) {
				switch q.Kind {
				case vocab.Elicit:
					for _, f := range q.Fields {
						w.encodeField(g, f, a.Clone().Dot(field(f.Name)), optional(f))
					}
				case vocab.Sample:
					g.Id("b").Op("=").Qual(pkgBinenc, "AppendString").Call(b, a.Clone().Dot("Text"))
				case vocab.Roots:
					g.Id("b").Op("=").Qual(pkgBinenc, "AppendUvarint").Call(b, jen.Uint64().Call(jen.Len(a.Clone().Dot("URIs"))))
					g.For(jen.List(jen.Id("_"), jen.Id("u")).Op(":=").Range().Add(a.Clone().Dot("URIs"))).Block(
						jen.Id("b").Op("=").Qual(pkgBinenc, "AppendString").Call(b, jen.Id("u")),
					)
				}
			})
		}
		g.Return(b)
	})
	jf.Line()

	jf.Comment("LoadContinuation reads what AppendContinuation wrote, all of it and nothing more,")
	jf.Comment("in place of what the flow carried (an effect's replay restores the continuation it left).")
	jf.Func().Params(recv.Clone()).Id("LoadContinuation").Params(jen.Id("f").Op("*").Id(n.flow()), jen.Id("data").Index().Byte()).Error().BlockFunc(func(g *jen.Group) {
		g.Id("r").Op(":=").Qual(pkgBinenc, "NewReader").Call(jen.Id("data"))
		if len(t.Continuation.Fields) > 0 {
			g.Id("f").Dot("Continuation").Op("=").Id(n.continuation()).Values()
		}
		for _, q := range w.requests() {
			g.Id("f").Dot(field(q.Key)).Op("=").Nil()
		}
		for _, c := range t.Continuation.Fields {
			w.decodeField(g, c, jen.Id("f").Dot("Continuation").Dot(field(c.Name)), false)
		}
		for _, q := range w.requests() {
			g.If(jen.Id("r").Dot("Bool").Call()).BlockFunc(func(g *jen.Group) {
				switch q.Kind {
				case vocab.Elicit:
					g.Id("a").Op(":=").Op("&").Id(n.answer(q.Key)).Values()
					for _, f := range q.Fields {
						w.decodeField(g, f, jen.Id("a").Dot(field(f.Name)), optional(f))
					}
				case vocab.Sample:
					g.Id("a").Op(":=").Op("&").Qual(pkgImpl, "Sampled").Values(jen.Dict{jen.Id("Text"): jen.Id("r").Dot("String").Call()})
				case vocab.Roots:
					g.Id("a").Op(":=").Op("&").Qual(pkgImpl, "RootList").Values()
					g.For(jen.List(jen.Id("i"), jen.Id("n")).Op(":=").List(jen.Lit(0), jen.Id("r").Dot("Count").Call()), jen.Id("i").Op("<").Id("n"), jen.Id("i").Op("++")).Block(
						jen.Id("a").Dot("URIs").Op("=").Append(jen.Id("a").Dot("URIs"), jen.Id("r").Dot("String").Call()),
					)
				}
				g.Id("f").Dot(field(q.Key)).Op("=").Id("a")
			})
		}
		g.Return(jen.Id("r").Dot("Done").Call())
	})
	jf.Line()
}

// encodeField appends statements that encode v (a pointer when optional).
func (w *workflow) encodeField(g *jen.Group, f *spec.Field, v *jen.Statement, optional bool) {
	if optional && f.Type != spec.TypeArray {
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendBool").Call(jen.Id("b"), v.Clone().Op("!=").Nil())
		g.If(v.Clone().Op("!=").Nil()).BlockFunc(func(g *jen.Group) {
			w.encodeValue(g, f, jen.Op("*").Add(v.Clone()))
		})
		return
	}
	w.encodeValue(g, f, v)
}

func (w *workflow) encodeValue(g *jen.Group, f *spec.Field, v *jen.Statement) {
	b := jen.Id("b")
	switch f.Type {
	case spec.TypeString:
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendString").Call(b, v)
	case spec.TypeInteger:
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendInt").Call(b, v)
	case spec.TypeNumber:
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendFloat").Call(b, v)
	case spec.TypeBoolean:
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendBool").Call(b, v)
	case spec.TypeEnum:
		if f.Dynamic() {
			// Its values are only known at run time: carried as written.
			g.Id("b").Op("=").Qual(pkgBinenc, "AppendString").Call(b, v)
			return
		}
		e := w.enumOf[f]
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendEnum").Call(b, jen.Id(w.enumValues(e)), v)
	case spec.TypeOption:
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendString").Call(b, v.Clone().Dot("Value"))
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendString").Call(b, v.Clone().Dot("Title"))
	case spec.TypeArray:
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendUvarint").Call(b, jen.Uint64().Call(jen.Len(v.Clone())))
		g.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Add(v)).BlockFunc(func(g *jen.Group) {
			w.encodeValue(g, f.Items, jen.Id("x"))
		})
	}
}

// decodeField appends statements that read into dst (a pointer when optional).
func (w *workflow) decodeField(g *jen.Group, f *spec.Field, dst *jen.Statement, optional bool) {
	if optional && f.Type != spec.TypeArray {
		g.If(jen.Id("r").Dot("Bool").Call()).Block(
			jen.Id("v").Op(":=").Add(w.readValue(f)),
			dst.Clone().Op("=").Op("&").Id("v"),
		)
		return
	}
	if f.Type == spec.TypeArray {
		g.For(jen.List(jen.Id("i"), jen.Id("n")).Op(":=").List(jen.Lit(0), jen.Id("r").Dot("Count").Call()), jen.Id("i").Op("<").Id("n"), jen.Id("i").Op("++")).Block(
			dst.Clone().Op("=").Append(dst.Clone(), w.readValue(f.Items)),
		)
		return
	}
	g.Add(dst).Op("=").Add(w.readValue(f))
}

func (w *workflow) readValue(f *spec.Field) *jen.Statement {
	switch f.Type {
	case spec.TypeString:
		return jen.Id("r").Dot("String").Call()
	case spec.TypeInteger:
		return jen.Id("r").Dot("Int").Call()
	case spec.TypeNumber:
		return jen.Id("r").Dot("Float").Call()
	case spec.TypeBoolean:
		return jen.Id("r").Dot("Bool").Call()
	case spec.TypeEnum:
		if f.Dynamic() {
			return jen.Id("r").Dot("String").Call()
		}
		e := w.enumOf[f]
		return jen.Qual(pkgBinenc, "ReadEnum").Call(jen.Id("r"), jen.Id(w.enumValues(e)))
	case spec.TypeOption:
		// Composite literal elements are evaluated left to right: the value,
		// then the title, as AppendContinuation wrote them.
		// (jen.Dict would sort the keys, reading the title first).
		return jen.Qual(pkgMRTR, "Option").Values(
			jen.Id("Value").Op(":").Id("r").Dot("String").Call(),
			jen.Id("Title").Op(":").Id("r").Dot("String").Call())
	}
	return jen.Nil()
}

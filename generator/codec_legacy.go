package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// legacyCodec emits the positional codec of envelope versions 1 and 2
// (continuation fields, then each answer with a presence byte, in state
// order) and the positional argument encoding their tokens are bound to:
// tokens minted before envelope version 3 keep opening on a build of the
// same spec. The schema hash sealed with them changes whenever this layout
// does (schemaHash); nothing here may change, or those tokens stop opening.
func (w *workflow) legacyCodec(jf *jen.File) {
	t, n := w.t, w.n
	recv := jen.Id(n.program())
	b := jen.Id("b")

	jf.Comment("AppendArgsV2 appends the positional encoding of the arguments that tokens of")
	jf.Comment("envelope versions 1 and 2 are bound to.")
	jf.Func().Params(recv.Clone()).Id("AppendArgsV2").Params(jen.Id("b").Index().Byte(), jen.Id("f").Op("*").Id(n.flow())).Index().Byte().BlockFunc(func(g *jen.Group) {
		for _, a := range t.Arguments {
			w.legacyEncodeField(g, a, jen.Id("f").Dot("Args").Dot(field(a.Name)), optional(a))
		}
		g.Return(b)
	})
	jf.Line()

	jf.Comment("LoadContinuationV2 reads the positional continuation of tokens of envelope versions")
	jf.Comment("1 and 2 (and of effect records of the builds that minted them), all of it and")
	jf.Comment("nothing more, in place of what the flow carried.")
	jf.Func().Params(recv.Clone()).Id("LoadContinuationV2").Params(jen.Id("f").Op("*").Id(n.flow()), jen.Id("data").Index().Byte()).Error().BlockFunc(func(g *jen.Group) {
		g.Id("r").Op(":=").Qual(pkgBinenc, "NewReader").Call(jen.Id("data"))
		if len(t.Continuation.Fields) > 0 {
			g.Id("f").Dot("Continuation").Op("=").Id(n.continuation()).Values()
		}
		for _, q := range w.requests() {
			g.Id("f").Dot(field(q.Key)).Op("=").Nil()
		}
		for _, c := range t.Continuation.Fields {
			w.legacyDecodeField(g, c, jen.Id("f").Dot("Continuation").Dot(field(c.Name)), false)
		}
		for _, q := range w.requests() {
			g.If(jen.Id("r").Dot("Bool").Call()).BlockFunc(func(g *jen.Group) {
				switch q.Kind {
				case vocab.Elicit:
					g.Id("a").Op(":=").Op("&").Id(n.answer(q.Key)).Values()
					for _, f := range q.Fields {
						w.legacyDecodeField(g, f, jen.Id("a").Dot(field(f.Name)), optional(f))
					}
				case vocab.Sample:
					g.Id("a").Op(":=").Op("&").Qual(pkgMRTR, "Sampled").Values(jen.Dict{jen.Id("Text"): jen.Id("r").Dot("String").Call()})
				case vocab.ElicitURL:
					g.Id("a").Op(":=").Op("&").Qual(pkgMRTR, "URLStep").Values()
				case vocab.Roots:
					g.Id("a").Op(":=").Op("&").Qual(pkgMRTR, "RootList").Values()
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

// legacyEncodeField appends statements that encode v (a pointer when optional).
func (w *workflow) legacyEncodeField(g *jen.Group, f *spec.Field, v *jen.Statement, optional bool) {
	if optional && f.Type != spec.TypeArray {
		g.Id("b").Op("=").Qual(pkgBinenc, "AppendBool").Call(jen.Id("b"), v.Clone().Op("!=").Nil())
		g.If(v.Clone().Op("!=").Nil()).BlockFunc(func(g *jen.Group) {
			w.legacyEncodeValue(g, f, jen.Op("*").Add(v.Clone()))
		})
		return
	}
	w.legacyEncodeValue(g, f, v)
}

func (w *workflow) legacyEncodeValue(g *jen.Group, f *spec.Field, v *jen.Statement) {
	b := jen.Id("b")
	v = wire(f, v) // a goType value is carried as its JSON form
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
			w.legacyEncodeValue(g, f.Items, jen.Id("x"))
		})
	}
}

// legacyDecodeField appends statements that read into dst (a pointer when optional).
func (w *workflow) legacyDecodeField(g *jen.Group, f *spec.Field, dst *jen.Statement, optional bool) {
	if optional && f.Type != spec.TypeArray {
		g.If(jen.Id("r").Dot("Bool").Call()).Block(
			jen.Id("v").Op(":=").Add(w.legacyReadValue(f)),
			dst.Clone().Op("=").Op("&").Id("v"),
		)
		return
	}
	if f.Type == spec.TypeArray {
		g.For(jen.List(jen.Id("i"), jen.Id("n")).Op(":=").List(jen.Lit(0), jen.Id("r").Dot("Count").Call()), jen.Id("i").Op("<").Id("n"), jen.Id("i").Op("++")).Block(
			dst.Clone().Op("=").Append(dst.Clone(), w.legacyReadValue(f.Items)),
		)
		return
	}
	g.Add(dst).Op("=").Add(w.legacyReadValue(f))
}

func (w *workflow) legacyReadValue(f *spec.Field) *jen.Statement {
	if f.GoType != nil {
		plain := *f
		plain.GoType = nil
		return jen.Qual(pkgJSONForm, "ReadV2").Types(userType(f)).Call(jen.Id("r"), w.legacyReadValue(&plain))
	}
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
		// then the title, as they were written.
		return jen.Qual(pkgMRTR, "Option").Values(
			jen.Id("Value").Op(":").Id("r").Dot("String").Call(),
			jen.Id("Title").Op(":").Id("r").Dot("String").Call())
	}
	return jen.Nil()
}

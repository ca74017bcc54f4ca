package generator

import (
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// codec emits the continuation codec of envelope version 3 and the
// canonical argument encoding requestState is bound to, both as tagged
// entries (binenc: key | kind | length | bytes, the key a hash of the
// value's name). Two builds of a changed spec read each other's bytes:
// unknown keys are skipped, missing ones left absent, and a value whose
// kind changed, an enum value this build lacks or a gate passed under
// another question refuse the continuation (docs/evolution.md). Field by
// field, no reflection. The positional codec of earlier tokens is
// legacyCodec.
//
// A continuation is three groups, each left out when empty:
//
//	continuation  the continuation fields that are set
//	answers       per request key: an elicitation's form fields (a group),
//	              a sampled text (a string), roots (a list of strings)
//	gates         per confirmation state passed: the digest of its question
//	refusals      per check state that asks again, and per ask bounding
//	              its validators with context: the answers it refused,
//	              when there were any
func (w *workflow) codec(jf *jen.File) {
	w.argsCodec(jf)
	w.appendContinuation(jf)
	w.loadContinuation(jf)
	w.legacyCodec(jf)
}

// The keys of the top-level groups of a continuation.
const (
	groupContinuation = "continuation"
	groupAnswers      = "answers"
	groupGates        = "gates"
	groupRefusals     = "refusals"
)

// fieldKey is spec.FieldKey: the key of a tagged entry.
func fieldKey(name string) uint32 { return spec.FieldKey(name) }

// keyLit is a key as generated code writes it, an untyped hex constant.
func keyLit(name string) *jen.Statement { return jen.Id(fmt.Sprintf("0x%08x", fieldKey(name))) }

// gates are the confirmation states of the workflow, in flow order.
func (w *workflow) gates() []*spec.State {
	var out []*spec.State
	for _, s := range w.t.States {
		if s.Confirm != nil {
			out = append(out, s)
		}
	}
	return out
}

// passedField is the flow's unexported field that records that gate s was
// passed (confirmed), so the continuation carries what it confirmed.
func passedField(s *spec.State) string { return "passed" + spec.GoName(s.Name) }

// gateDigestConst names the digest of gate s's question.
func (w *workflow) gateDigestConst(s *spec.State) string {
	return w.n.helper(s.Name, "gate", "digest")
}

// gateDigest identifies what gate s confirms: its request key, its field
// and its message template (the text and the values it shows), and an
// approval gate's policy. A
// continuation that passed the gate carries it; a build whose gate asks
// another question refuses that continuation (gate_changed).
func gateDigest(s *spec.State) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "mrtrgen/gate/v1\x00%s\x00%s\x00", s.Confirm.Key, s.Confirm.Field)
	if s.Confirm.Message != nil {
		h.Write([]byte(s.Confirm.Message.Raw))
	}
	if g := s.Confirm; g.Typed != nil {
		// A typed confirmation confirms what was typed, too.
		fmt.Fprintf(h, "\x00typed\x00%s\x00%d", g.Typed.Raw, g.MaxAttempts)
	}
	// An approval approves under its policy, too.
	h.Write([]byte(approvalDigest(s)))
	return h.Sum64()
}

// argsCodec emits AppendArgs: the arguments in name order, a required one
// always, an optional one only when it was sent, one with a default only
// when it differs from it. So adding an optional argument (or one with a
// default) to the spec keeps the digest of every call that does not use
// it.
func (w *workflow) argsCodec(jf *jen.File) {
	n := w.n
	jf.Comment("AppendArgs appends the canonical encoding of the arguments (tagged entries in name")
	jf.Comment("order; an absent optional argument writes nothing): requestState is bound to its")
	jf.Comment("digest, so a continuation cannot be replayed with other arguments.")
	jf.Func().Params(jen.Id(n.program())).Id("AppendArgs").Params(jen.Id("b").Index().Byte(), jen.Id("f").Op("*").Id(n.flow())).Index().Byte().BlockFunc(func(g *jen.Group) {
		for _, a := range w.t.Arguments {
			v := jen.Id("f").Dot("Args").Dot(field(a.Name))
			switch {
			case a.Required:
				g.Id("b").Op("=").Add(w.appendEntry(a, a.Name, v))
			case optional(a):
				w.appendIfSet(g, a, a.Name, v, true)
			default:
				g.If(w.notDefault(a, v)).Block(jen.Id("b").Op("=").Add(w.appendEntry(a, a.Name, v)))
			}
		}
		g.Return(jen.Id("b"))
	})
	jf.Line()
}

// notDefault is the condition that argument a, which has a default, holds
// another value.
func (w *workflow) notDefault(a *spec.Field, v *jen.Statement) *jen.Statement {
	if a.Type == spec.TypeArray {
		return jen.Op("!").Qual("slices", "Equal").Call(v.Clone(), w.defaultLiteral(a))
	}
	return v.Clone().Op("!=").Add(w.defaultLiteral(a))
}

// appendIfSet appends the entry of value v of field f when it is set: a
// non-nil pointer (ptr, an optional form field or argument), a non-empty
// list, a value other than its zero value. An absent value is not written.
func (w *workflow) appendIfSet(g *jen.Group, f *spec.Field, name string, v *jen.Statement, ptr bool) {
	if f.GoType != nil && !ptr {
		// Set when its JSON form is not that form's zero value.
		plain := *f
		plain.GoType = nil
		x := jen.Id("x").Op(":=").Add(wire(f, v))
		set := jen.Id("x").Op("!=").Add(zeroOf(f))
		if f.Type == spec.TypeBoolean {
			set = jen.Id("x")
		}
		g.If(x, set).Block(jen.Id("b").Op("=").Add(w.appendEntry(&plain, name, jen.Id("x"))))
		return
	}
	switch {
	case f.Type == spec.TypeArray:
		g.If(jen.Len(v.Clone()).Op(">").Lit(0)).Block(jen.Id("b").Op("=").Add(w.appendEntry(f, name, v)))
	case ptr:
		g.If(v.Clone().Op("!=").Nil()).Block(jen.Id("b").Op("=").Add(w.appendEntry(f, name, jen.Op("*").Add(v))))
	case f.Type == spec.TypeBoolean:
		g.If(v.Clone()).Block(jen.Id("b").Op("=").Add(w.appendEntry(f, name, v)))
	default:
		g.If(v.Clone().Op("!=").Add(zeroOf(f))).Block(jen.Id("b").Op("=").Add(w.appendEntry(f, name, v)))
	}
}

// appendEntry is the call that appends value v of field f, named name, to b.
func (w *workflow) appendEntry(f *spec.Field, name string, v jen.Code) *jen.Statement {
	key := keyLit(name)
	if f.GoType != nil {
		v = wire(f, jen.Add(v)) // a goType value is carried as its JSON form
	}
	call := func(fn string) *jen.Statement {
		return jen.Qual(pkgBinenc, fn).Call(jen.Id("b"), key, v)
	}
	switch f.Type {
	case spec.TypeBoolean:
		return call("AppendBoolField")
	case spec.TypeInteger:
		return call("AppendIntField")
	case spec.TypeNumber:
		return call("AppendFloatField")
	case spec.TypeEnum:
		return call("AppendEnumField") // an offered (dynamic) value too: a string
	case spec.TypeArray:
		switch f.Items.Type {
		case spec.TypeOption:
			return jen.Qual(pkgBinenc, "AppendOptionList").Call(jen.Id("b"), key, jen.Len(v),
				jen.Func().Params(jen.Id("i").Int()).Params(jen.String(), jen.String()).Block(
					jen.Return(jen.Add(v).Index(jen.Id("i")).Dot("Value"), jen.Add(v).Index(jen.Id("i")).Dot("Title"))))
		case spec.TypeBoolean:
			return call("AppendBoolList")
		case spec.TypeInteger:
			return call("AppendIntList")
		case spec.TypeNumber:
			return call("AppendFloatList")
		case spec.TypeEnum:
			return call("AppendEnumList")
		}
		return call("AppendStringList")
	}
	return call("AppendStringField")
}

// readEntry is the expression that reads the current entry of reader r (a
// *binenc.Fields, or a binenc.Fields variable when value) as a value of
// field f; label names it in errors ("memo.note").
func (w *workflow) readEntry(r string, value bool, f *spec.Field, label string) *jen.Statement {
	rd := jen.Id(r)
	ptr := jen.Id(r)
	if value {
		ptr = jen.Op("&").Id(r)
	}
	switch f.Type {
	case spec.TypeBoolean:
		return rd.Dot("Bool").Call(jen.Lit(label))
	case spec.TypeInteger:
		return rd.Dot("Int").Call(jen.Lit(label))
	case spec.TypeNumber:
		return rd.Dot("Float").Call(jen.Lit(label))
	case spec.TypeEnum:
		if f.Dynamic() {
			return rd.Dot("OfferedField").Call(jen.Lit(label)) // checked against the options carried
		}
		return jen.Qual(pkgBinenc, "EnumField").Call(ptr, jen.Lit(label), jen.Id(w.enumValues(w.enumOf[f])))
	case spec.TypeArray:
		switch f.Items.Type {
		case spec.TypeOption:
			return jen.Qual(pkgBinenc, "OptionList").Call(ptr, jen.Lit(label),
				jen.Func().Params(jen.Id("value"), jen.Id("title").String()).Qual(pkgMRTR, "Option").Block(
					jen.Return(jen.Qual(pkgMRTR, "Option").Values(jen.Id("Value").Op(":").Id("value"), jen.Id("Title").Op(":").Id("title")))))
		case spec.TypeBoolean:
			return rd.Dot("Bools").Call(jen.Lit(label))
		case spec.TypeInteger:
			return rd.Dot("Ints").Call(jen.Lit(label))
		case spec.TypeNumber:
			return rd.Dot("Floats").Call(jen.Lit(label))
		case spec.TypeEnum:
			if f.Items.Dynamic() {
				return rd.Dot("OfferedList").Call(jen.Lit(label))
			}
			return jen.Qual(pkgBinenc, "EnumList").Call(ptr, jen.Lit(label), jen.Id(w.enumValues(w.enumOf[f.Items])))
		}
		return rd.Dot("Strings").Call(jen.Lit(label))
	}
	return rd.Dot("String").Call(jen.Lit(label))
}

// readFields emits `for r.Next() { switch r.Key() { ... } }` over fields
// fs into dst (dst.X for field X); value says r is a binenc.Fields
// variable (not a pointer); ptr says whether optional fields are pointers
// (form fields) or values (continuation fields); prefix labels errors.
func (w *workflow) readFields(g *jen.Group, r string, value bool, fs []*spec.Field, dst *jen.Statement, ptr bool, prefix string) {
	g.For(jen.Id(r).Dot("Next").Call()).Block(
		jen.Switch(jen.Id(r).Dot("Key").Call()).BlockFunc(func(sw *jen.Group) {
			for _, f := range fs {
				into := dst.Clone().Dot(field(f.Name))
				read := w.readEntry(r, value, f, prefix+f.Name)
				if f.GoType != nil {
					rp := jen.Id(r)
					if value {
						rp = jen.Op("&").Id(r)
					}
					read = jen.Qual(pkgJSONForm, "Read").Types(userType(f)).Call(rp, jen.Lit(prefix+f.Name), read)
				}
				if ptr && optional(f) && f.Type != spec.TypeArray {
					sw.Case(keyLit(f.Name)).Block(
						jen.Comment(f.Name),
						jen.Id("v").Op(":=").Add(read),
						into.Op("=").Op("&").Id("v"),
					)
					continue
				}
				sw.Case(keyLit(f.Name)).Block(jen.Comment(f.Name), into.Op("=").Add(read))
			}
		}),
	)
}

// programMethod starts a method of the program type, its receiver p.
func (w *workflow) programMethod(jf *jen.File, name string) *jen.Statement {
	return jf.Func().Params(jen.Id("p").Id(w.n.program())).Id(name)
}

var bytesType = jen.Index().Byte()

// appendContinuation emits AppendContinuation and its helpers: the
// appender of each form's answer and the digest of each gate.
func (w *workflow) appendContinuation(jf *jen.File) {
	flow := jen.Id("f").Op("*").Id(w.n.flow())
	reqs, gates := w.requests(), w.gates()
	jf.Comment("AppendContinuation appends what the workflow carries between rounds, as tagged")
	jf.Comment("entries: the continuation fields that are set, the answers given, the gates passed.")
	w.programMethod(jf, "AppendContinuation").Params(jen.Id("b").Add(bytesType), flow.Clone()).Add(bytesType).BlockFunc(func(g *jen.Group) {
		w.appendGroups(g, reqs, gates)
		g.Return(jen.Id("b"))
	})
	jf.Line()
	w.answerAppenders(jf, reqs)
	w.gateDigests(jf, gates)
}

// appendGroups appends the groups of a continuation, each only when the
// workflow has something to put in it: continuation fields, answers,
// gates passed, refusals counted.
func (w *workflow) appendGroups(g *jen.Group, reqs []*spec.InputRequest, gates []*spec.State) {
	t := w.t
	if len(t.Continuation.Fields)+len(reqs)+len(gates)+len(w.refusalStates()) > 0 {
		g.Var().Id("m").Int()
	}
	group := func(name string, body func(*jen.Group)) {
		g.List(jen.Id("b"), jen.Id("m")).Op("=").Qual(pkgBinenc, "BeginGroup").Call(jen.Id("b"), keyLit(name))
		body(g)
		g.Id("b").Op("=").Qual(pkgBinenc, "EndGroupOmitEmpty").Call(jen.Id("b"), jen.Id("m"))
	}
	if len(t.Continuation.Fields) > 0 {
		group(groupContinuation, func(g *jen.Group) {
			for _, c := range t.Continuation.Fields {
				w.appendIfSet(g, c, c.Name, jen.Id("f").Dot("Continuation").Dot(field(c.Name)), false)
			}
		})
	}
	if len(reqs) > 0 {
		group(groupAnswers, func(g *jen.Group) {
			for _, q := range reqs {
				a := jen.Id("f").Dot(field(q.Key))
				g.If(a.Clone().Op("!=").Nil()).Block(jen.Id("b").Op("=").Add(w.appendAnswer(q, a)))
			}
		})
	}
	if len(gates) > 0 {
		group(groupGates, func(g *jen.Group) {
			for _, s := range gates {
				g.If(jen.Id("f").Dot(passedField(s))).Block(
					jen.Id("b").Op("=").Qual(pkgBinenc, "AppendIntField").Call(jen.Id("b"), keyLit(s.Name), jen.Int64().Call(jen.Id(w.gateDigestConst(s)))))
			}
		})
	}
	if states := w.refusalStates(); len(states) > 0 {
		group(groupRefusals, func(g *jen.Group) {
			for _, s := range states {
				count := jen.Id("f").Dot(refusals(s))
				g.If(count.Clone().Op(">").Lit(0)).Block(
					jen.Id("b").Op("=").Qual(pkgBinenc, "AppendIntField").Call(jen.Id("b"), keyLit(s.Name), jen.Int64().Call(count.Clone())))
			}
		})
	}
}

// appendAnswer is the call that appends answer a to request q to b: a
// sample's text, a roots list, that a URL was visited, or a form's group.
func (w *workflow) appendAnswer(q *spec.InputRequest, a *jen.Statement) jen.Code {
	switch q.Kind {
	case vocab.Sample:
		return jen.Qual(pkgBinenc, "AppendStringField").Call(jen.Id("b"), keyLit(q.Key), a.Clone().Dot("Text"))
	case vocab.Roots:
		return jen.Qual(pkgBinenc, "AppendStringList").Call(jen.Id("b"), keyLit(q.Key), a.Clone().Dot("URIs"))
	case vocab.ElicitURL:
		return jen.Qual(pkgBinenc, "AppendBoolField").Call(jen.Id("b"), keyLit(q.Key), jen.True())
	default:
		return jen.Id("p").Dot(w.answerAppender(q)).Call(jen.Id("b"), a.Clone())
	}
}

// answerAppenders emits the appender of each form's answer.
func (w *workflow) answerAppenders(jf *jen.File, reqs []*spec.InputRequest) {
	for _, q := range reqs {
		if q.Kind != vocab.Elicit {
			continue
		}
		jf.Commentf("%s appends the answer to %q: a group of its form fields.", w.answerAppender(q), q.Key)
		jf.Func().Params(jen.Id(w.n.program())).Id(w.answerAppender(q)).Params(jen.Id("b").Add(bytesType), jen.Id("a").Op("*").Id(w.n.answer(q.Key))).Add(bytesType).BlockFunc(func(g *jen.Group) {
			g.List(jen.Id("b"), jen.Id("m")).Op(":=").Qual(pkgBinenc, "BeginGroup").Call(jen.Id("b"), keyLit(q.Key))
			for _, f := range q.Fields {
				w.appendIfSet(g, f, f.Name, jen.Id("a").Dot(field(f.Name)), optional(f))
			}
			g.Return(jen.Qual(pkgBinenc, "EndGroup").Call(jen.Id("b"), jen.Id("m")))
		})
		jf.Line()
	}
}

// gateDigests emits the digest constant of each gate.
func (w *workflow) gateDigests(jf *jen.File, gates []*spec.State) {
	for _, s := range gates {
		jf.Commentf("%s identifies what gate %s confirms (its message and form); a continuation", w.gateDigestConst(s), s.Name)
		jf.Comment("that passed it carries it, and a build whose gate asks another question refuses it.")
		jf.Const().Id(w.gateDigestConst(s)).Int64().Op("=").Id(strconv.FormatInt(int64(gateDigest(s)), 10))
		jf.Line()
	}
}

func (w *workflow) answerAppender(q *spec.InputRequest) string {
	return "append" + spec.GoName(q.Key) + "Answer"
}
func (w *workflow) answerReader(q *spec.InputRequest) string {
	return "read" + spec.GoName(q.Key) + "Answer"
}

// loadContinuation emits LoadContinuation and its helpers.
func (w *workflow) loadContinuation(jf *jen.File) {
	t, n := w.t, w.n
	reqs, gates := w.requests(), w.gates()
	jf.Comment("LoadContinuation reads what AppendContinuation wrote, this build's or another build's")
	jf.Comment("of the spec (docs/evolution.md), in place of what the flow carried (an effect's replay")
	jf.Comment("restores the continuation it left): unknown entries are skipped, missing ones left absent.")
	w.programMethod(jf, "LoadContinuation").Params(jen.Id("f").Op("*").Id(n.flow()), jen.Id("data").Add(bytesType)).Error().BlockFunc(func(g *jen.Group) {
		w.resetFlow(g)
		g.Id("r").Op(":=").Qual(pkgBinenc, "NewFields").Call(jen.Id("data"))
		g.For(jen.Id("r").Dot("Next").Call()).Block(jen.Switch(jen.Id("r").Dot("Key").Call()).BlockFunc(func(sw *jen.Group) {
			if len(t.Continuation.Fields) > 0 {
				sw.Case(keyLit(groupContinuation)).BlockFunc(func(c *jen.Group) {
					c.Comment(groupContinuation)
					c.Id("c").Op(":=").Id("r").Dot("Group").Call(jen.Lit(groupContinuation))
					w.readFields(c, "c", true, t.Continuation.Fields, jen.Id("f").Dot("Continuation"), false, "")
				})
			}
			if len(reqs) > 0 {
				sw.Case(keyLit(groupAnswers)).Block(
					jen.Comment(groupAnswers),
					jen.Id("a").Op(":=").Id("r").Dot("Group").Call(jen.Lit(groupAnswers)),
					jen.Id("p").Dot("readAnswers").Call(jen.Id("f"), jen.Op("&").Id("a")))
			}
			if len(gates) > 0 {
				sw.Case(keyLit(groupGates)).Block(
					jen.Comment(groupGates),
					jen.Id("g").Op(":=").Id("r").Dot("Group").Call(jen.Lit(groupGates)),
					jen.If(jen.Err().Op(":=").Id("p").Dot("readGates").Call(jen.Id("f"), jen.Op("&").Id("g")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
			}
			if states := w.refusalStates(); len(states) > 0 {
				sw.Case(keyLit(groupRefusals)).BlockFunc(func(c *jen.Group) {
					c.Comment(groupRefusals + ": a count this build has no check for is skipped")
					c.Id("n").Op(":=").Id("r").Dot("Group").Call(jen.Lit(groupRefusals))
					c.For(jen.Id("n").Dot("Next").Call()).Block(jen.Switch(jen.Id("n").Dot("Key").Call()).BlockFunc(func(sw *jen.Group) {
						for _, s := range states {
							sw.Case(keyLit(s.Name)).Block(
								jen.Id("f").Dot(refusals(s)).Op("=").Uint8().Call(jen.Min(jen.Id("n").Dot("Int").Call(jen.Lit(groupRefusals+"."+s.Name)), jen.Lit(s.RefusalLimit()))))
						}
					}))
				})
			}
		}))
		g.Return(jen.Id("r").Dot("Err").Call())
	})
	jf.Line()
	if len(reqs) > 0 {
		w.readAnswers(jf)
	}
	if len(gates) > 0 {
		w.readGates(jf)
	}
}

// resetFlow emits the statements that empty what LoadContinuation fills.
func (w *workflow) resetFlow(g *jen.Group) {
	if len(w.t.Continuation.Fields) > 0 {
		g.Id("f").Dot("Continuation").Op("=").Id(w.n.continuation()).Values()
	}
	for _, q := range w.requests() {
		g.Id("f").Dot(field(q.Key)).Op("=").Nil()
	}
	for _, s := range w.gates() {
		g.Id("f").Dot(passedField(s)).Op("=").False()
	}
	for _, s := range w.refusalStates() {
		g.Id("f").Dot(refusals(s)).Op("=").Lit(0)
	}
}

func (w *workflow) readAnswers(jf *jen.File) {
	n := w.n
	reqs := w.requests()
	jf.Comment("readAnswers reads the answers group: per request key, its answer.")
	jf.Func().Params(jen.Id("p").Id(n.program())).Id("readAnswers").Params(jen.Id("f").Op("*").Id(n.flow()), jen.Id("r").Op("*").Qual(pkgBinenc, "Fields")).Block(
		jen.For(jen.Id("r").Dot("Next").Call()).Block(jen.Switch(jen.Id("r").Dot("Key").Call()).BlockFunc(func(sw *jen.Group) {
			for _, q := range reqs {
				into := jen.Id("f").Dot(field(q.Key))
				switch q.Kind {
				case vocab.Sample:
					sw.Case(keyLit(q.Key)).Block(jen.Comment(q.Key),
						into.Op("=").Op("&").Qual(pkgMRTR, "Sampled").Values(jen.Dict{jen.Id("Text"): jen.Id("r").Dot("String").Call(jen.Lit(q.Key))}))
				case vocab.Roots:
					sw.Case(keyLit(q.Key)).Block(jen.Comment(q.Key),
						into.Op("=").Op("&").Qual(pkgMRTR, "RootList").Values(jen.Dict{jen.Id("URIs"): jen.Id("r").Dot("Strings").Call(jen.Lit(q.Key))}))
				case vocab.ElicitURL:
					sw.Case(keyLit(q.Key)).Block(jen.Comment(q.Key+": the user accepted opening the URL"),
						jen.If(jen.Id("r").Dot("Bool").Call(jen.Lit(q.Key))).Block(into.Op("=").Op("&").Qual(pkgMRTR, "URLStep").Values()))
				default:
					sw.Case(keyLit(q.Key)).Block(jen.Comment(q.Key),
						jen.Id("g").Op(":=").Id("r").Dot("Group").Call(jen.Lit(q.Key)),
						into.Op("=").Id("p").Dot(w.answerReader(q)).Call(jen.Op("&").Id("g")))
				}
			}
		})),
	)
	jf.Line()
	for _, q := range reqs {
		if q.Kind != vocab.Elicit {
			continue
		}
		jf.Commentf("%s reads the answer to %q, a group of its form fields.", w.answerReader(q), q.Key)
		jf.Func().Params(jen.Id(n.program())).Id(w.answerReader(q)).Params(jen.Id("r").Op("*").Qual(pkgBinenc, "Fields")).Op("*").Id(n.answer(q.Key)).BlockFunc(func(g *jen.Group) {
			g.Id("a").Op(":=").Op("&").Id(n.answer(q.Key)).Values()
			w.readFields(g, "r", false, q.Fields, jen.Id("a"), true, q.Key+".")
			g.Return(jen.Id("a"))
		})
		jf.Line()
	}
}

func (w *workflow) readGates(jf *jen.File) {
	n := w.n
	jf.Comment("readGates reads the gates passed; one whose question is not this build's refuses the")
	jf.Comment("continuation: what the user confirmed is not what this build asks.")
	jf.Func().Params(jen.Id(n.program())).Id("readGates").Params(jen.Id("f").Op("*").Id(n.flow()), jen.Id("r").Op("*").Qual(pkgBinenc, "Fields")).Error().Block(
		jen.For(jen.Id("r").Dot("Next").Call()).Block(jen.Switch(jen.Id("r").Dot("Key").Call()).BlockFunc(func(sw *jen.Group) {
			for _, s := range w.gates() {
				sw.Case(keyLit(s.Name)).Block(
					jen.Comment(s.Name),
					jen.If(jen.Id("r").Dot("Int").Call(jen.Lit(groupGates+"."+s.Name)).Op("!=").Id(w.gateDigestConst(s)).Op("&&").Id("r").Dot("Err").Call().Op("==").Nil()).Block(
						jen.Return(implX("GateChanged").Call(jen.Lit(s.Name)))),
					jen.Id("f").Dot(passedField(s)).Op("=").True(),
				)
			}
		})),
		jen.Return(jen.Nil()),
	)
	jf.Line()
}

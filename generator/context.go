package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Validators with context (reads:): the generated method receives what
// the validator reads as a typed struct, <Tool><Validator>Reads, built
// from the flow when the answer arrives. What it returns follows the
// convention of every validator: mrtr.Invalid is shown to the user and the
// question is asked again (counted: the ask's maxAttempts bounds them, the
// last refusal goes to onExhausted); any other error is a dependency
// failure, logged and never shown.

// readsType is the struct a validator with context receives.
func (w *workflow) readsType(v *spec.Validator) string {
	return w.n.base + spec.GoName(v.Name) + "Reads"
}

// readsFunc is the program method building it from the flow.
func readsFunc(v *spec.Validator) string { return "reads" + spec.GoName(v.Name) }

// readFieldName is the Go name of one read in the struct: "ticket.id" is
// TicketID.
func readFieldName(ref spec.ValueRef) string {
	var b strings.Builder
	for _, p := range ref.Path {
		b.WriteString(spec.GoName(p))
	}
	return b.String()
}

// flowValidators are the validators with context the workflow uses, by
// name.
func (w *workflow) flowValidators() []*spec.Validator {
	var out []*spec.Validator
	for _, v := range w.usedValidators() {
		if v.InContext() && w.t.ReadsOf(v.Name) != nil {
			out = append(out, v)
		}
	}
	return out
}

// flowValidated reports whether a form of the workflow uses a validator
// with context.
func (w *workflow) flowValidated() bool { return len(w.flowValidators()) > 0 }

// requestReadsFlow reports whether a field of form q uses a validator with
// context: its decoder is made for one flow.
func (w *workflow) requestReadsFlow(q *spec.InputRequest) bool {
	for _, f := range q.Fields {
		for _, ref := range f.Validate {
			if v := w.g.f.Validator(ref.Name); v != nil && v.InContext() {
				return true
			}
		}
	}
	return false
}

// readsTypes emits the struct of each validator with context.
func (w *workflow) readsTypes(jf *jen.File) {
	for _, v := range w.flowValidators() {
		jf.Commentf("%s is what validator %s reads of the flow of %s %s (reads: in the spec), besides the value it checks.", w.readsType(v), v.Name, w.t.Kind, w.t.Name)
		jf.Type().Id(w.readsType(v)).StructFunc(func(g *jen.Group) {
			for _, ref := range w.t.ReadsOf(v.Name) {
				f := ref.Field
				switch ref.Kind {
				case spec.RefArgument:
					g.Comment(fieldDoc(readFieldName(ref), f, "argument"))
					g.Id(readFieldName(ref)).Add(w.goType(f, optional(f)))
				case spec.RefContinuation:
					g.Comment(fieldDoc(readFieldName(ref), f, "continuation field"))
					g.Id(readFieldName(ref)).Add(w.goType(f, false))
				default:
					g.Comment(fieldDoc(readFieldName(ref), f, "form field "+ref.Path[0]+"."))
					g.Id(readFieldName(ref)).Add(w.goType(f, optional(f)))
				}
			}
		})
		jf.Line()
	}
}

// readsFuncs emits, per validator with context, the program method that
// gathers what it reads; an answer the flow does not hold (lint proves it
// is given on every path; a silenced finding, or a spec changed under a
// waiting workflow) fails the validation as a dependency failure.
func (w *workflow) readsFuncs(jf *jen.File) {
	for _, v := range w.flowValidators() {
		typ := w.readsType(v)
		jf.Commentf("%s gathers from f what validator %s reads.", readsFunc(v), v.Name)
		jf.Func().Params(jen.Id(w.n.program())).Id(readsFunc(v)).Params(jen.Id("f").Op("*").Id(w.n.flow())).Params(jen.Id(typ), jen.Error()).BlockFunc(func(g *jen.Group) {
			g.Var().Id("in").Id(typ)
			for _, ref := range w.t.ReadsOf(v.Name) {
				dst := jen.Id("in").Dot(readFieldName(ref))
				switch ref.Kind {
				case spec.RefArgument:
					g.Add(dst).Op("=").Id("f").Dot("Args").Dot(field(ref.Path[0]))
				case spec.RefContinuation:
					g.Add(dst).Op("=").Id("f").Dot("Continuation").Dot(field(ref.Path[0]))
				default:
					answer := jen.Id("f").Dot(field(ref.Path[0]))
					g.If(answer.Clone().Op("==").Nil()).Block(jen.Return(jen.Id("in"),
						implX("ReadNotGiven").Call(jen.Lit(v.Name), jen.Lit(ref.Name()))))
					g.Add(dst).Op("=").Add(answer.Clone()).Dot(field(ref.Path[1]))
				}
			}
			g.Return(jen.Id("in"), jen.Nil())
		})
		jf.Line()
	}
}

// flowValidatorCall appends the call of validator with context v on value
// arg of the field labelled label: an mrtr.Invalid is a problem for the
// user and marks the round's answers as refused in the flow (counted by
// the ask's maxAttempts); anything else fails the decoder.
func (w *workflow) flowValidatorCall(g *jen.Group, r reader, v *spec.Validator, label string, arg jen.Code) {
	g.BlockFunc(func(b *jen.Group) {
		b.List(jen.Id("in"), jen.Err()).Op(":=").Id("p").Dot(readsFunc(v)).Call(jen.Id("f"))
		b.If(jen.Err().Op("==").Nil()).Block(jen.Err().Op("=").Id("p").Dot("h").Dot(method(v.Name)).Call(jen.Id("ctx"), arg, jen.Id("in")))
		b.If(jen.Err().Op("!=").Nil()).Block(
			jen.If(jen.Op("!").Id("problems").Dot("AddInvalid").Call(jen.Lit(label), jen.Err())).Block(
				jen.Return(append(append([]jen.Code{}, r.fail...), implX("ValidatorFailed").Call(jen.Lit(v.Name), jen.Lit(r.where+label), jen.Err()))...)),
			jen.Id("f").Dot("refusedInFlow").Op("=").True(),
		)
	})
}

// boundRefusals appends, to the case of ask state s that bounds its
// validators with context, the count of a round whose answers they
// refused: the refusal of the maxAttempts-th answer goes to onExhausted
// instead of asking again.
func (w *workflow) boundRefusals(c *jen.Group, s *spec.State) {
	if s.OnExhausted == nil || !w.flowValidated() {
		return
	}
	count := jen.Id("f").Dot(refusals(s))
	c.If(jen.Id("f").Dot("refusedInFlow")).BlockFunc(func(g *jen.Group) {
		g.Commentf("A validator with context refused an answer: %d answers in all, then %s.", s.MaxAttempts, s.OnExhausted.Name)
		g.Id("f").Dot("refusedInFlow").Op("=").False()
		g.Add(count.Clone()).Op("++")
		g.If(count.Clone().Op(">=").Lit(s.MaxAttempts)).Block(w.goTo(s.OnExhausted.Name, vocab.Exhausted))
	})
}

// flowValidatorDoc is the documentation of a validator with context's
// handler method, after the plain validator's.
func (w *workflow) flowValidatorDoc(v *spec.Validator) string {
	var names []string
	for _, ref := range w.t.ReadsOf(v.Name) {
		names = append(names, ref.Name())
	}
	return fmt.Sprintf("It reads %s of the flow (in, reads: in the spec). An mrtr.Invalid counts against the ask's maxAttempts.", strings.Join(names, ", "))
}

// flowValidatorUses are the validators with context state s calls on an
// answer, one entry per use (a validator on two fields is there twice):
// the descriptor's StateInfo.FlowValidators, which walks steer.
func (w *workflow) flowValidatorUses(s *spec.State) []jen.Code {
	var out []jen.Code
	for _, u := range w.t.FlowValidatorUses(w.g.f) {
		if u.State == s {
			out = append(out, jen.Lit(u.Validator.Name))
		}
	}
	return out
}

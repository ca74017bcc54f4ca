package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Value branches and asking again: the Step code of a branch state (a
// switch on the value, no handler method) and of a check's askAgain (the
// refusals counted in the continuation, the message shown with the
// question asked again).

// branchValue is how the generated code reads the value a branch routes
// on: present is the condition under which it is there (nil: always), v
// its value.
func (w *workflow) branchValue(b *spec.ValueBranch) (present, v *jen.Statement) {
	name := b.On.Path[0]
	switch b.On.Kind {
	case spec.RefArgument:
		v = jen.Id("f").Dot("Args").Dot(field(name))
		if optional(b.On.Field) {
			return v.Clone().Op("!=").Nil(), jen.Op("*").Add(v)
		}
		return nil, v
	case spec.RefContinuation:
		return nil, jen.Id("f").Dot("Continuation").Dot(field(name))
	}
	answer := jen.Id("f").Dot(field(name))
	present = answer.Clone().Op("!=").Nil()
	v = answer.Clone().Dot(field(b.On.Path[1]))
	if optional(b.On.Field) {
		return present.Op("&&").Add(v.Clone()).Op("!=").Nil(), jen.Op("*").Add(v)
	}
	return present, v
}

// branchCase routes on the value: a switch over the cases or the ranges,
// then the default. A value no arm takes (one lint could not rule out: an
// absent value or a gap, with lint silenced) fails the round naming it.
func (w *workflow) branchCase(c *jen.Group, s *spec.State) {
	b := s.Branch
	c.Commentf("Branch on %s.", b.On.Name())
	present, v := w.branchValue(b)
	if b.On.Kind == spec.RefContinuation && b.On.Field.Type == spec.TypeEnum {
		// An enum no handler set is not a value: routing it to the
		// default would hide the handler's bug.
		c.If(v.Clone().Op("==").Lit("")).Block(
			jen.Return(jen.Qual(pkgImpl, "Step").Values(), implX("BranchNotSet").Call(jen.Lit(s.Name), jen.Lit(b.On.Name()))),
		)
	}
	var sw jen.Code
	if len(b.Cases) > 0 {
		sw = jen.Switch(v.Clone()).BlockFunc(func(g *jen.Group) {
			for _, a := range b.Arms() {
				g.Case(w.caseValue(b.On.Field, a.Case.Value)).Block(w.goTo(a.Target.Name, vocab.CaseEdge(a.Label)))
			}
		})
	} else {
		sw = jen.Switch(jen.Id("v").Op(":=").Add(v.Clone()).Op(";")).BlockFunc(func(g *jen.Group) {
			for _, a := range b.Arms() {
				g.Case(rangeCond(b.On.Field, a.Range)).Block(w.goTo(a.Target.Name, vocab.CaseEdge(a.Label)))
			}
		})
	}
	if present != nil {
		c.If(present).Block(sw)
	} else {
		c.Add(sw)
	}
	switch {
	case b.Default != nil:
		c.Add(w.goTo(b.Default.Name, vocab.Default))
	case present != nil:
		// Nothing else can fall through: cases and ranges are exhaustive
		// (lint says so), so only an absent value gets here.
		c.Return(jen.Qual(pkgImpl, "Step").Values(), implX("NoArm").Call(jen.Lit(s.Name), jen.Lit(b.On.Name()), jen.Lit("absent")))
	default:
		c.Return(jen.Qual(pkgImpl, "Step").Values(), implX("NoArm").Call(jen.Lit(s.Name), jen.Lit(b.On.Name()), v.Clone()))
	}
}

// caseValue is the Go value of a case: a boolean, or an enum constant.
func (w *workflow) caseValue(f *spec.Field, value string) jen.Code {
	if f.Type == spec.TypeBoolean {
		return jen.Id(value) // true or false
	}
	return jen.Id(w.enumConst(w.enumOf[f], value))
}

// rangeCond is the condition of a range on v: v > 500 && v <= 5000.
func rangeCond(f *spec.Field, r *spec.Range) *jen.Statement {
	lit := func(x float64) jen.Code {
		if f.Type == spec.TypeInteger {
			return jen.Lit(int(x)) // whole numbers: the loader checked
		}
		return jen.Lit(x)
	}
	var cond *jen.Statement
	and := func(op string, x float64) {
		c := jen.Id("v").Op(op).Add(lit(x))
		if cond == nil {
			cond = c
			return
		}
		cond = cond.Op("&&").Add(c)
	}
	if b := r.Lower; b != nil {
		op := ">"
		if b.Inclusive {
			op = ">="
		}
		and(op, b.Value)
	}
	if b := r.Upper; b != nil {
		op := "<"
		if b.Inclusive {
			op = "<="
		}
		and(op, b.Value)
	}
	return cond
}

// askAgainTargets are the asks some check may send back to.
func (w *workflow) askAgainTargets() map[string]bool {
	out := map[string]bool{}
	for _, s := range w.t.States {
		if s.AskAgain != nil {
			out[s.AskAgain.State.Name] = true
		}
	}
	return out
}

// refusals is the flow's count of the answers check state s refused.
func refusals(s *spec.State) string { return lowerName(s.Name) + "Refusals" }

// refusalStates are the states that count refusals in the flow and the
// continuation's refusals group, in state order: the checks with askAgain,
// typed confirmations, and the asks that bound their validators with
// context (maxAttempts).
func (w *workflow) refusalStates() []*spec.State {
	var out []*spec.State
	for _, s := range w.t.States {
		if s.CountsRefusals() {
			out = append(out, s)
		}
	}
	return out
}

// askAgain handles what check state s returned when it asks again: one
// more refusal counted; the last allowed one goes to onExhausted, any other
// back to the ask, with the check's message for the question.
func (w *workflow) askAgain(g *jen.Group, s *spec.State) {
	a := s.AskAgain
	count := jen.Id("f").Dot(refusals(s))
	g.List(jen.Id("why"), jen.Id("again")).Op(":=").Add(implX("AskingAgain")).Call(jen.Err())
	g.If(jen.Op("!").Id("again")).Block(fail())
	g.Commentf("The check refused the answer to %s: %d answers in all, then %s.", a.State.Name, a.MaxAttempts, a.OnExhausted.Name)
	g.Add(count.Clone()).Op("++")
	g.If(count.Clone().Op(">=").Lit(a.MaxAttempts)).Block(w.goTo(a.OnExhausted.Name, vocab.Exhausted))
	g.Id("f").Dot("reasked").Op("=").Add(implX("AttemptsLeft")).Call(jen.Id("why"), jen.Int().Call(jen.Lit(a.MaxAttempts).Op("-").Add(count.Clone())))
	if forms := w.refusedForms(a.State.Name); len(forms) > 0 {
		// The forms asked again are prefilled with the refused answer.
		g.Id("f").Dot("reaskedWith").Op("=").Map(jen.String()).Map(jen.String()).Any().Values(jen.DictFunc(func(d jen.Dict) {
			for _, q := range forms {
				d[jen.Lit(q.Key)] = jen.Id("p").Dot(givenFunc(q)).Call(jen.Id("f").Dot(field(q.Key)))
			}
		}))
	}
	g.Add(w.goTo(a.State.Name, vocab.AskAgain))
}

// refusedForms are the forms of ask state name, when some check may send
// the workflow back to it: each is asked again prefilled with the answer
// the check refused.
func (w *workflow) refusedForms(name string) []*spec.InputRequest {
	s := w.t.State(name)
	if s == nil || !w.askAgainTargets()[name] {
		return nil
	}
	var out []*spec.InputRequest
	for _, q := range s.Requests {
		if q.Kind == vocab.Elicit {
			out = append(out, q)
		}
	}
	return out
}

// givenFunc is the program method that turns the answer to form q back
// into form content (givenTicket).
func givenFunc(q *spec.InputRequest) string { return "given" + spec.GoName(q.Key) }

// givenFuncs emits, for each form some check may refuse the answer to,
// the method giving that answer back as form content without its
// sensitive fields: the defaults of the form asked again
// (mrtrimpl.X.AgainWith).
func (w *workflow) givenFuncs(jf *jen.File) {
	for _, s := range w.t.States {
		for _, q := range w.refusedForms(s.Name) {
			jf.Commentf("%s is answer a to %q as form content, the defaults of the form asked again after a check refused it; sensitive fields are left out.", givenFunc(q), q.Key)
			jf.Func().Params(jen.Id(w.n.program())).Id(givenFunc(q)).Params(jen.Id("a").Op("*").Id(w.n.answer(q.Key))).Map(jen.String()).Any().BlockFunc(func(g *jen.Group) {
				g.If(jen.Id("a").Op("==").Nil()).Block(jen.Return(jen.Nil()))
				g.Id("m").Op(":=").Map(jen.String()).Any().Values()
				for _, f := range q.Fields {
					if f.Sensitive {
						g.Commentf("%s is sensitive: never sent back as a default.", f.Name)
						continue
					}
					v := jen.Id("a").Dot(field(f.Name))
					switch {
					case f.Type == spec.TypeArray:
						g.If(v.Clone().Op("!=").Nil()).Block(jen.Id("m").Index(jen.Lit(f.Name)).Op("=").Add(v.Clone()))
					case optional(f):
						g.If(v.Clone().Op("!=").Nil()).Block(jen.Id("m").Index(jen.Lit(f.Name)).Op("=").Op("*").Add(v.Clone()))
					default:
						g.Id("m").Index(jen.Lit(f.Name)).Op("=").Add(v.Clone())
					}
				}
				g.Return(jen.Id("m"))
			})
			jf.Line()
		}
	}
}

// askAgainFields are the flow's unexported fields for asking again: the
// refusal counts (carried in the continuation) and the message of this
// round's refusal.
func (w *workflow) askAgainFields(g *jen.Group) {
	for _, s := range w.refusalStates() {
		switch {
		case s.Confirm != nil:
			g.Commentf("%s counts the texts typed at %s that were not the one shown; the continuation carries it.", refusals(s), s.Name)
		case s.Kind == vocab.StateAsk:
			g.Commentf("%s counts the answers of %s its validators with context refused (mrtr.Invalid); the continuation carries it.", refusals(s), s.Name)
		default:
			g.Commentf("%s counts the answers check %s refused (mrtr.AskAgain); the continuation carries it.", refusals(s), s.Check.Name)
		}
		g.Id(refusals(s)).Uint8()
	}
	if w.flowValidated() {
		g.Comment("refusedInFlow says a validator with context refused an answer of this round (mrtr.Invalid).")
		g.Id("refusedInFlow").Bool()
	}
	if len(w.askAgainTargets()) == 0 {
		return // no check asks again
	}
	g.Comment("reasked is why a check sent the workflow back to an ask in this round, shown with the question.")
	g.Id("reasked").String()
	if w.hasRefusedForms() {
		g.Comment("reaskedWith is the refused answer of each form asked again in this round, by request key: its defaults.")
		g.Id("reaskedWith").Map(jen.String()).Map(jen.String()).Any()
	}
}

// hasRefusedForms reports whether some check may send the workflow back
// to a form.
func (w *workflow) hasRefusedForms() bool {
	for _, s := range w.t.States {
		if len(w.refusedForms(s.Name)) > 0 {
			return true
		}
	}
	return false
}

// explained wraps the request builder of an askAgain target so that it
// adds the message of the check that sent the workflow back (nothing on
// any other round).
func (w *workflow) explained(s *spec.State, q *spec.InputRequest, request jen.Code) jen.Code {
	if !w.askAgainTargets()[s.Name] {
		return request
	}
	if q.Kind == vocab.Elicit {
		return implX("AgainWith").Call(request, jen.Id("f").Dot("reasked"), jen.Id("f").Dot("reaskedWith").Index(jen.Lit(q.Key)))
	}
	return implX("Again").Call(request, jen.Id("f").Dot("reasked"))
}

// branchDoc says what a branch state does, for its constant's comment.
func branchDoc(s *spec.State) string {
	b := s.Branch
	what := "routes on " + b.On.Name()
	if b.Default != nil {
		what += fmt.Sprintf(" (%d arms and a default)", len(b.Arms()))
	}
	return what
}

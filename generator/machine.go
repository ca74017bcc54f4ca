package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// machine emits the state enum and the Step function: one case per state,
// in flow order, each doing exactly what the spec says about the state.
func (w *workflow) machine(jf *jen.File) {
	t, n := w.t, w.n
	jf.Commentf("%s is a state of %s %s. States are numbered in flow order, for this", n.state(), t.Kind, t.Name)
	jf.Comment("build only: a continuation records the state's name, so adding or moving states")
	jf.Comment("elsewhere does not strand a workflow waiting in this one.")
	jf.Type().Id(n.state()).Uint16()
	jf.Line()
	jf.Const().DefsFunc(func(g *jen.Group) {
		for _, s := range t.States {
			g.Comment(stateDoc(n.stateConst(s.Name), s))
			g.Id(n.stateConst(s.Name)).Id(n.state()).Op("=").Lit(w.num[s.Name])
		}
	})
	jf.Line()
	jf.Comment("String returns the state's name in the spec.")
	jf.Func().Params(jen.Id("s").Id(n.state())).Id("String").Params().String().Block(
		jen.Switch(jen.Id("s")).BlockFunc(func(g *jen.Group) {
			for _, s := range t.States {
				g.Case(w.stateID(s.Name)).Block(jen.Return(jen.Lit(s.Name)))
			}
		}),
		jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit(n.state()+"(%d)"), jen.Uint16().Call(jen.Id("s")))),
	)
	jf.Line()
	jf.Comment(`An "invalid array index" compile error here means the state numbers were`)
	jf.Comment("changed by hand: run mrtrgen generate again.")
	jf.Func().Id("_").Params().BlockFunc(func(g *jen.Group) {
		g.Var().Id("x").Index(jen.Lit(1)).Struct()
		for _, s := range t.States {
			g.Id("_").Op("=").Id("x").Index(w.stateID(s.Name).Op("-").Lit(w.num[s.Name]))
		}
	})
	jf.Line()

	// Step.
	jf.Comment("Step runs the flow's current state once. Every state of the spec has a case;")
	jf.Comment("each answer is validated here on every round, whatever an earlier round saw.")
	jf.Func().Params(jen.Id("p").Id(n.program())).Id("Step").
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("r").Qual(pkgImpl, "Round"), jen.Id("f").Op("*").Id(n.flow())).
		Params(jen.Qual(pkgImpl, "Step"), jen.Error()).
		BlockFunc(func(g *jen.Group) {
			g.Switch(jen.Id("f").Dot("state")).BlockFunc(func(sw *jen.Group) {
				for _, s := range t.States {
					sw.Case(w.stateID(s.Name)).BlockFunc(func(c *jen.Group) {
						w.transientStep(c, s)
						w.stateCase(c, s)
					})
				}
			})
			g.Return(jen.Qual(pkgImpl, "Step").Values(), jen.Qual("fmt", "Errorf").Call(jen.Lit("%w %d in "+t.Name), jen.Qual(pkgImpl, "ErrUnknownState"), jen.Id("f").Dot("state")))
		})
	jf.Line()
}

func stateDoc(constName string, s *spec.State) string {
	var what string
	switch s.Kind {
	case vocab.StateCheck:
		what = "runs check " + s.Check.Name
	case vocab.StateAsk:
		var keys []string
		for _, q := range s.Requests {
			keys = append(keys, q.Key)
		}
		what = "asks for " + strings.Join(keys, ", ")
	case vocab.StateConfirm:
		what = "is a confirmation gate"
		if a := s.Approval(); a != nil {
			what = "is an approval gate (" + a.Summary() + ")"
		}
	case vocab.StateEffect:
		what = "performs effect " + s.Effect.Name
		if s.Irreversible {
			what += " (irreversible)"
		}
	case vocab.StateBranch:
		what = branchDoc(s)
	case vocab.StateTerminal:
		what = "ends the workflow: " + s.Outcome.String()
	}
	if a := s.AskAgain; a != nil {
		what += fmt.Sprintf(", which may ask %s again (%d answers in all)", a.State.Name, a.MaxAttempts)
	}
	doc := fmt.Sprintf("%s %s.", constName, what)
	if d := strings.TrimSpace(s.Description); d != "" {
		doc += " " + d
	}
	return doc
}

// goTo is `return mrtrimpl.Goto(r, <state>, on)`. Going (back) to an ask
// that a loop can come back to first forgets its answers, so it asks again.
func (w *workflow) goTo(target string, on vocab.Edge) *jen.Statement {
	st := jen.Null()
	if t := w.t.State(target); t != nil && t.Kind == vocab.StateAsk {
		// A question another state asks may have been answered there:
		// entering this ask asks it again, as lint's answer-not-given has it.
		reentrant := w.reentrant(target)
		for _, q := range t.Requests {
			if reentrant || len(w.t.AskersOf(q)) > 1 {
				st.Id("f").Dot(field(q.Key)).Op("=").Nil().Line()
			}
		}
	}
	return st.Return(jen.Qual(pkgImpl, "Goto").Call(jen.Id("r"), w.stateID(target), edgeCode(on)))
}

// reentrant reports whether a workflow can come back to a state after
// leaving it (the state is on a cycle of the state table).
func (w *workflow) reentrant(name string) bool {
	if w.cycles == nil {
		w.cycles = map[string]bool{}
		g := w.graph()
		for i, s := range w.t.States {
			_, back := g.Cycle(i, machine.Any)
			w.cycles[s.Name] = back
		}
	}
	return w.cycles[name]
}

// graph is the workflow's state machine, indexed (built once).
func (w *workflow) graph() *machine.Graph {
	if w.sm == nil {
		w.sm = w.t.Graph()
	}
	return w.sm
}

func fail() *jen.Statement {
	return jen.Return(jen.Qual(pkgImpl, "Step").Values(), jen.Err())
}

// leave is where a declined or cancelled request goes: its state, or the
// end of the workflow as cancelled.
func (w *workflow) leave(ref *spec.StateRef, on vocab.Edge, why string) *jen.Statement {
	if ref != nil {
		return w.goTo(ref.Name, on)
	}
	return jen.Return(jen.Id("r").Dot("Finish").Call(jen.Qual(pkgMRTR, "Final").Add(oneLine(
		pair{jen.Id("Outcome"), finalOutcome(vocab.OutcomeCancelled)},
		pair{jen.Id("Text"), jen.Lit(fmt.Sprintf("%s was cancelled: %s.", w.t.Name, why))},
	))))
}

func (w *workflow) stateCase(c *jen.Group, s *spec.State) {
	switch s.Kind {
	case vocab.StateCheck:
		w.checkCase(c, s)
	case vocab.StateAsk:
		w.askCase(c, s)
	case vocab.StateConfirm:
		if s.Approval() != nil {
			w.approvalCase(c, s)
			return
		}
		w.confirmCase(c, s)
	case vocab.StateEffect:
		w.effectCase(c, s)
	case vocab.StateBranch:
		w.branchCase(c, s)
	case vocab.StateTerminal:
		w.terminalCase(c, s)
	}
}

func (w *workflow) checkCase(c *jen.Group, s *spec.State) {
	call := jen.Id("p").Dot("h").Dot(method(s.Check.Name)).Call(w.methodArgs(s.Check.Name)...)
	failed := func(g *jen.Group) {
		if s.AskAgain == nil {
			g.Add(fail())
			return
		}
		if len(w.canonicalLists()) > 0 {
			g.Add(w.canonicalCall()) // the round ends at the ask: the continuation is sealed
		}
		w.askAgain(g, s)
	}
	if len(s.Outcomes) == 0 {
		c.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).BlockFunc(failed)
		c.Add(w.canonicalCall())
		w.setsChecks(c, s, vocab.Next, stepError)
		c.Add(w.goTo(s.Next.Name, vocab.Next))
		return
	}
	c.List(jen.Id("out"), jen.Err()).Op(":=").Add(call)
	c.If(jen.Err().Op("!=").Nil()).BlockFunc(failed)
	c.Add(w.canonicalCall())
	c.Switch(jen.Id("out")).BlockFunc(func(sw *jen.Group) {
		for _, b := range s.Outcomes {
			on := vocab.OutcomeEdge(b.Name)
			sw.Case(jen.Id(w.n.outcomeConst(s.Check.Name, b.Name))).BlockFunc(func(g *jen.Group) {
				w.setsChecks(g, s, on, stepError)
				g.Add(w.goTo(b.Target.Name, on))
			})
		}
	})
	c.Return(jen.Qual(pkgImpl, "Step").Values(), jen.Qual("fmt", "Errorf").Call(jen.Lit(s.Check.Name+" returned unknown outcome %d"), jen.Id("out")))
}

// askCase takes each request's answer if the round carries one, validates
// it, and asks again for what is still missing or invalid.
func (w *workflow) askCase(c *jen.Group, s *spec.State) {
	c.Var().Id("pending").Index().Qual(pkgImpl, "Pending")
	if s.OnExhausted != nil && w.flowValidated() {
		c.Id("f").Dot("refusedInFlow").Op("=").False()
	}
	allOptional := true
	var none *jen.Statement // every answer is missing
	var all []jen.Code
	for _, q := range s.Requests {
		c.If(jen.Id("f").Dot(field(q.Key)).Op("==").Nil()).BlockFunc(func(b *jen.Group) {
			w.optionGuards(b, s, q)
			w.takeAnswer(b, s, q)
		})
		allOptional = allOptional && q.Optional
		missing := jen.Id("f").Dot(field(q.Key)).Op("==").Nil()
		if none == nil {
			none = missing
		} else {
			none = none.Op("&&").Add(missing)
		}
		all = append(all, jen.Id("p").Dot(w.requestBuilder(s.Form(q))).Call(jen.Id("f"), jen.Nil()))
	}
	w.boundRefusals(c, s)
	c.If(jen.Len(jen.Id("pending")).Op(">").Lit(0)).Block(jen.Return(jen.Id("r").Dot("Ask").Call(jen.Id("pending"))))
	if allOptional {
		// Optional requests the client cannot answer are left out, but a
		// round that can ask none of them fails (the engine answers -32021
		// naming the capabilities).
		c.If(none).Block(
			jen.Comment("The client can answer none of the requests: the engine fails the round with -32021."),
			jen.Return(jen.Id("r").Dot("Ask").Call(jen.Index().Qual(pkgImpl, "Pending").Values(all...))),
		)
	}
	c.Add(w.goTo(s.Next.Name, vocab.Next))
}

func requestKind(k vocab.RequestKind) *jen.Statement {
	switch k {
	case vocab.Sample:
		return jen.Qual(pkgVocab, "Sample")
	case vocab.Roots:
		return jen.Qual(pkgVocab, "Roots")
	case vocab.ElicitURL:
		return jen.Qual(pkgVocab, "ElicitURL")
	}
	return jen.Qual(pkgVocab, "Elicit")
}

// takeAnswer reads the answer to request q with mrtrimpl.Take, which asks
// (again) for what is missing or invalid; an optional request is asked
// only when the client can answer it (an answer given up front in the
// "inputs" argument is taken either way). Only an elicitation (a form or a
// URL) can be declined or cancelled.
func (w *workflow) takeAnswer(b *jen.Group, s *spec.State, q *spec.InputRequest) {
	adapter := map[vocab.RequestKind]string{vocab.Elicit: "Form", vocab.Sample: "Text", vocab.Roots: "URIs"}[q.Kind]
	left := jen.Id("left")
	if !q.Kind.Elicitation() {
		left = jen.Id("_")
	}
	decoder := implX("Opened").Call()
	if q.Kind != vocab.ElicitURL {
		decoder = jen.Qual(pkgImpl, adapter).Call(w.decoderRef(s.Form(q)))
	}
	b.List(jen.Id("answer"), left, jen.Err()).Op(":=").Qual(pkgImpl, "Take").Call(
		jen.Id("ctx"), jen.Id("r"), jen.Lit(q.Key),
		w.explained(s, q, jen.Qual(pkgImpl, "Bind").Call(jen.Id("p").Dot(w.requestBuilder(s.Form(q))), jen.Id("f"))),
		decoder,
		jen.Op("&").Id("pending"),
	)
	if !q.Kind.Elicitation() {
		b.If(jen.Err().Op("!=").Nil()).Block(fail())
	} else {
		b.Switch().Block(
			jen.Case(jen.Err().Op("!=").Nil()).Block(fail()),
			jen.Case(jen.Id("left").Op("==").Qual(pkgVocab, "Decline")).Block(w.leave(s.OnDecline, vocab.Decline, fmt.Sprintf("the user declined %q", q.Key))),
			jen.Case(jen.Id("left").Op("==").Qual(pkgVocab, "Cancel")).Block(w.leave(s.OnCancel, vocab.Cancel, fmt.Sprintf("the user cancelled %q", q.Key))),
		)
	}
	b.Id("f").Dot(field(q.Key)).Op("=").Id("answer")
}

// confirmCase passes the gate only on an explicit yes to the question that
// was shown in the previous round.
func (w *workflow) confirmCase(c *jen.Group, s *spec.State) {
	g := s.Confirm
	confirm := implX("Confirm").Call(jen.Id("r"), jen.Lit(g.Key), jen.Lit(g.Field),
		jen.Qual(pkgImpl, "Bind").Call(jen.Id("p").Dot(w.gateBuilder(s)), jen.Id("f")))
	if g.Typed != nil {
		// A typed confirmation: the text typed must be the one shown; the
		// continuation counts the mismatches, the last one declines.
		confirm = implX("ConfirmTyped").Call(jen.Id("r"), jen.Lit(g.Key), jen.Lit(g.Field),
			jen.Id(w.templateFunc(s.Name, "Typed")).Call(jen.Id("f")), jen.Op("&").Id("f").Dot(refusals(s)), jen.Lit(g.MaxAttempts),
			jen.Qual(pkgImpl, "Bind").Call(jen.Id("p").Dot(w.gateBuilder(s)), jen.Id("f")))
	}
	c.Switch(jen.List(jen.Id("on"), jen.Id("ask")).Op(":=").Add(confirm), jen.Id("on")).Block(
		// The continuation carries what was confirmed (see passedField).
		jen.Case(jen.Qual(pkgVocab, "Next")).Block(jen.Id("f").Dot(passedField(s)).Op("=").True(), w.goTo(s.Next.Name, vocab.Next)),
		jen.Case(jen.Qual(pkgVocab, "Decline")).Block(w.leave(s.OnDecline, vocab.Decline, "the user did not confirm")),
		jen.Case(jen.Qual(pkgVocab, "Cancel")).Block(w.leave(s.OnCancel, vocab.Cancel, "the user cancelled the confirmation")),
		jen.Default().Block(jen.Return(jen.Id("r").Dot("Ask").Call(jen.Index().Qual(pkgImpl, "Pending").Values(jen.Id("ask"))))),
	)
}

func (w *workflow) effectCase(c *jen.Group, s *spec.State) {
	key := jen.Lit("")
	comment := "the workflow's own operation id: the round record covers retries"
	if !isDefaultKey(s.Idempotency) {
		key = jen.Id(w.templateFunc(s.Name, "OperationID")).Call(jen.Id("f"))
		comment = "operation id " + s.Idempotency.Key.Raw
	}
	c.Comment(comment)
	c.Return(jen.Qual(pkgImpl, "Effect").Call(
		jen.Id("ctx"), jen.Id("r"), key, durationCode(s.Idempotency.Retain), w.stateID(s.Next.Name),
		jen.Func().Params(jen.Id("ctx").Qual("context", "Context")).Error().BlockFunc(func(g *jen.Group) {
			effect := jen.Id("p").Dot("h").Dot(method(s.Effect.Name)).Call(w.methodArgs(s.Effect.Name)...)
			if len(s.Sets) > 0 {
				// A declared value the effect did not set fails it before the
				// engine records its outcome: a retry runs it again.
				g.If(jen.Err().Op(":=").Add(effect), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
				g.Add(w.canonicalCall())
				w.setsChecks(g, s, vocab.Next, func(err jen.Code) jen.Code { return jen.Return(err) })
				g.Return(jen.Nil())
				return
			}
			if len(w.canonicalLists()) == 0 {
				g.Return(effect)
				return
			}
			g.Err().Op(":=").Add(effect)
			g.Add(w.canonicalCall()) // before the engine records the continuation
			g.Return(jen.Err())
		}),
	))
}

// isDefaultKey reports whether an effect's operation id is the workflow's own.
func isDefaultKey(i *spec.Idempotency) bool { return i.IsDefault() }

// businessKey reports whether effect state s has an operation id made of
// what the caller sent (arguments, answers) and nothing a workflow makes
// for itself (its id, continuation fields a handler fills): a second
// workflow sent the same shares the operation.
func businessKey(s *spec.State) bool {
	return s.Kind == vocab.StateEffect && s.Idempotency != nil && !isDefaultKey(s.Idempotency) &&
		!slices.ContainsFunc(s.Idempotency.Key.Refs(), func(r *spec.TemplateRef) bool {
			return r.Kind == spec.RefWorkflowID || r.Kind == spec.RefContinuation
		})
}

// edgeCode is an edge as generated code writes it: vocab.Next, or
// vocab.OutcomeEdge("approved") for a check's outcome.
func edgeCode(e vocab.Edge) *jen.Statement {
	if o, ok := e.Outcome(); ok {
		return jen.Qual(pkgVocab, "OutcomeEdge").Call(jen.Lit(o))
	}
	if l, ok := e.Case(); ok {
		return jen.Qual(pkgVocab, "CaseEdge").Call(jen.Lit(l))
	}
	return jen.Qual(pkgVocab, e.GoName())
}

// finalOutcome is the vocabulary's constant for how a terminal state ends.
func finalOutcome(o vocab.Outcome) *jen.Statement { return jen.Qual(pkgVocab, o.GoName()) }

func (w *workflow) terminalCase(c *jen.Group, s *spec.State) {
	// One line for the final of a tool; a prompt's messages have a line each.
	if hasContent(s) {
		w.contentTerminalCase(c, s)
		return
	}
	final := []pair{{jen.Id("Outcome"), finalOutcome(s.Outcome)}}
	switch {
	case w.t.Kind == vocab.KindPrompt && len(s.Messages) > 0:
		var msgs []jen.Code
		for i, m := range s.Messages {
			msgs = append(msgs, oneLine(
				pair{jen.Id("Role"), jen.Lit(m.Role)},
				pair{jen.Id("Text"), jen.Id(w.templateFunc(s.Name, fmt.Sprintf("Message%d", i+1))).Call(jen.Id("f"))},
			))
		}
		c.Return(jen.Id("r").Dot("Finish").Call(jen.Qual(pkgMRTR, "Final").Values(jen.Dict{
			jen.Id("Outcome"):  finalOutcome(s.Outcome),
			jen.Id("Messages"): jen.Index().Qual(pkgMRTR, "PromptMessage").Add(rows(msgs...)),
		})))
		return
	case w.t.Kind != vocab.KindPrompt && s.Message != nil:
		final = append(final, pair{jen.Id("Text"), jen.Id(w.templateFunc(s.Name, "Message")).Call(jen.Id("f"))})
	default:
		final = append(final, pair{jen.Id("Text"), jen.Lit(fmt.Sprintf("%s ended in state %s.", w.t.Name, s.Name))})
	}
	if s.NotFound {
		final = append(final, pair{jen.Id("NotFound"), jen.True()})
	}
	if len(s.Output) > 0 {
		w.outputCase(c, s, final)
		return
	}
	c.Return(jen.Id("r").Dot("Finish").Call(jen.Qual(pkgMRTR, "Final").Add(oneLine(final...))))
}

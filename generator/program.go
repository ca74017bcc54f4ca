package generator

import (
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// program emits the program type the engine drives, its descriptor, and
// the registration functions.
func (w *workflow) program(jf *jen.File) {
	t, n := w.t, w.n
	jf.Commentf("%s is the generated half of %s: the engine calls it, the handler does the work.", n.program(), t.Name)
	jf.Type().Id(n.program()).Struct(jen.Id("h").Id(n.handler()))
	jf.Line()
	jf.Var().Id("_").Qual(pkgMRTR, "Program").Types(jen.Op("*").Id(n.flow())).Op("=").Id(n.program()).Values()
	jf.Line()

	jf.Commentf("%s returns the %s for the engine (mrtr.Run, or tests).", n.newProgram(), t.Kind)
	jf.Func().Id(n.newProgram()).Params(jen.Id("h").Id(n.handler())).Qual(pkgMRTR, "Program").Types(jen.Op("*").Id(n.flow())).Block(
		jen.Return(jen.Id(n.program()).Values(jen.Dict{jen.Id("h"): jen.Id("h")})),
	)
	jf.Line()
	add := map[vocab.Kind]string{vocab.KindTool: "AddTool", vocab.KindPrompt: "AddPrompt", vocab.KindResource: "AddResource"}[t.Kind]
	jf.Commentf("%s adds %s %s to s, served by e and implemented by h.", n.register(), t.Kind, t.Name)
	jf.Func().Id(n.register()).Params(jen.Id("s").Op("*").Qual(pkgMCP, "Server"), jen.Id("e").Op("*").Qual(pkgMRTR, "Engine"), jen.Id("h").Id(n.handler())).Block(
		jen.Qual(pkgMRTR, add).Call(jen.Id("s"), jen.Id("e"), jen.Id(n.newProgram()).Call(jen.Id("h"))),
	)
	jf.Line()

	recv := func() *jen.Statement { return jen.Func().Params(jen.Id("p").Id(n.program())) }
	flow := jen.Id("f").Op("*").Id(n.flow())
	jf.Func().Params(jen.Id(n.program())).Id("Descriptor").Params().Op("*").Qual(pkgImpl, "Descriptor").Block(jen.Return(jen.Op("&").Id(n.descriptor())))
	jf.Line()
	jf.Add(recv()).Id("Authorize").Params(jen.Id("ctx").Qual("context", "Context"), flow).Error().Block(
		jen.Return(jen.Id("p").Dot("h").Dot("Authorize").Call(jen.Id("ctx"), jen.Id("f"))),
	)
	jf.Line()
	jf.Func().Params(jen.Id(n.program())).Id("State").Params(jen.Id("f").Op("*").Id(n.flow())).Uint16().Block(jen.Return(jen.Uint16().Call(jen.Id("f").Dot("state"))))
	jf.Line()
	jf.Func().Params(jen.Id(n.program())).Id("SetState").Params(jen.Id("f").Op("*").Id(n.flow()), jen.Id("s").Uint16()).Block(jen.Id("f").Dot("state").Op("=").Id(n.state()).Call(jen.Id("s")))
	jf.Line()
	w.questions(jf)
	w.transientDecls(jf)
	w.completer(jf)
	w.descriptor(jf)
}

// questions emits Questions: each interactive state's requests as a round
// first asks them. The engine seals a digest of each question it sends and
// takes an answer only while the question it would send now is the same.
func (w *workflow) questions(jf *jen.File) {
	n := w.n
	jf.Comment("Questions returns the requests of interactive state s as a round first asks them (no")
	jf.Comment("problems added): the engine pins each answer to the exact question that was sent.")
	jf.Func().Params(jen.Id("p").Id(n.program())).Id("Questions").Params(jen.Id("f").Op("*").Id(n.flow()), jen.Id("s").Uint16()).Index().Qual(pkgImpl, "Pending").BlockFunc(func(g *jen.Group) {
		var cases []jen.Code
		for _, s := range w.t.States {
			var qs []jen.Code
			for _, q := range s.Requests {
				qs = append(qs, jen.Id("p").Dot(w.requestBuilder(s.Form(q))).Call(jen.Id("f"), jen.Nil()))
			}
			if s.Confirm != nil {
				qs = append(qs, jen.Id("p").Dot(w.gateBuilder(s)).Call(jen.Id("f"), jen.Nil()))
			}
			if len(qs) > 0 {
				cases = append(cases, jen.Case(w.stateID(s.Name)).Block(jen.Return(jen.Index().Qual(pkgImpl, "Pending").Values(qs...))))
			}
		}
		if len(cases) == 0 {
			g.Return(jen.Nil())
			return
		}
		g.Switch(jen.Id(n.state()).Call(jen.Id("s"))).Block(cases...)
		g.Return(jen.Nil())
	})
	jf.Line()
}

func (w *workflow) descriptor(jf *jen.File) {
	t, n := w.t, w.n
	// Fields in the order mrtrimpl.Descriptor declares them.
	var d []pair
	set := func(name string, v jen.Code) { d = append(d, pair{jen.Id(name), v}) }
	set("Kind", jen.Qual(pkgVocab, t.Kind.GoName()))
	set("Name", jen.Lit(t.Name))
	if t.Title != "" {
		set("Title", jen.Lit(t.Title))
	}
	set("Description", jen.Lit(t.Description))
	if t.Kind == vocab.KindTool {
		set("InputSchema", jen.Qual("encoding/json", "RawMessage").Call(jsonLiteral(w.inputSchema())))
		if t.HasOutput() {
			set("OutputSchema", jen.Qual("encoding/json", "RawMessage").Call(jsonLiteral(w.outputSchema())))
		}
	} else {
		set("PromptArguments", w.promptArguments())
	}
	if t.Kind == vocab.KindResource {
		set("Resource", w.resourceInfo())
	}
	if t.Destructive {
		set("Destructive", jen.True())
	}
	if len(t.Requires) > 0 {
		set("Requires", jen.Index().Qual(pkgVocab, "Capability").ValuesFunc(func(g *jen.Group) {
			for _, c := range t.Requires {
				g.Qual(pkgVocab, c.GoName())
			}
		}))
	}
	if t.NonInteractive {
		set("NonInteractive", jen.True())
	}
	set("TTL", durationCode(t.Continuation.TTL))
	set("Storage", jen.Qual(pkgVocab, t.Continuation.Storage.GoName()))
	set("SchemaHash", jen.Lit(w.schemaHash()))
	set("Initial", jen.Uint16().Call(w.stateID(t.Initial)))
	// The state and transition tables have a row a line.
	var states []jen.Code
	for _, s := range t.States {
		states = append(states, w.stateRow(s))
	}
	stateTable, transitionTable := n.lower()+"StateTable", n.lower()+"TransitionTable"
	set("States", jen.Id(stateTable))
	var transitions []jen.Code
	for _, s := range t.States {
		for _, e := range s.Edges() {
			transitions = append(transitions, oneLine(
				pair{jen.Id("From"), jen.Uint16().Call(w.stateID(e.From))},
				pair{jen.Id("On"), edgeCode(e.On)},
				pair{jen.Id("To"), jen.Uint16().Call(w.stateID(e.To))},
			))
		}
	}
	set("Transitions", jen.Id(transitionTable))
	if td := t.Task; td != nil && t.Kind == vocab.KindTool {
		set("Task", w.taskInfo(td))
	}
	jf.Commentf("%s describes %s to the engine: the state table, the transitions, and", n.descriptor(), t.Name)
	jf.Comment("how its continuation is kept.")
	jf.Var().Id(n.descriptor()).Op("=").Qual(pkgImpl, "Descriptor").Add(rows(pairCodes(d)...))
	jf.Line()
	jf.Commentf("%s describes each state, in the order of their numbers.", stateTable)
	jf.Var().Id(stateTable).Op("=").Index().Qual(pkgImpl, "StateInfo").Add(rows(states...))
	jf.Line()
	jf.Commentf("%s lists every transition of the spec: a state may only go", transitionTable)
	jf.Comment("where a row says.")
	jf.Var().Id(transitionTable).Op("=").Index().Qual(pkgImpl, "Transition").Add(rows(transitions...))
	jf.Line()
}

// promptArguments are a prompt's arguments as the MCP prompt declares
// them, one a line.
func (w *workflow) promptArguments() jen.Code {
	return jen.Index().Op("*").Qual(pkgMCP, "PromptArgument").ValuesFunc(func(g *jen.Group) {
		for _, a := range w.t.Arguments {
			pd := []pair{{jen.Id("Name"), jen.Lit(a.Name)}}
			if a.Description != "" {
				pd = append(pd, pair{jen.Id("Description"), jen.Lit(a.Description)})
			}
			if a.Required {
				pd = append(pd, pair{jen.Id("Required"), jen.True()})
			}
			g.Add(oneLine(pd...))
		}
	})
}

// durationCode writes a duration the way a person would: 15 * time.Minute.
func durationCode(d time.Duration) jen.Code {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}} {
		if d%u.d == 0 {
			if d == u.d {
				return jen.Qual("time", u.name)
			}
			return jen.Lit(int(d/u.d)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int64(d)))
}

// jsonLiteral writes JSON as a raw string when it can (readable in review).
func jsonLiteral(b []byte) jen.Code {
	s := string(b)
	for _, r := range s {
		if r == '`' {
			return jen.Lit(s)
		}
	}
	// Not %#q: it falls back to a quoted string for a newline, which a raw
	// string holds.
	return jen.Id("`" + s + "`")
}

// stateRow is the state table's row of s: what the engine and the test
// walker know of it.
func (w *workflow) stateRow(s *spec.State) jen.Code {
	row := []pair{{jen.Id("Name"), jen.Lit(s.Name)}, {jen.Id("Kind"), jen.Qual(pkgVocab, s.Kind.GoName())}}
	var reqs []jen.Code
	for _, q := range s.Requests {
		req := []pair{{jen.Id("Key"), jen.Lit(q.Key)}, {jen.Id("Kind"), requestKind(q.Kind)}}
		if q.Optional {
			req = append(req, pair{jen.Id("Optional"), jen.True()})
		}
		var sensitive []jen.Code
		for _, f := range q.Fields {
			if f.Sensitive {
				sensitive = append(sensitive, jen.Lit(f.Name))
			}
		}
		if len(sensitive) > 0 {
			req = append(req, pair{jen.Id("Sensitive"), jen.Index().String().Values(sensitive...)})
		}
		reqs = append(reqs, oneLine(req...))
	}
	if s.Confirm != nil {
		row := []pair{{jen.Id("Key"), jen.Lit(s.Confirm.Key)}, {jen.Id("Kind"), jen.Qual(pkgVocab, "Elicit")}, {jen.Id("GateField"), jen.Lit(s.Confirm.Field)}}
		if s.Confirm.Typed != nil {
			row = append(row, pair{jen.Id("Typed"), jen.True()})
		}
		reqs = append(reqs, oneLine(row...))
	}
	if len(reqs) > 0 {
		row = append(row, pair{jen.Id("Requests"), jen.Index().Qual(pkgImpl, "RequestInfo").Values(reqs...)})
	}
	if s.Check != nil {
		row = append(row, pair{jen.Id("Check"), jen.Lit(s.Check.Name)})
		if len(s.Outcomes) > 0 {
			var names []jen.Code
			for _, o := range s.Outcomes {
				names = append(names, jen.Lit(o.Name))
			}
			row = append(row, pair{jen.Id("Outcomes"), jen.Index().String().Values(names...)})
		}
	}
	if a := s.AskAgain; a != nil {
		row = append(row, pair{jen.Id("AskAgain"), jen.Lit(a.State.Name)}, pair{jen.Id("MaxAttempts"), jen.Lit(a.MaxAttempts)})
	}
	if g := s.Confirm; g != nil && g.Typed != nil {
		row = append(row, pair{jen.Id("MaxAttempts"), jen.Lit(g.MaxAttempts)})
	}
	if s.Approval() != nil {
		row = append(row, pair{jen.Id("Approval"), jen.True()})
	}
	if s.Kind == vocab.StateAsk && s.OnExhausted != nil {
		row = append(row, pair{jen.Id("MaxAttempts"), jen.Lit(s.MaxAttempts)})
	}
	if uses := w.flowValidatorUses(s); len(uses) > 0 {
		row = append(row, pair{jen.Id("FlowValidators"), jen.Index().String().Values(uses...)})
	}
	if b := s.Branch; b != nil {
		row = append(row, pair{jen.Id("Branch"), jen.Lit(b.On.Name())})
	}
	if s.Kind == vocab.StateTerminal {
		row = append(row, pair{jen.Id("End"), finalOutcome(s.Outcome)})
		if len(s.Output) > 0 {
			row = append(row, pair{jen.Id("Output"), jen.True()})
		}
	}
	if s.Kind == vocab.StateEffect && !isDefaultKey(s.Idempotency) {
		row = append(row, pair{jen.Id("OperationID"), jen.Lit(s.Idempotency.Key.Raw)})
		if businessKey(s) {
			row = append(row, pair{jen.Id("BusinessKey"), jen.True()})
		}
	}
	return oneLine(row...)
}

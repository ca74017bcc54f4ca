package generator

import (
	"fmt"
	"maps"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// The generated transition test suite of a workflow: a fake handler that
// allows everything, counts effects and can be told to refuse, fail or
// branch; fixtures derived from the spec's constraints; the article's test
// matrix (mrtrtest.RunMatrix, which teams also run against their real
// handlers); a scripted run through every transition of the state table;
// and, for every state that asks, proof that answers meant for other
// states are not taken.

const pkgTesting = "testing"

// testFile is <tool>.mrtr_test.go.
func (g *gen) testFile(w *workflow) (File, error) {
	t := w.t
	jf := g.newFile(g.f.Package)
	if err := w.tests(jf); err != nil {
		return File{}, fmt.Errorf("%s %s: generating tests: %w", t.Kind, t.Name, err)
	}
	name := fileBase(t) + ".mrtr_test.go"
	b, decls, err := render(name, jf)
	return File{Path: g.out(name), Kind: Generated, Content: b, decls: decls}, err
}

func (w *workflow) fakeName() string { return "fake" + w.n.base }

// tests emits the test file of the workflow: the fake handler, the
// answers, the driver, the fixtures and the matrix, the transitions, the
// validation tests, the recorded continuations and the rejected inputs.
func (w *workflow) tests(jf *jen.File) error {
	if err := w.fake(jf); err != nil {
		return err
	}
	walks := w.walks()
	fixtures, err := w.fixtures(walks)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(w.t.States, func(s *spec.State) bool { return len(s.Requests) > 0 }) {
		if err := w.answers(jf); err != nil {
			return err
		}
	}
	w.driver(jf)
	w.matrixTests(jf, fixtures, walks)
	if len(walks.transitions) > 0 || len(walks.rejectAt) > 0 || len(walks.approvalAt) > 0 {
		w.fakeProgram(jf)
	}
	if len(walks.transitions) > 0 {
		w.transitionsTest(jf, walks)
	}
	w.validationTests(jf)
	w.validatorTests(jf)
	w.recordedContinuationsTest(jf)
	w.rejectedInputsTest(jf, walks)
	w.approvalsTest(jf, walks)
	return nil
}

// matrixTests emits the fixtures and the matrix test, and the matrix on
// each arm of a value branch when there are variants.
func (w *workflow) matrixTests(jf *jen.File, fixtures jen.Code, walks walkSet) {
	n := w.n
	fake := w.fakeName()
	newProgram := jen.Id(n.newProgram()).Call(jen.Id("h"))
	jf.Commentf("fixtures%s are a valid %s workflow derived from the spec, and the", n.base, w.t.Name)
	jf.Comment("knobs of the fake that provoke each failure.")
	jf.Func().Id("fixtures"+n.base).Params(jen.Id("h").Op("*").Id(fake)).Qual(pkgTest, "Fixtures").Block(jen.Return(fixtures))
	jf.Line()
	jf.Commentf("Test%sMatrix runs the MRTR test matrix against the fake; the matrix steers", n.base)
	jf.Comment("its check outcomes onto a branch that reaches each scenario, and logs the ones")
	jf.Comment("that do not apply. Run the same matrix against your real handler:")
	jf.Commentf("mrtrtest.RunMatrix(t, %s(yours), fixtures), with Fixtures.Variants for the", n.newProgram())
	jf.Comment("branches your fixture workflow does not take.")
	jf.Func().Id("Test"+n.base+"Matrix").Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).Block(
		jen.Id("h").Op(":=").Op("&").Id(fake).Values(),
		jen.Qual(pkgTest, "RunMatrix").Call(jen.Id("t"), newProgram, jen.Id("fixtures"+n.base).Call(jen.Id("h"))),
	)
	jf.Line()
	if len(w.variants(walks.transitions)) > 0 {
		jf.Commentf("Test%sMatrixOnEachArm runs the whole matrix again on each variant: the", n.base)
		jf.Comment("workflow the fake takes with the data of another arm of a value branch.")
		jf.Func().Id("Test" + n.base + "MatrixOnEachArm").Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("fixtures" + n.base).Call(jen.Op("&").Id(fake).Values()).Dot("Variants")).Block(
				jen.Id("t").Dot("Run").Call(jen.Id("v").Dot("Name"), jen.Func().Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).Block(
					jen.Id("h").Op(":=").Op("&").Id(fake).Values(),
					jen.Qual(pkgTest, "RunMatrix").Call(jen.Id("t"), newProgram, jen.Id("fixtures"+n.base).Call(jen.Id("h")).Dot("On").Call(jen.Id("v"))),
				)),
			),
		)
		jf.Line()
	}
}

// walkerTest emits test Test<Base><name>, whose body plays walks on w, a
// walker on new fakes.
func (w *workflow) walkerTest(jf *jen.File, name string, walks func(g *jen.Group)) {
	jf.Func().Id("Test" + w.n.base + name).Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).BlockFunc(func(g *jen.Group) {
		g.Id("w").Op(":=").Qual(pkgTest, "NewWalker").Call(jen.Id(w.fakeProgramName()), jen.Id("fixtures"+w.n.base).Call(jen.Op("&").Id(w.fakeName()).Values()))
		walks(g)
	})
	jf.Line()
}

// transitionsTest emits the walks of the transitions, one line each.
func (w *workflow) transitionsTest(jf *jen.File, walks walkSet) {
	jf.Commentf("Test%sTransitions takes every transition of the state table at least", w.n.base)
	jf.Comment("once. Each walk names the states it passes, and in parentheses the answer or")
	jf.Comment("check outcome that moves it on; mrtrtest plays it round by round on a new fake,")
	jf.Comment("checking the states each round runs, what it asks, how the workflow ends and")
	jf.Comment("how many side effects it performed.")
	w.walkerTest(jf, "Transitions", func(g *jen.Group) {
		for _, wk := range walks.transitions {
			g.Add(wk.call(w, "Walk"))
		}
	})
}

// rejectedInputsTest emits the walks of the rejected (state, input) pairs,
// when there are any.
func (w *workflow) rejectedInputsTest(jf *jen.File, walks walkSet) {
	if len(walks.rejectAt) == 0 {
		return
	}
	jf.Commentf("Test%sRejectedInputs walks to every state that asks and sends there answers", w.n.base)
	jf.Comment("meant for other states (and, at a gate, its confirmation before it was shown):")
	jf.Comment("none is taken, no side effect runs, and the same question is asked again.")
	w.walkerTest(jf, "RejectedInputs", func(g *jen.Group) {
		for _, wk := range walks.rejectAt {
			g.Add(wk.call(w, "RejectAt"))
		}
		for _, wk := range walks.confirmEarly {
			g.Add(wk.call(w, "ConfirmEarly"))
		}
	})
}

// approvalsTest emits the checks of each approval gate's guarantees
// (mrtrtest.Walker.ApprovalAt).
func (w *workflow) approvalsTest(jf *jen.File, walks walkSet) {
	if len(walks.approvalAt) == 0 {
		return
	}
	jf.Commentf("Test%sApprovals walks to every approval gate and checks there that whom the", w.n.base)
	jf.Comment("policy refuses decides nothing (the requester of a four-eyes approval, a principal")
	jf.Comment("the hook did not return, a decision about another action, a yes in the chat), that")
	jf.Comment("an approver decides once, and that the deadline holds on both sides (docs/approvals.md).")
	w.walkerTest(jf, "Approvals", func(g *jen.Group) {
		for _, wk := range walks.approvalAt {
			g.Add(wk.call(w, "ApprovalAt"))
		}
	})
}

// recordedContinuationsTest emits the replay test of the workflow's
// recorded continuations (mrtrtest.Continuations), for a workflow that can
// wait for input.
func (w *workflow) recordedContinuationsTest(jf *jen.File) {
	if !slices.ContainsFunc(w.t.States, func(s *spec.State) bool { return s.Kind.Interactive() }) {
		return
	}
	n := w.n
	name := "Test" + n.base + "RecordedContinuations"
	dir := "testdata/continuations/" + fileBase(w.t)
	jf.Commentf("%s opens the continuations recorded in %s with this", name, dir)
	jf.Comment("build: a spec change that would strand workflows waiting in them across a deploy fails")
	jf.Comment("here, naming the file, the state and the reason (docs/evolution.md). Record them on the")
	jf.Commentf("build that is deployed: %s=1 go test -run %s.", "MRTR_RECORD", name)
	jf.Func().Id(name).Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).Block(
		jen.Id("h").Op(":=").Op("&").Id(w.fakeName()).Values(),
		jen.Qual(pkgTest, "Continuations").Call(jen.Id("t"), jen.Id(n.newProgram()).Call(jen.Id("h")), jen.Id("fixtures"+n.base).Call(jen.Id("h")), jen.Lit(dir)),
	)
	jf.Line()
}

// fake emits the fake handler.
func (w *workflow) fake(jf *jen.File) error {
	name := w.fakeName()
	jf.Commentf("%s implements %s for the generated tests: it allows every", name, w.n.handler())
	jf.Comment(`caller but "mallory"; its mrtrtest.Fake counts effects, fails every check and`)
	jf.Comment("effect while broken, and takes check outcomes from queues; with an empty queue a")
	jf.Comment("check takes the outcome on the shortest way to a successful end.")
	if len(w.askAgainTargets()) > 0 {
		jf.Comment("A check that may ask again does so when its queue says mrtrtest.AskAgainOutcome.")
	}
	if len(w.continuationSources()) > 0 {
		jf.Comment("Its checks and effects set the continuation fields value branches route on.")
	}
	if len(w.usedValidators()) > 0 {
		jf.Comment("Its custom validators accept every value unless told to refuse or fail.")
	}
	// A field, not an embedded mrtrtest.Fake: a check or effect may be
	// called Step, Check or Effect.
	jf.Type().Id(name).Struct(jen.Id("fake").Qual(pkgTest, "Fake"))
	jf.Line()
	jf.Var().Id("_").Id(w.n.handler()).Op("=").Parens(jen.Op("*").Id(name)).Parens(jen.Nil())
	jf.Line()
	recv := func() *jen.Statement { return jen.Func().Params(jen.Id("h").Op("*").Id(name)) }
	fake := jen.Id("h").Dot("fake")
	for _, m := range w.handlerMethods() {
		var body []jen.Code
		switch m.kind {
		case "authorize":
			body = []jen.Code{
				jen.If(jen.Id("f").Dot("Call").Dot("Principal").Op("==").Lit("mallory")).Block(
					jen.Return(jen.Qual(pkgMRTR, "Forbidden").Call(jen.Lit("mallory may not run " + w.t.Name)))),
				jen.Return(jen.Nil()),
			}
		case "check", "effect":
			var err error
			jf.Add(recv()).Id(m.name).Params(m.params...).Params(m.results...).BlockFunc(func(g *jen.Group) { err = w.fakeBody(g, m) })
			jf.Line()
			if err != nil {
				return err
			}
			continue
		case "output":
			var err error
			jf.Add(recv()).Id(m.name).Params(m.params...).Params(m.results...).BlockFunc(func(g *jen.Group) { err = w.fakeOutput(g, w.t.State(m.specName)) })
			jf.Line()
			if err != nil {
				return err
			}
			continue
		case "content":
			body = []jen.Code{jen.Return(jen.Index().Byte().Call(jen.Lit("fake "+m.specName)), jen.Nil())}
		case "transient":
			body = []jen.Code{jen.Var().Id("v").Add(m.results[0]), jen.Return(jen.Id("v"), jen.Nil())}
		case "complete":
			body = []jen.Code{jen.Return(jen.Index().String().Values(jen.Id("value")), jen.Nil())}
		case "approvers":
			body = []jen.Code{jen.Return(jen.Index().String().Values(fakeApprovers(w.t.State(m.specName), m)...), jen.Nil())}
		case "validator":
			validate := "Validate"
			if m.inFlow {
				validate = "ValidateInFlow"
			}
			body = []jen.Code{jen.Return(fake.Clone().Dot(validate).Call(jen.Id("ctx"), jen.Lit(m.specName), jen.Id("value")))}
		}
		jf.Add(recv()).Id(m.name).Params(m.params...).Params(m.results...).Block(body...)
		jf.Line()
	}
	w.fakeValues(jf)
	return nil
}

// fakeBody is the body of a fake's check or effect: mrtrtest.Fake decides
// (an outcome, a refusal that asks again, a failure while broken), and
// what the spec says the method sets is set, as a real handler must; so
// are the continuation fields value branches route on, to the values the
// walk or the matrix chose.
func (w *workflow) fakeBody(g *jen.Group, m handlerMethod) error {
	fake := jen.Id("h").Dot("fake")
	values := w.valueSetters(m.specName)
	sets := len(w.methodSets(m.specName)) > 0 || len(values) > 0
	asksAgain := m.kind == "check" && len(askAgainUses(w.t, m.specName)) > 0
	if len(m.outcomes) > 0 || asksAgain {
		typ, otherwise := w.n.outcome(m.specName), 1
		ret := func(out, err jen.Code) *jen.Statement {
			if len(m.outcomes) > 0 {
				return jen.Return(jen.Id(typ).Call(out), err)
			}
			return jen.Return(err)
		}
		zero := func(err jen.Code) *jen.Statement {
			if len(m.outcomes) > 0 {
				return jen.Return(jen.Lit(0), err)
			}
			return jen.Return(err)
		}
		if len(m.outcomes) > 0 {
			otherwise = w.defaultOutcome(m.specName)
		}
		g.List(jen.Id("out"), jen.Err()).Op(":=").Add(fake.Clone().Dot("Check").Call(jen.Id("ctx"), jen.Lit(m.specName), jen.Lit(otherwise)))
		if asksAgain {
			g.If(jen.Err().Op("==").Nil().Op("&&").Id("out").Op("==").Qual(pkgTest, "AskAgainOutcome")).Block(
				zero(jen.Qual(pkgMRTR, "AskAgain").Call(jen.Lit("%s"), jen.Qual(pkgTest, "FakeAskAgainMessage"))))
		}
		if !sets {
			g.Add(ret(jen.Id("out"), jen.Err()))
			return nil
		}
		g.If(jen.Err().Op("!=").Nil()).Block(zero(jen.Err()))
		var err error
		if len(m.outcomes) > 0 {
			err = w.fakeSets(g, m.specName, m.outcomes, jen.Id("out"), typ)
		} else {
			err = w.fakeSets(g, m.specName, nil, nil, "")
		}
		for _, v := range values {
			g.Add(v)
		}
		g.Add(ret(jen.Id("out"), jen.Nil()))
		return err
	}
	step := "Step"
	if m.kind == "effect" {
		step = "Effect"
	}
	call := fake.Clone().Dot(step).Call(jen.Id("ctx"))
	if !sets {
		g.Return(call)
		return nil
	}
	g.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
	err := w.fakeSets(g, m.specName, nil, nil, "")
	for _, v := range values {
		g.Add(v)
	}
	g.Return(jen.Nil())
	return err
}

// walkSet names the walks of the generated tests (see mrtrtest.Walker).
type walkSet struct {
	transitions  []walk // together, every transition of the state table
	rejectAt     []walk // one to each state that asks
	confirmEarly []walk // one to each confirmation gate
	approvalAt   []walk // one to each approval gate
}

// walk is one walk and the data its value branches need.
type walk struct {
	name string
	path []spec.Edge
	arms choice
}

// call is w.<method>(t, "<walk>"[, arms]).
func (wk walk) call(w *workflow, method string) jen.Code {
	args := []jen.Code{jen.Id("t"), jen.Lit(wk.name)}
	if a := w.armsCode(wk.arms); a != nil {
		args = append(args, a)
	}
	return jen.Id("w").Dot(method).Call(args...)
}

// distance is the length of the shortest takeable walk from the state
// named from to a state done accepts, or false when there is none.
func (w *workflow) distance(from string, done func(string) bool) (int, bool) {
	g := w.graph()
	i, ok := g.Index(from)
	if !ok {
		return 0, done(from)
	}
	p, ok := g.Path(i, func(j int) bool { return done(g.Name(j)) }, func(e machine.Edge) bool {
		return w.takeable(w.t.States[e.From], e.On)
	})
	return len(p), ok
}

// takeable reports whether a test can make the machine take e: declining
// or cancelling an ask needs a form to decline. (A walk leaves an
// approval gate by settling the approval: mrtrtest approves, declines or
// lets it expire before the round goes on.)
func (w *workflow) takeable(s *spec.State, on vocab.Edge) bool {
	if on == vocab.AskAgain || on == vocab.Exhausted {
		return false // only walks that aim at them refuse answers (see walkTo)
	}
	if s.Kind == vocab.StateAsk && on.Leaves() {
		return slices.ContainsFunc(s.Requests, func(q *spec.InputRequest) bool { return q.Kind.Elicitation() })
	}
	return true
}

func (w *workflow) isTerminal(name string) bool {
	s := w.t.State(name)
	return s != nil && s.Kind == vocab.StateTerminal
}

// walks finds walks that take every transition at least once (each the
// shortest way to the transition and on from it to an end), and the
// shortest walk to each state that asks.
func (w *workflow) walks() walkSet {
	var set walkSet
	m := w.arms()
	covered := map[string]bool{}
	edgeID := func(e spec.Edge) string { return e.From + ">" + e.To + ":" + string(e.On) }
	terminal := func(s string, _ masks) bool { return w.isTerminal(s) }
	// A workflow without transitions (one terminal state) still gets one
	// walk: its single round.
	if to, _, ok := w.bfsArms(w.t.Initial, m.all(), terminal); ok && len(w.allEdges()) == 0 {
		set.transitions = append(set.transitions, walk{name: w.pathName(to), path: to, arms: m.choose(m.all())})
	}
	for _, e := range w.allEdges() {
		if covered[edgeID(e)] || (e.On != vocab.AskAgain && e.On != vocab.Exhausted && !w.takeable(w.t.State(e.From), e.On)) {
			continue
		}
		path, ms, ok := w.walkTo(e)
		if !ok {
			continue // unreachable: lint reports it
		}
		tail, ms, ok := w.bfsArms(e.To, ms, terminal)
		if !ok {
			continue
		}
		path = append(path, tail...)
		for _, pe := range path {
			covered[edgeID(pe)] = true
		}
		set.transitions = append(set.transitions, walk{name: w.pathName(path), path: path, arms: m.choose(ms)})
	}
	for _, s := range w.t.States {
		if !s.Interactive() {
			continue
		}
		head, ms, ok := w.bfsArms(w.t.Initial, m.all(), func(x string, _ masks) bool { return x == s.Name })
		if !ok {
			continue
		}
		wk := walk{name: w.pathName(head), path: head, arms: m.choose(ms)}
		if s.Approval() != nil {
			set.approvalAt = append(set.approvalAt, wk)
			continue
		}
		set.rejectAt = append(set.rejectAt, wk)
		if s.Confirm != nil {
			set.confirmEarly = append(set.confirmEarly, wk)
		}
	}
	return set
}

// walkTo is the shortest walk from the initial state that ends taking e,
// with the cells left. To take a check's exhausted edge, the walk first
// asks again until the attempts are used up: maxAttempts-1 refusals, each
// back to the ask and on to the check again.
func (w *workflow) walkTo(e spec.Edge) ([]spec.Edge, masks, bool) {
	m := w.arms()
	head, ms, ok := w.bfsArms(w.t.Initial, m.all(), func(s string, ms masks) bool {
		if s != e.From {
			return false
		}
		_, ok := m.take(ms, e)
		return ok
	})
	if !ok {
		return nil, nil, false
	}
	// An ask's own exhausted edge needs no loop in the walk: its validators
	// with context refuse its answers in the state itself, and the walker
	// plays those rounds (mrtrtest).
	if from := w.t.State(e.From); e.On == vocab.Exhausted && from.AskAgain != nil {
		again := spec.Edge{From: from.Name, To: from.AskAgain.State.Name, On: vocab.AskAgain, Pos: from.AskAgain.State.Pos}
		for range from.AskAgain.MaxAttempts - 1 {
			loop, next, ok := w.bfsArms(again.To, ms, func(s string, _ masks) bool { return s == from.Name })
			if !ok {
				return nil, nil, false
			}
			head = append(append(head, again), loop...)
			ms = next
		}
	}
	ms, ok = m.take(ms, e)
	return append(head, e), ms, ok
}

func (w *workflow) allEdges() []spec.Edge {
	var out []spec.Edge
	for _, s := range w.t.States {
		out = append(out, s.Edges()...)
	}
	return out
}

// pathName is the name of a walk (machine.Graph.Walk).
func (w *workflow) pathName(path []spec.Edge) string {
	g := w.graph()
	var es []machine.Edge
	for _, e := range path {
		to, _ := g.Index(e.To)
		es = append(es, machine.Edge{To: to, On: e.On})
	}
	initial, _ := g.Index(w.t.Initial)
	return g.Walk(initial, es)
}

// fakeProgramName names the test file's constructor of the program on a
// fake, which mrtrtest's walks use.
func (w *workflow) fakeProgramName() string { return "newFake" + w.n.base }

// fakeProgram emits newFake<Tool>: the program on a new fake whose checks
// take the outcomes a walk needs.
func (w *workflow) fakeProgram(jf *jen.File) {
	jf.Commentf("%s is %s on a new fake whose checks take outcomes (for mrtrtest's walks).", w.fakeProgramName(), w.t.Name)
	jf.Func().Id(w.fakeProgramName()).Params(jen.Id("outcomes").Map(jen.String()).Index().Uint8()).
		Params(jen.Qual(pkgMRTR, "Program").Types(jen.Op("*").Id(w.n.flow())), jen.Func().Params().Int()).
		Block(
			jen.Id("h").Op(":=").Op("&").Id(w.fakeName()).Values(jen.Id("fake").Op(":").Qual(pkgTest, "Fake").Values(jen.Id("Outcomes").Op(":").Id("outcomes"))),
			jen.Return(jen.Id(w.n.newProgram()).Call(jen.Id("h")), jen.Id("h").Dot("fake").Dot("Effects")),
		)
	jf.Line()
}

// answersName names the test file's valid answers, by request key.
func (w *workflow) answersName() string { return "answers" + w.n.base }

// answers emits the valid answer to every input request of the tool: the
// fixtures' Answers, which the matrix and the walks send. Forms are
// answered with their typed answer structs, so every generated test
// also proves that a struct's InputResponse is an answer validation takes.
func (w *workflow) answers(jf *jen.File) error {
	answers, err := w.typedAnswers()
	if err != nil {
		return err
	}
	jf.Commentf("%s are valid answers to the input requests of %s, derived from the spec.", w.answersName(), w.t.Name)
	jf.Var().Id(w.answersName()).Op("=").Add(answers)
	jf.Line()
	return nil
}

// typedAnswers is the mrtrtest.Answers call of a valid answer to every
// input request, by key.
func (w *workflow) typedAnswers() (jen.Code, error) {
	answers := map[string]jen.Code{}
	for _, s := range w.t.States {
		for _, q := range s.Requests {
			code, err := w.typedAnswer(q)
			if err != nil {
				return nil, err
			}
			answers[q.Key] = code
		}
	}
	var list []jen.Code
	for _, key := range slices.Sorted(maps.Keys(answers)) {
		list = append(list, answers[key])
	}
	return jen.Qual(pkgTest, "Answers").Add(callArgs(list)), nil
}

// callArgs are the arguments of a call, one a line when there are several.
func callArgs(list []jen.Code) *jen.Statement {
	if len(list) < 2 {
		return jen.Call(list...)
	}
	return jen.Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, list...)
}

// validAnswer is a valid answer to a request, derived from its constraints.
func (w *workflow) validAnswer(q *spec.InputRequest) (jen.Code, error) {
	switch q.Kind {
	case vocab.ElicitURL:
		return jen.Qual(pkgTest, "URLAccepted").Call(), nil
	case vocab.Sample:
		text := "A sampled answer."
		if q.MaxLength != nil && len(text) > *q.MaxLength {
			text = text[:*q.MaxLength]
		}
		return jen.Qual(pkgTest, "Text").Call(jen.Lit(text)), nil
	case vocab.Roots:
		n := 1
		if q.MinItems != nil && *q.MinItems > n {
			n = *q.MinItems
		}
		n = min(n, q.MaxItems)
		var uris []jen.Code
		for i := range n {
			uris = append(uris, jen.Lit(fmt.Sprintf("file:///workspace/%d", i+1)))
		}
		return jen.Qual(pkgTest, "RootsOf").Call(uris...), nil
	}
	fields, err := answeredFields(q)
	if err != nil {
		return nil, err
	}
	content := jen.Dict{}
	for _, a := range fields {
		content[jen.Lit(a.f.Name)] = valueCode(a.v)
	}
	return jen.Qual(pkgTest, "Accept").Call(jen.Map(jen.String()).Any().Values(content)), nil
}

// invalidAnswer is an answer validation must refuse, or nil when the form
// accepts anything of the right shape.
func (w *workflow) invalidAnswer(q *spec.InputRequest) jen.Code {
	switch q.Kind {
	case vocab.ElicitURL:
		return nil // any accept is the same answer
	case vocab.Sample:
		if q.MaxLength == nil {
			return nil
		}
		return jen.Qual(pkgTest, "Text").Call(jen.Qual("strings", "Repeat").Call(jen.Lit("x"), jen.Lit(*q.MaxLength+1)))
	case vocab.Roots:
		var uris []jen.Code
		for i := range q.MaxItems + 1 {
			uris = append(uris, jen.Lit(fmt.Sprintf("file:///workspace/%d", i+1)))
		}
		return jen.Qual(pkgTest, "RootsOf").Call(uris...)
	}
	for _, f := range q.Fields {
		if f.Required {
			content := jen.Dict{}
			for _, other := range q.Fields {
				if other.Required && other != f {
					v, err := exampleValue(other, 0)
					if err != nil {
						return nil
					}
					content[jen.Lit(other.Name)] = valueCode(v)
				}
			}
			// The wrong type for the field.
			wrong := jen.Lit("not a number")
			if f.Type == spec.TypeString || f.Type == spec.TypeEnum {
				wrong = jen.Lit(12345)
			}
			content[jen.Lit(f.Name)] = wrong
			return jen.Qual(pkgTest, "Accept").Call(jen.Map(jen.String()).Any().Values(content))
		}
	}
	return nil
}

// valueCode is the Go literal of a JSON example value.
func valueCode(v any) jen.Code {
	switch x := v.(type) {
	case []any:
		vals := make([]jen.Code, len(x))
		for i, e := range x {
			vals[i] = valueCode(e)
		}
		return jen.Index().Any().Values(vals...)
	case []string:
		vals := make([]jen.Code, len(x))
		for i, e := range x {
			vals[i] = jen.Lit(e)
		}
		return jen.Index().Any().Values(vals...)
	}
	return jen.Lit(v)
}

// argsLiteral is a valid arguments object (variant 1: another valid one).
func (w *workflow) argsLiteral(variant int) jen.Code {
	values := map[string]jen.Code{}
	for _, a := range w.t.Arguments {
		if !a.Required {
			continue
		}
		v, err := exampleValue(a, variant)
		if err != nil {
			return jen.Nil()
		}
		values[a.Name] = valueCode(v)
	}
	return jen.Map(jen.String()).Any().Add(oneLine(sortedPairs(slices.Collect(maps.Keys(values)), func(k string) jen.Code { return values[k] })...))
}

// fixtures is the mrtrtest.Fixtures literal for the fake: the fixture
// workflow, and the fake's knobs.
func (w *workflow) fixtures(walks walkSet) (jen.Code, error) {
	d, err := w.fixtureFields(jen.Id(w.answersName()))
	if err != nil {
		return nil, err
	}
	if w.hasHandlerStep() {
		d[jen.Id("Effects")] = jen.Id("h").Dot("fake").Dot("Effects")
		d[jen.Id("Break")] = jen.Id("h").Dot("fake").Dot("Break")
	}
	// The fake is steered by check outcomes, by a check's refusals
	// (askAgain) and by the continuation values branches read.
	if slices.ContainsFunc(w.t.States, func(s *spec.State) bool { return len(s.Outcomes) > 0 || s.AskAgain != nil }) || len(w.continuationSources()) > 0 {
		d[jen.Id("Steer")] = jen.Id("h").Dot("fake").Dot("Steer")
	}
	if variants := w.variants(walks.transitions); len(variants) > 0 {
		d[jen.Id("Variants")] = jen.Index().Qual(pkgTest, "Variant").Add(rows(variants...))
	}
	return jen.Qual(pkgTest, "Fixtures").Values(d), nil
}

// hasHandlerStep reports whether the workflow has a check or an effect: a
// handler dependency that can fail.
func (w *workflow) hasHandlerStep() bool {
	return slices.ContainsFunc(w.t.States, func(s *spec.State) bool {
		return s.Kind == vocab.StateCheck || s.Kind == vocab.StateEffect
	})
}

// fixtureFields are the fields of the fixtures any handler can take: the
// fixture workflow (arguments, answers, how it ends), invalid answers,
// other arguments and callers. answers are the valid answers, when the
// workflow asks.
func (w *workflow) fixtureFields(answers jen.Code) (jen.Dict, error) {
	for _, a := range w.t.Arguments {
		if _, err := exampleValue(a, 0); err != nil {
			return nil, err
		}
	}
	// The fixture workflow is what the fake does by default: the outcome
	// on the shortest way to a successful end, answers accepted, gates
	// confirmed. The matrix steers the fake (Fake.Steer) onto the other
	// branches a scenario needs, so every request gets an invalid answer,
	// on the default path or not.
	defaultPath := w.defaultPath()
	hasRequests := false
	invalid := jen.Dict{}
	for _, s := range w.t.States {
		for _, q := range s.Requests {
			hasRequests = true
			if w.t.AskersOf(q)[0] != s {
				continue // a question: one answer by key
			}
			if bad := w.invalidAnswer(q); bad != nil {
				invalid[jen.Lit(q.Key)] = bad
			}
		}
	}
	want := vocab.OutcomeSuccess
	if last := w.t.State(defaultPath[len(defaultPath)-1]); last != nil && last.Kind == vocab.StateTerminal {
		want = last.Outcome
	}
	d := jen.Dict{
		jen.Id("Args"):         w.argsLiteral(0),
		jen.Id("WantOutcome"):  finalOutcome(want),
		jen.Id("Other"):        jen.Lit("bob"),
		jen.Id("Unauthorized"): jen.Lit("mallory"),
	}
	if hasRequests {
		d[jen.Id("Answers")] = answers
	}
	if len(w.t.Arguments) > 0 {
		if other := w.argsLiteral(1); !sameArgs(w, 0, 1) {
			d[jen.Id("OtherArgs")] = other
		}
	}
	if len(invalid) > 0 {
		d[jen.Id("Invalid")] = jen.Map(jen.String()).Qual(pkgMCP, "InputResponse").Values(invalid)
	}
	notApplicable := jen.Dict{}
	if len(invalid) == 0 && hasRequests {
		// Said in the test, and logged by the matrix, rather than skipped.
		notApplicable[jen.Qual(pkgTest, "ScenarioInvalid")] = jen.Lit(fmt.Sprintf("no request of %s has a constraint an answer can break", w.t.Name))
	}
	if len(notApplicable) > 0 {
		d[jen.Id("NotApplicable")] = jen.Map(jen.String()).String().Values(notApplicable)
	}
	return d, nil
}

// defaultOutcome is the outcome (1-based) the fake gives a check when no
// script says otherwise: the branch on the shortest way to a successful
// end (else to any end), so a default run finishes and, where it can,
// succeeds.
func (w *workflow) defaultOutcome(check string) int {
	s := w.firstCheckState(check)
	if s == nil || len(s.Outcomes) == 0 {
		return 1
	}
	distance := func(from string, done func(string) bool) int {
		n, ok := w.distance(from, done)
		if !ok {
			return 1 << 20
		}
		return n
	}
	success := func(name string) bool {
		st := w.t.State(name)
		return st != nil && st.Kind == vocab.StateTerminal && st.Outcome == vocab.OutcomeSuccess
	}
	best, bestDist := 1, 1<<21
	for i, b := range s.Outcomes {
		d := distance(b.Target.Name, success)
		if d >= 1<<20 {
			d = 1<<20 + distance(b.Target.Name, w.isTerminal)
		}
		if b.Target.Name == s.Name {
			d = 1 << 22 // never loop back by default
		}
		if d < bestDist {
			best, bestDist = i+1, d
		}
	}
	return best
}

// defaultPath is the states the fake runs with default behaviour.
func (w *workflow) defaultPath() []string { return w.pathWith(w.arms().defaultChoice()) }

// pathWith is the states the fake runs with default behaviour when the
// value branches take the arms of c.
func (w *workflow) pathWith(c choice) []string {
	path := []string{w.t.Initial}
	seen := map[string]int{}
	cur := w.t.State(w.t.Initial)
	for cur != nil && cur.Kind != vocab.StateTerminal && seen[cur.Name] < 2 {
		seen[cur.Name]++
		var next string
		switch {
		case cur.Next != nil:
			next = cur.Next.Name
		case len(cur.Outcomes) > 0:
			next = cur.Outcomes[w.defaultOutcome(cur.Check.Name)-1].Target.Name
		case cur.Branch != nil:
			if e := w.armAt(cur, c); e != nil {
				next = e.To
			}
		}
		if next == "" {
			break
		}
		path = append(path, next)
		cur = w.t.State(next)
	}
	return path
}

func sameArgs(w *workflow, a, b int) bool {
	for _, f := range w.t.Arguments {
		if !f.Required {
			continue
		}
		x, err1 := exampleValue(f, a)
		y, err2 := exampleValue(f, b)
		if err1 != nil || err2 != nil {
			return true
		}
		if fmt.Sprint(x) != fmt.Sprint(y) {
			return false
		}
	}
	return true
}

package generator

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// ScaffoldTestSkip is the t.Skip line of a scaffolded handler test: the
// scaffold's handler refuses everything until it is written, so its test
// waits for the user to give it arguments and answers their handler knows.
const ScaffoldTestSkip = "scaffold: give it arguments and answers your handler knows, then delete this line"

// stubTestFile is <tool>_handler_test.go, a scaffold of the tests of the
// real handler: one workflow driven with typed arguments and answers
// (Drive<Tool>), and the MRTR matrix. It is written with a fresh handler
// scaffold only, so that a test file the user deleted or renamed does not
// come back, and never when the handler lives elsewhere. A zero File
// means none.
func (g *gen) stubTestFile(w *workflow) (File, error) {
	t := w.t
	if g.handlerElsewhere(w) != "" || g.scaffoldExists(stubName(t)) {
		return File{}, nil
	}
	name := fileBase(t) + "_handler_test.go"
	if g.scaffoldExists(name) {
		return File{Path: g.out(name), Kind: Scaffold, decls: w.stubTestNames()}, nil
	}
	jf := jen.NewFile(g.f.Package)
	for _, line := range strings.Split(ScaffoldHeader, "\n") {
		jf.HeaderComment(line)
	}
	jf.ImportName(pkgMRTR, "mrtr")
	jf.ImportName(pkgMCP, "mcp")
	jf.ImportName(pkgJSONForm, "jsonform")
	jf.ImportName(pkgTest, "mrtrtest")
	if err := w.stubDriveTest(jf); err != nil {
		return File{}, err
	}
	if err := w.stubMatrixTest(jf); err != nil {
		return File{}, err
	}
	b, decls, err := render(name, jf)
	return File{Path: g.out(name), Kind: Scaffold, Content: b, decls: decls}, err
}

// stubTestNames are the names the test scaffold declares.
func (w *workflow) stubTestNames() []string {
	return []string{"Test" + w.n.base + "Handler", "Test" + w.n.base + "HandlerMatrix"}
}

func (w *workflow) implName() string { return w.n.base + "Impl" }

// stubDriveTest emits Test<Tool>Handler: the workflow the fake takes by
// default (checks on the way to a successful end, answers valid, gates
// confirmed), played against the real handler.
func (w *workflow) stubDriveTest(jf *jen.File) error {
	n := w.n
	args, err := w.typedArgs(0)
	if err != nil {
		return err
	}
	body := []jen.Code{
		jen.Id("t").Dot("Skip").Call(jen.Lit(ScaffoldTestSkip)),
		jen.Id("h").Op(":=").Qual(pkgTest, "New").Call(jen.Id("t"), jen.Id(n.newProgram()).Call(jen.Op("&").Id(w.implName()).Values())),
		jen.Id("d").Op(":=").Id(w.driveName()).Call(jen.Id("t"), jen.Id("h"), args),
	}
	for _, name := range w.defaultPath() {
		if st := w.t.State(name); st.Approval() != nil {
			// An approval, not an answer, passes the gate: approvers the
			// policy admits decide it (the handler's hook must return them).
			body = append(body, jen.Commentf("%s is an approval gate (docs/approvals.md): approvers the policy admits decide it,", name),
				jen.Comment("not an answer in this chat (your Approvers hook must return them)."),
				jen.Id("d").Dot("WantAsks").Call(jen.Lit(st.Confirm.Key)))
			for _, p := range fakePrincipals[:st.Approval().Count] {
				body = append(body, jen.Id("d").Dot("ApproveAs").Call(jen.Lit(p), jen.Lit("checked")))
			}
			continue
		}
		steps, err := w.driveSteps(w.t.State(name))
		if err != nil {
			return err
		}
		body = append(body, steps...)
	}
	jf.Commentf("Test%sHandler drives %s through one %s workflow as a client would:", n.base, w.implName(), w.t.Name)
	jf.Comment("typed arguments, each question answered with its typed answer, what it asks and how it")
	jf.Comment("ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As")
	jf.Comment("another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal")
	jf.Commentf("(\"alice\" unless you set it): set h.Principal before %s to start one as another caller.", w.driveName())
	jf.Func().Id("Test" + n.base + "Handler").Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).Block(body...)
	jf.Line()
	return nil
}

// driveSteps are the driver calls for state s of the default path: what
// it asks and the answers, or how the workflow ends.
func (w *workflow) driveSteps(s *spec.State) ([]jen.Code, error) {
	d := jen.Id("d")
	switch s.Kind {
	case vocab.StateAsk:
		var keys []string
		for _, q := range s.Requests {
			keys = append(keys, q.Key)
		}
		slices.Sort(keys)
		var answers []jen.Code
		for _, key := range keys {
			a, err := w.typedAnswer(s.Request(key))
			if err != nil {
				return nil, err
			}
			answers = append(answers, a)
		}
		return []jen.Code{
			d.Clone().Dot("WantAsks").Call(lits(keys)...),
			d.Clone().Dot("Answer").Add(callArgs(answers)),
		}, nil
	case vocab.StateConfirm:
		return []jen.Code{d.Clone().Dot("WantAsks").Call(jen.Lit(s.Confirm.Key)), d.Clone().Dot("Confirm").Call()}, nil
	case vocab.StateTerminal:
		return []jen.Code{d.Clone().Dot("WantEnd").Call(finalOutcome(s.Outcome), jen.Lit(""))}, nil
	}
	return nil, nil
}

func lits(ss []string) []jen.Code {
	out := make([]jen.Code, len(ss))
	for i, s := range ss {
		out[i] = jen.Lit(s)
	}
	return out
}

// stubMatrixTest emits Test<Tool>HandlerMatrix: the matrix against the
// real handler, with the fixtures the fake's tests use but the fake's
// knobs.
func (w *workflow) stubMatrixTest(jf *jen.File) error {
	n := w.n
	answers, err := w.typedAnswers()
	if err != nil {
		return err
	}
	fields, err := w.fixtureFields(answers)
	if err != nil {
		return err
	}
	jf.Commentf("Test%sHandlerMatrix runs the MRTR test matrix against %s.", n.base, w.implName())
	if w.hasHandlerStep() {
		jf.Comment("Give the fixtures Effects (a count of the side effects your handler performed) and")
		jf.Comment("Break (it makes your handler's dependencies fail until restored); Fixtures.Variants")
		jf.Comment("for the branches the fixture workflow does not take; Fixtures.Scenarios for a")
		jf.Comment("scenario that needs other callers or arguments.")
	} else {
		jf.Comment("Fixtures.Variants cover the branches the fixture workflow does not take;")
		jf.Comment("Fixtures.Scenarios a scenario that needs other callers or arguments.")
	}
	jf.Func().Id("Test"+n.base+"HandlerMatrix").Params(jen.Id("t").Op("*").Qual(pkgTesting, "T")).Block(
		jen.Id("t").Dot("Skip").Call(jen.Lit(ScaffoldTestSkip)),
		jen.Id("h").Op(":=").Op("&").Id(w.implName()).Values(),
		jen.Qual(pkgTest, "RunMatrix").Call(jen.Id("t"), jen.Id(n.newProgram()).Call(jen.Id("h")), jen.Qual(pkgTest, "Fixtures").Values(fields)),
	)
	jf.Line()
	return nil
}

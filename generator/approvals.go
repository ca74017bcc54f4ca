package generator

import (
	"fmt"
	"strconv"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Approval gates (docs/approvals.md): a confirmation gate with an approval
// policy is passed by the approval record, which mrtrimpl.X.Approve asks the
// engine for, not by the chat's answer. The gate's own form (its builder)
// is still the question the chat is shown; its message is the summary the
// approvers decide on.

const pkgApproval = "github.com/mrtrgen/mrtrgen/mrtr/approval"

// approvalFunc names the program's method that describes approval gate s.
func (w *workflow) approvalFunc(s *spec.State) string { return "approval" + spec.GoName(s.Name) }

// approversMethod and escalationMethod name the handler's hooks that
// resolve gate s's roles to principals.
func approversMethod(s *spec.State) string  { return spec.GoName(s.Name) + "Approvers" }
func escalationMethod(s *spec.State) string { return spec.GoName(s.Name) + "Escalation" }

// approvalMethods are the handler's hooks of approval gate s: one per role
// the policy names.
func (w *workflow) approvalMethods(s *spec.State, ctxParam, flowParam jen.Code) []handlerMethod {
	a := s.Approval()
	if a == nil {
		return nil
	}
	results := []jen.Code{jen.Index().String(), jen.Error()}
	var ms []handlerMethod
	if a.Approvers != "" {
		ms = append(ms, handlerMethod{name: approversMethod(s), kind: "approvers", specName: s.Name, role: a.Approvers,
			params: []jen.Code{ctxParam, flowParam}, results: results,
			doc: []string{
				fmt.Sprintf("%s resolves role %q of approval gate %s to the principals who may approve", approversMethod(s), a.Approvers, s.Name),
				"f's action (as f.Call.Principal names them). It is called when the approval is requested;",
				"a principal it does not return cannot approve. " + requesterDoc(a.Requester),
			}})
	}
	if a.EscalateTo != "" {
		ms = append(ms, handlerMethod{name: escalationMethod(s), kind: "approvers", specName: s.Name, role: a.EscalateTo,
			params: []jen.Code{ctxParam, flowParam}, results: results,
			doc: []string{
				fmt.Sprintf("%s resolves role %q, to whom approval gate %s escalates %s after the request,", escalationMethod(s), a.EscalateTo, s.Name, spec.DurationText(a.Escalate)),
				"to principals: they are notified then, and may approve from then on.",
			}})
	}
	return ms
}

// requesterDoc says what the requester may do under rule r.
func requesterDoc(r string) string {
	switch r {
	case spec.RequesterPage:
		return "The requester may approve too, on the approval page."
	case spec.RequesterChat:
		return "The requester may approve too, on the approval page or in the chat."
	}
	return "The requester cannot approve, even if returned (four eyes)."
}

// requesterCode is the approval.Requester constant of rule r.
func requesterCode(r string) *jen.Statement {
	switch r {
	case spec.RequesterPage:
		return jen.Qual(pkgApproval, "RequesterPage")
	case spec.RequesterChat:
		return jen.Qual(pkgApproval, "RequesterChat")
	}
	return jen.Qual(pkgApproval, "RequesterExcluded")
}

// approvalFuncDecl emits the method that describes approval gate s to the
// engine each time the gate runs: its form, summary, policy and hooks.
func (w *workflow) approvalFuncDecl(jf *jen.File, s *spec.State) {
	a, g := s.Approval(), s.Confirm
	policy := jen.Dict{
		jen.Id("Count"):     jen.Lit(a.Count),
		jen.Id("Requester"): requesterCode(a.Requester),
		jen.Id("Deadline"):  durationCode(a.Deadline),
		jen.Id("Revision"):  jen.Lit(strconv.FormatInt(int64(gateDigest(s)), 10)),
	}
	if a.Approvers != "" {
		policy[jen.Id("Role")] = jen.Lit(a.Approvers)
	}
	if len(a.Remind) > 0 {
		var ds []jen.Code
		for _, d := range a.Remind {
			ds = append(ds, durationCode(d))
		}
		policy[jen.Id("Remind")] = jen.Index().Qual("time", "Duration").Values(ds...)
	}
	if a.Escalate > 0 {
		policy[jen.Id("Escalate")] = durationCode(a.Escalate)
		policy[jen.Id("EscalateRole")] = jen.Lit(a.EscalateTo)
	}
	gate := jen.Dict{
		jen.Id("Gate"):    jen.Lit(s.Name),
		jen.Id("Key"):     jen.Lit(g.Key),
		jen.Id("Field"):   jen.Lit(g.Field),
		jen.Id("Summary"): jen.Id(w.templateFunc(s.Name, "Message")).Call(jen.Id("f")),
		jen.Id("Form"):    jen.Qual(pkgImpl, "Bind").Call(jen.Id("p").Dot(w.gateBuilder(s)), jen.Id("f")),
		jen.Id("Policy"):  jen.Qual(pkgApproval, "Policy").Values(policy),
	}
	hook := func(name string) jen.Code {
		return jen.Func().Params(jen.Id("ctx").Qual("context", "Context")).Params(jen.Index().String(), jen.Error()).Block(
			jen.Return(jen.Id("p").Dot("h").Dot(name).Call(jen.Id("ctx"), jen.Id("f"))))
	}
	if a.Approvers != "" {
		gate[jen.Id("Approvers")] = hook(approversMethod(s))
	}
	if a.EscalateTo != "" {
		gate[jen.Id("Escalation")] = hook(escalationMethod(s))
	}
	jf.Commentf("%s describes approval gate %s to the engine: the summary the approvers decide on", w.approvalFunc(s), s.Name)
	jf.Commentf("(the gate's message), its chat form, and the policy: %s.", a.Summary())
	jf.Func().Params(jen.Id("p").Id(w.n.program())).Id(w.approvalFunc(s)).Params(jen.Id("f").Op("*").Id(w.n.flow())).Op("*").Qual(pkgImpl, "ApprovalGate").Block(
		jen.Return(jen.Op("&").Qual(pkgImpl, "ApprovalGate").Values(gate)),
	)
	jf.Line()
}

// approvalCase is the step of approval gate s: mrtrimpl.X.Approve says how
// the approval was decided, or hands back the step that waits for it.
func (w *workflow) approvalCase(c *jen.Group, s *spec.State) {
	c.List(jen.Id("on"), jen.Id("wait"), jen.Err()).Op(":=").Add(implX("Approve")).Call(jen.Id("ctx"), jen.Id("r"), jen.Id("p").Dot(w.approvalFunc(s)).Call(jen.Id("f")))
	expired := jen.Return(jen.Id("r").Dot("Finish").Call(jen.Qual(pkgMRTR, "Final").Add(oneLine(
		pair{jen.Id("Outcome"), finalOutcome(vocab.OutcomeExpired)},
		pair{jen.Id("Text"), jen.Lit(fmt.Sprintf("%s: the approval's deadline passed before it was approved.", w.t.Name))},
	))))
	if s.OnExpire != nil {
		expired = w.goTo(s.OnExpire.Name, vocab.Expire)
	}
	c.Switch(jen.Id("on")).Block(
		// The continuation carries what was approved (see passedField).
		jen.Case(jen.Qual(pkgVocab, "Next")).Block(jen.Id("f").Dot(passedField(s)).Op("=").True(), w.goTo(s.Next.Name, vocab.Next)),
		jen.Case(jen.Qual(pkgVocab, "Decline")).Block(w.leave(s.OnDecline, vocab.Decline, "the approval was declined")),
		jen.Case(jen.Qual(pkgVocab, "Cancel")).Block(w.leave(s.OnCancel, vocab.Cancel, "the approval was withdrawn")),
		jen.Case(jen.Qual(pkgVocab, "Expire")).Block(expired),
		jen.Default().Block(jen.Return(jen.Id("wait"), jen.Err())),
	)
}

// approvalDigest adds gate s's approval policy to its digest: a build
// whose policy differs does not take a continuation that passed the gate
// under another.
func approvalDigest(s *spec.State) string {
	a := s.Approval()
	if a == nil {
		return ""
	}
	remind := ""
	for _, d := range a.Remind {
		remind += strconv.FormatInt(int64(d/time.Millisecond), 10) + ","
	}
	return fmt.Sprintf("\x00approval\x00%s\x00%d\x00%s\x00%d\x00%s\x00%d\x00%s", a.Approvers, a.Count, a.Requester, a.Deadline/time.Millisecond, remind, a.Escalate/time.Millisecond, a.EscalateTo)
}

// fakePrincipals are the principals the generated fake's approval hooks
// return: "bob", the fixtures' other caller, first; as many as the policy
// counts (the escalation: one more).
var fakePrincipals = []string{"bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "ken", "oscar"}

// fakeApprovers is what the fake's approval hook m of gate s returns.
func fakeApprovers(s *spec.State, m handlerMethod) []jen.Code {
	a := s.Approval()
	names := fakePrincipals[:a.Count]
	if m.name == escalationMethod(s) {
		names = fakePrincipals[len(fakePrincipals)-1:]
	}
	var out []jen.Code
	for _, n := range names {
		out = append(out, jen.Lit(n))
	}
	return out
}

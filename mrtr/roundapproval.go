package mrtr

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/response"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/stepkind"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Approval gates (docs/approvals.md). A gate with an approval policy asks
// package approval for the approval of exactly the action the workflow is
// about to let through, and passes only when that record is approved and
// taken by this workflow. The chat's answer is one way to decide, where
// the policy lets the requester; the record, not the answer, is what
// passes the gate. While the record waits, the round offers the approval
// page's link in whatever way the client can take it.

// Approve implements mrtrimpl's approver: the engine's side of
// mrtrimpl.X.Approve.
func (r *round) Approve(ctx context.Context, g *mrtrimpl.ApprovalGate) (vocab.Edge, mrtrimpl.Step, error) {
	svc := r.e.cfg.Approvals
	if svc == nil {
		return "", mrtrimpl.Step{}, fmt.Errorf("mrtr: %s: gate %s needs an approval, but Config.Approvals is not set", r.d.Name, g.Gate)
	}
	if r.call.Principal == "" {
		step, err := r.Finish(Final{Outcome: vocab.OutcomeUnauthorized, Text: fmt.Sprintf("%s needs an approval, and an approval needs a signed-in caller: sign in and call it again.", r.d.Name)})
		return "", step, err
	}
	a := approval.Action{
		Tool: r.d.Name, Gate: g.Gate, Workflow: r.workflow, Requester: r.call.Principal,
		Summary: g.Summary, Digest: r.approvalDigest(g),
	}
	if r.req.task != nil {
		a.Waiter = r.req.task.id
	}
	a.Resolve = func(ctx context.Context) (approvers, escalation []string, err error) {
		if g.Approvers != nil {
			if approvers, err = resolved(g.Approvers(ctx)); err != nil {
				return nil, nil, fmt.Errorf("gate %s: resolving the approvers: %w", g.Gate, err)
			}
		}
		if g.Escalation != nil {
			if escalation, err = resolved(g.Escalation(ctx)); err != nil {
				return nil, nil, fmt.Errorf("gate %s: resolving the escalation: %w", g.Gate, err)
			}
		}
		return approvers, escalation, nil
	}
	// The approval's store calls are bounded as the engine's are (a few
	// calls each: the read, a retried compare-and-swap).
	ctx, cancel := context.WithTimeout(ctx, 4*r.e.cfg.StoreTimeout)
	defer cancel()
	// Two passes at most: a decided record another workflow took first
	// leaves this one to request the action anew.
	for range 2 {
		rec, err := svc.Request(ctx, a, g.Policy)
		if err != nil {
			return "", mrtrimpl.Step{}, err
		}
		if rec, err = r.chatDecision(ctx, svc, g, rec); err != nil {
			return "", mrtrimpl.Step{}, err
		}
		if rec.State == approval.Pending {
			step, err := r.awaitApproval(g, svc, rec)
			return "", step, err
		}
		rec, err = svc.Consume(ctx, rec.ID, r.workflow)
		var refusal *approval.Refusal
		if errors.As(err, &refusal) && refusal.Code == approval.CodeConsumed {
			continue
		}
		if err != nil {
			return "", mrtrimpl.Step{}, err
		}
		r.call.Logger.InfoContext(ctx, "mrtr: approval gate", "gate", g.Gate, "approval", rec.ID, "state", string(rec.State))
		switch rec.State {
		case approval.Approved:
			return vocab.Next, mrtrimpl.Step{}, nil
		case approval.Declined:
			return vocab.Decline, mrtrimpl.Step{}, nil
		case approval.Expired:
			return vocab.Expire, mrtrimpl.Step{}, nil
		}
		return vocab.Cancel, mrtrimpl.Step{}, nil // withdrawn
	}
	return "", mrtrimpl.Step{}, errors.New("mrtr: the approval kept being taken by other calls")
}

// resolved turns a hook's nil list into an empty one: a role the hook
// resolved to nobody admits nobody (the record's nil means "anyone").
func resolved(principals []string, err error) ([]string, error) {
	if err == nil && principals == nil {
		principals = []string{}
	}
	return principals, err
}

// chatDecision records the requester's answer in the chat. Where the
// policy lets them decide there (requester: chat), their answer to the
// gate's form decides: accepting with the boolean set approves, false or
// decline declines, cancel withdraws the request. Under the other rules,
// the round offered the approval page instead, and declining or
// cancelling that offer withdraws the request (the requester gave up);
// accepting it only says to look again. Only an answer to the question
// as it was sent in the previous round counts: not one given up front in
// the "inputs" argument, which a model writes.
func (r *round) chatDecision(ctx context.Context, svc *approval.Service, g *mrtrimpl.ApprovalGate, rec *approval.Record) (*approval.Record, error) {
	if rec.State != approval.Pending {
		return rec, nil
	}
	resp := r.sentResponse(g.Key)
	chat := g.Policy.Requester == approval.RequesterChat && !rec.DecidedBy(r.call.Principal)
	d := approval.Decide{ID: rec.ID, Digest: rec.Digest, Approver: r.call.Principal, Channel: approval.ChannelChat}
	switch {
	case resp.Status == response.Cancelled, resp.Status == response.Declined && !chat:
		return svc.Withdraw(ctx, rec.ID, r.call.Principal)
	case !chat:
		return rec, nil
	case resp.Status == response.Accepted:
		yes, found := mrtrimpl.X.FormBool(resp.Content, g.Field)
		if found != mrtrimpl.Present {
			return rec, nil // asked again
		}
		d.Approve = yes
	case resp.Status != response.Declined:
		return rec, nil
	}
	out, err := svc.Decide(ctx, d)
	var refusal *approval.Refusal
	if errors.As(err, &refusal) {
		r.call.Logger.WarnContext(ctx, "mrtr: approval in the chat refused", "gate", g.Gate, "approval", rec.ID, "code", refusal.Code)
		return out, nil
	}
	return out, err
}

// sentResponse is the answer to key from inputResponses, if this round may
// take one (Response without the up-front inputs).
func (r *round) sentResponse(key string) response.Response {
	resp, answered := r.req.InputResponses[key]
	if r.runsOf(r.current) > 1 || r.reasked[r.current] || !r.available(key) || !answered || resp == nil {
		return response.Response{Status: response.Missing}
	}
	return elicitResponse(resp, vocab.Elicit)
}

// awaitApproval is the step of a round whose approval is pending: the
// gate's form to a requester who may still approve in the chat; else the
// approval page's link, by URL-mode elicitation where the client can open
// one, in a form that only asks to check again where it can show forms;
// in a task, nothing (the task waits, working, and the approval resumes
// it); and to a client that cannot be asked at all, a result saying who must
// approve, where, and that calling the tool again with the same arguments
// goes on from the approval.
func (r *round) awaitApproval(g *mrtrimpl.ApprovalGate, svc *approval.Service, rec *approval.Record) (mrtrimpl.Step, error) {
	if g.Policy.Requester == approval.RequesterChat && r.Can(vocab.Elicit) && !rec.DecidedBy(r.call.Principal) {
		return r.Ask([]mrtrimpl.Pending{g.Form(nil)})
	}
	link, err := svc.Link(rec)
	if err != nil {
		return mrtrimpl.Step{}, err
	}
	wait := waitingText(rec, link)
	if r.req.task != nil {
		// A task waits, working, asking nothing: the approval resumes it.
		// The continuation stays at the gate (an ask of no requests).
		r.req.task.waiting = wait
		return mrtrimpl.Step{Kind: stepkind.Ask}, nil
	}
	switch {
	case r.Can(vocab.ElicitURL):
		return r.Ask([]mrtrimpl.Pending{{Key: g.Key, Kind: vocab.ElicitURL, Params: &mcp.ElicitParams{
			Mode: "url", URL: link, Message: wait + " Continue once it is decided.",
		}}})
	case r.Can(vocab.Elicit):
		return r.Ask([]mrtrimpl.Pending{{Key: g.Key, Kind: vocab.Elicit, Params: &mcp.ElicitParams{
			Mode: "form", Message: wait + " Open the link in a browser, then accept to check again.",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		}}})
	}
	return r.Finish(Final{Outcome: vocab.OutcomePending, Text: wait + fmt.Sprintf(
		" Nothing has been done yet. Once it is approved, call %s again with the same arguments to go on; calling it before says whether it is still waiting.", r.d.Name)})
}

// waitingText says what the approval waits for: who, until when, where.
func waitingText(rec *approval.Record, link string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Waiting for approval: %q. ", rec.Summary)
	who := "someone signed in"
	if rec.Policy.Role != "" {
		who = "someone in " + rec.Policy.Role
	}
	if rec.Policy.Requester == approval.RequesterExcluded {
		who += " other than " + rec.Requester
	}
	if n := rec.Policy.Count; n > 1 {
		fmt.Fprintf(&b, "%d approvals are needed (%d so far), each by %s", n, rec.Approvals(), who)
	} else {
		b.WriteString("It must be approved by " + who)
	}
	fmt.Fprintf(&b, " before %s, at %s .", rec.Deadline.UTC().Format(time.RFC3339), link)
	return b.String()
}

// approvalDigest identifies exactly what the gate lets through: the
// server, the tool, the requester (hashed), the arguments, what the
// workflow carries to the gate (its answers and continuation values), the
// summary shown and the gate's revision (message, form and policy). The
// same call, by the same principal, with the same arguments reaching the
// same gate with the same values, finds the same approval.
func (r *round) approvalDigest(g *mrtrimpl.ApprovalGate) [32]byte {
	h := sha256.New()
	for _, part := range [][]byte{
		[]byte("mrtr approval v1"), []byte(r.e.cfg.Audience), []byte(r.d.Subject()), []byte(r.pHash),
		r.argsDigest[:], r.snapshot(), []byte(g.Gate), []byte(g.Summary), []byte(g.Policy.Revision),
	} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

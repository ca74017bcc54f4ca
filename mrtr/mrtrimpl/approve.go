package mrtrimpl

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// ApprovalGate is a confirmation gate with an approval policy, as
// generated code describes it to the engine each time the gate runs.
type ApprovalGate struct {
	// Gate is the state's name; Key and Field are the gate's input request
	// key and boolean field (the form the requester answers in the chat
	// where the policy lets them).
	Gate, Key, Field string
	// Summary is the gate's rendered message: what the approvers are shown.
	Summary string
	// Form builds the gate's chat form (the question Questions returns).
	Form func(Problems) Pending
	// Policy is the spec's policy; Policy.Revision is the gate's digest.
	Policy approval.Policy
	// Approvers and Escalation call the handler's hooks that resolve the
	// policy's roles to principals (nil when the spec names no role).
	Approvers, Escalation func(context.Context) ([]string, error)
}

// approver is the engine's side of an approval gate.
type approver interface {
	Approve(ctx context.Context, g *ApprovalGate) (vocab.Edge, Step, error)
}

// Approve runs an approval gate: vocab.Next once the approval of exactly
// this action is approved under the policy (and taken by this workflow),
// vocab.Decline when it was declined, vocab.Expire when its deadline
// passed first, vocab.Cancel when the requester withdrew it; otherwise ""
// and the step that waits (asks the client again, or ends the call with a
// result that says who must approve, where, and how to resume).
func (Export) Approve(ctx context.Context, r Round, g *ApprovalGate) (vocab.Edge, Step, error) {
	a, ok := r.(approver)
	if !ok {
		return "", Step{}, errNoApprovals
	}
	return a.Approve(ctx, g)
}

package payouts

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/payouts.mrtr.yaml

import (
	"context"
	"slices"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// SendPayoutImpl implements SendPayoutHandler on the domain store. The
// spec routes payouts above 1,000 EUR to an approval by role finance
// (someone other than the requester, within a day); the payee is
// rechecked after the approval or confirmation, then paid once: the
// payout id is the workflow's, and a retry that finds it recorded does
// not pay again.
type SendPayoutImpl struct {
	Data domain.Store
	// Finance are the principals of role finance, who may approve large
	// payouts (nil: the demo users alice and bob). The requester is never
	// one of their approvers: the policy excludes them.
	Finance []string
	// Blocked are payees that cannot be paid.
	Blocked []string
}

var _ SendPayoutHandler = (*SendPayoutImpl)(nil)

const payoutTool = "send_payout"

// Payout is a sent payout, as the store keeps it.
type Payout struct {
	ID       string  `json:"id"`
	Payee    string  `json:"payee"`
	Amount   float64 `json:"amount"`
	Workflow string  `json:"workflow"`
	By       string  `json:"by"`
}

// PayoutKey is the key of payout id in the store.
func PayoutKey(id string) string { return "payout:" + id }

// Authorize lets every caller ask for a payout: the approval (above
// 1,000 EUR) or the confirmation decides whether it is sent.
func (h *SendPayoutImpl) Authorize(ctx context.Context, f *SendPayoutFlow) error {
	return nil
}

// ApproveApprovers returns the principals of role finance.
func (h *SendPayoutImpl) ApproveApprovers(ctx context.Context, f *SendPayoutFlow) ([]string, error) {
	if h.Finance == nil {
		return []string{"alice", "bob"}, nil
	}
	return slices.Clone(h.Finance), nil
}

// PayeePayable refuses a blocked payee.
func (h *SendPayoutImpl) PayeePayable(ctx context.Context, f *SendPayoutFlow) error {
	if slices.Contains(h.Blocked, f.Args.Payee) {
		return mrtr.Reject("payee %s is blocked; nothing was sent", f.Args.Payee)
	}
	return nil
}

// SendPayout records the payout once per workflow: a retry that finds it
// recorded (the instance died after writing it) sends nothing more.
func (h *SendPayoutImpl) SendPayout(ctx context.Context, f *SendPayoutFlow) error {
	id := "po_" + f.Call.WorkflowID
	f.Continuation.PayoutID = id
	if _, ok, err := domain.Load[Payout](ctx, h.Data, PayoutKey(id)); err != nil || ok {
		return err
	}
	if err := domain.Save(ctx, h.Data, PayoutKey(id), Payout{ID: id, Payee: f.Args.Payee, Amount: f.Args.Amount, Workflow: f.Call.WorkflowID, By: f.Call.Principal}); err != nil {
		return err
	}
	_, err := h.Data.Incr(ctx, domain.EffectKey(payoutTool, f.Args.Payee), 1)
	return err
}

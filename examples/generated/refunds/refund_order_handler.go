package refunds

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/refunds.mrtr.yaml

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RefundOrderImpl implements RefundOrderHandler on the domain store. The
// amount is checked against what is left to refund (a wrong one is asked
// for again, saying what is left); the spec routes refunds above 500.00 to
// a manager's approval, and the approver is checked to be a manager other
// than the caller (asked for again otherwise); after the confirmation the
// order is rechecked, then refunded once.
//
// Access rule: an order that names agents may be refunded only by them;
// one without (the seeded sandbox orders) by anyone, anonymous callers
// included.
type RefundOrderImpl struct {
	Data domain.Store
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

var _ RefundOrderHandler = (*RefundOrderImpl)(nil)

const refundTool = "refund_order"

func (h *RefundOrderImpl) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Authorize applies the access rule on every round. An unknown order is
// left to the lookup check.
func (h *RefundOrderImpl) Authorize(ctx context.Context, f *RefundOrderFlow) error {
	o, ok, err := domain.Load[domain.Order](ctx, h.Data, domain.OrderKey(f.Args.OrderID))
	if err != nil || !ok {
		return err
	}
	if !domain.Allowed(f.Call.Principal, o.Agents) {
		return mrtr.Forbidden("only the agents of order %s may refund it", o.ID)
	}
	return nil
}

// OrderRefundable: the order exists, in a currency refunds are paid in,
// and has something left to refund; what the questions show is kept.
func (h *RefundOrderImpl) OrderRefundable(ctx context.Context, f *RefundOrderFlow) error {
	o, err := h.order(ctx, f.Args.OrderID)
	if err != nil {
		return err
	}
	if !slices.Contains(refundOrderCurrencyValues, RefundOrderCurrency(o.Currency)) {
		return mrtr.Reject("order %s was paid in %s, which cannot be refunded here", o.ID, o.Currency)
	}
	if o.Refundable() <= 0 {
		return mrtr.Reject("order %s is already refunded in full", o.ID)
	}
	f.Continuation.Left = money(o.Refundable())
	f.Continuation.Currency = RefundOrderCurrency(o.Currency)
	f.Continuation.CardLast4 = o.CardLast4
	return nil
}

// AmountRefundable asks again for an amount that is not in whole cents or
// is more than what is left: the user can fix both.
func (h *RefundOrderImpl) AmountRefundable(ctx context.Context, f *RefundOrderFlow) error {
	o, err := h.order(ctx, f.Args.OrderID)
	if err != nil {
		return err
	}
	cents, ok := toCents(f.Refund.Amount)
	switch {
	case !ok:
		return mrtr.AskAgain("%v is not an amount in whole cents; give one such as 12.50", f.Refund.Amount)
	case cents > o.Refundable():
		return mrtr.AskAgain("order %s has only %s %s left to refund; give at most that", o.ID, money(o.Refundable()), o.Currency)
	}
	return nil
}

// ApproverIsManager asks again for an approver who is not a manager, or
// is the caller: nobody approves their own refund.
func (h *RefundOrderImpl) ApproverIsManager(ctx context.Context, f *RefundOrderFlow) error {
	name := f.Approval.Manager
	m, ok, err := domain.Load[domain.StaffMember](ctx, h.Data, domain.StaffKey(name))
	switch {
	case err != nil:
		return err
	case !ok:
		return mrtr.AskAgain("%s is not on the staff list; name a manager", name)
	case m.Role != "manager":
		return mrtr.AskAgain("%s is an %s, not a manager; name a manager", name, m.Role)
	case name == f.Call.Principal:
		return mrtr.AskAgain("you cannot approve your own refund; name another manager")
	}
	return nil
}

// AmountStillRefundable runs after the confirmation: another refund may
// have been made meanwhile.
func (h *RefundOrderImpl) AmountStillRefundable(ctx context.Context, f *RefundOrderFlow) error {
	o, err := h.order(ctx, f.Args.OrderID)
	if err != nil {
		return err
	}
	return stillRefundable(f, o)
}

func stillRefundable(f *RefundOrderFlow, o domain.Order) error {
	if cents, _ := toCents(f.Refund.Amount); cents > o.Refundable() {
		return mrtr.Reject("order %s was refunded meanwhile and has only %s %s left; nothing was refunded, start again", o.ID, money(o.Refundable()), o.Currency)
	}
	return nil
}

// RefundToCard pays the amount back: the order's refunded total and refund
// list change in one step, counted in effects:refund_order:<id>, and the
// refund is recorded. Its id is the workflow's, so a retry of a run that
// died after the change finds it made and takes it instead of refunding
// again.
func (h *RefundOrderImpl) RefundToCard(ctx context.Context, f *RefundOrderFlow) error {
	id, refundID := f.Args.OrderID, "re_"+f.Call.WorkflowID
	cents, _ := toCents(f.Refund.Amount)
	err := domain.Update(ctx, h.Data, domain.OrderKey(id), domain.EffectKey(refundTool, id), func(o *domain.Order) error {
		if slices.Contains(o.Refunds, refundID) {
			return domain.ErrUnchanged
		}
		if err := stillRefundable(f, *o); err != nil {
			return err
		}
		o.RefundedCents += cents
		o.Refunds = append(o.Refunds, refundID)
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return mrtr.Reject("order %s no longer exists", id)
	}
	if err != nil {
		return err
	}
	approver := ""
	if f.Approval != nil {
		approver = f.Approval.Manager
	}
	f.Continuation.RefundID = refundID
	return domain.Save(ctx, h.Data, domain.RefundKey(refundID), domain.Refund{
		ID: refundID, OrderID: id, AmountCents: cents, Reason: string(f.Refund.Reason),
		ApprovedBy: approver, Workflow: f.Call.WorkflowID, At: h.now().UTC(),
	})
}

// order loads an order, or says it does not exist.
func (h *RefundOrderImpl) order(ctx context.Context, id string) (domain.Order, error) {
	o, ok, err := domain.Load[domain.Order](ctx, h.Data, domain.OrderKey(id))
	if err == nil && !ok {
		err = mrtr.Reject("unknown order %s", id)
	}
	return o, err
}

// toCents is amount in cents, and whether it is a whole number of them.
func toCents(amount float64) (int64, bool) {
	c := math.Round(amount * 100)
	return int64(c), math.Abs(amount*100-c) < 1e-6
}

// money writes cents as the questions show them: 1200.50.
func money(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

package refunds

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func order(id string) RefundOrderArgs { return RefundOrderArgs{OrderID: id} }

func refund(amount float64) RefundOrderRefundAnswer {
	return RefundOrderRefundAnswer{Amount: amount, Reason: RefundOrderReasonDamaged}
}

// TestRefundOrderRealMatrix runs the MRTR matrix against the real handler:
// the fixture workflow refunds 40.00 of ord_1004, which only its agents
// alice and bob may refund; the variant refunds 600.00, above the
// threshold, approved by the manager maria.
func TestRefundOrderRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	mrtrtest.RunMatrix(t, NewRefundOrderProgram(&RefundOrderImpl{Data: data}), mrtrtest.Fixtures{
		Args:         order("ord_1004"),
		Answers:      mrtrtest.Answers(refund(40), RefundOrderApprovalAnswer{Manager: "maria"}),
		Invalid:      map[string]mcp.InputResponse{"refund": mrtrtest.Accept(map[string]any{"amount": 0, "reason": "damaged"})},
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    order("ord_1001"),
		Effects:      data.Effects(refundTool, "ord_1004"),
		Break:        data.BreakWrites,
		Variants: []mrtrtest.Variant{{
			Name:    "600.00, above the approval threshold",
			Answers: mrtrtest.Answers(refund(600)),
		}},
	}, data.Harness(t))
}

// Below the threshold no approval is asked; the refund happens once and
// the retried final round replays it.
func TestRefundOrderSmallRefund(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRefundOrderProgram(&RefundOrderImpl{Data: data}))
	d := DriveRefundOrder(t, h, order("ord_1001")).
		WantQuestion("refund", "ending in 4242 (120.00 EUR left)").
		Answer(refund(45.5)).
		WantAsks("confirm").
		WantQuestion("confirm", "Refund 45.50 EUR of order ord_1001 (arrived damaged)").
		Confirm().
		WantEnd(mrtr.OutcomeSuccess, "refund re_")
	d.Replay()
	o, _, _ := domain.Load[domain.Order](ctx, data, domain.OrderKey("ord_1001"))
	if o.RefundedCents != 4550 || len(o.Refunds) != 1 {
		t.Fatalf("order refunded %d cents in %v, want 4550 in one refund", o.RefundedCents, o.Refunds)
	}
	r, ok, _ := domain.Load[domain.Refund](ctx, data, domain.RefundKey(o.Refunds[0]))
	if !ok || r.AmountCents != 4550 || r.ApprovedBy != "" {
		t.Fatalf("refund record %+v (found %v)", r, ok)
	}
	if n := data.Effects(refundTool, "ord_1001")(); n != 1 {
		t.Fatalf("refunded %d times", n)
	}
}

// Above 500.00 a manager approves: a name that is no manager is asked for
// again saying why, and the refund records who approved it.
func TestRefundOrderNeedsAManagerAboveTheThreshold(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRefundOrderProgram(&RefundOrderImpl{Data: data}))
	h.Principal = "omar"
	DriveRefundOrder(t, h, order("ord_1002")).
		Answer(refund(500)). // the threshold itself needs no approval
		WantAsks("confirm").
		Refuse().
		WantEnd(mrtr.OutcomeCancelled, "not refunded")
	DriveRefundOrder(t, h, order("ord_1002")).
		Answer(refund(500.01)).
		WantQuestion("approval", "A refund of 500.01 EUR on order ord_1002 needs a manager's approval").
		Answer(RefundOrderApprovalAnswer{Manager: "tom"}).
		WantQuestion("approval", "tom is an agent, not a manager; name a manager").
		Answer(RefundOrderApprovalAnswer{Manager: "maria"}).
		Confirm().
		WantEnd(mrtr.OutcomeSuccess, "Refunded 500.01 EUR of order ord_1002")
	o, _, _ := domain.Load[domain.Order](ctx, data, domain.OrderKey("ord_1002"))
	r, _, _ := domain.Load[domain.Refund](ctx, data, domain.RefundKey(o.Refunds[0]))
	if r.ApprovedBy != "maria" || r.AmountCents != 50001 {
		t.Fatalf("refund %+v, want 50001 cents approved by maria", r)
	}
	// The caller cannot approve their own refund, and two wrong approvers
	// end the workflow.
	DriveRefundOrder(t, h, order("ord_1002")).
		Answer(refund(700)).
		Answer(RefundOrderApprovalAnswer{Manager: "omar"}).
		WantQuestion("approval", "you cannot approve your own refund").
		Answer(RefundOrderApprovalAnswer{Manager: "nobody"}).
		WantEnd(mrtr.OutcomeFailed, "No manager approved the refund of 700.00 EUR")
	if n := data.Effects(refundTool, "ord_1002")(); n != 1 {
		t.Fatalf("refunded %d times", n)
	}
}

// An amount the order does not have left is asked for again with what is
// left; three such answers end the workflow with nothing refunded.
func TestRefundOrderAmountAskedAgain(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRefundOrderProgram(&RefundOrderImpl{Data: data}))
	DriveRefundOrder(t, h, order("ord_1001")).
		Answer(refund(150)).
		WantQuestion("refund", "order ord_1001 has only 120.00 EUR left to refund; give at most that").
		Answer(refund(10.005)).
		WantQuestion("refund", "10.005 is not an amount in whole cents").
		Answer(refund(120)).
		Confirm().
		WantEnd(mrtr.OutcomeSuccess, "Refunded 120.00 EUR")
	DriveRefundOrder(t, h, order("ord_1002")).
		Answer(refund(3000)).
		Answer(refund(3000)).
		Answer(refund(3000)).
		WantEnd(mrtr.OutcomeCancelled, "Order ord_1002 was not refunded.")
	if n := data.Effects(refundTool, "ord_1002")(); n != 0 {
		t.Fatalf("refunded %d times", n)
	}
}

// Another refund made while the user decided leaves too little: nothing
// is refunded.
func TestRefundOrderChangedAfterConfirmation(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRefundOrderProgram(&RefundOrderImpl{Data: data}))
	d := DriveRefundOrder(t, h, order("ord_1001")).Answer(refund(100)).WantAsks("confirm")
	if err := domain.Update(ctx, data, domain.OrderKey("ord_1001"), "", func(o *domain.Order) error {
		o.RefundedCents = 5000
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	d.Confirm().WantEnd(mrtr.OutcomeRejected, "has only 70.00 EUR left; nothing was refunded")
	if n := data.Effects(refundTool, "ord_1001")(); n != 0 {
		t.Fatalf("refunded %d times", n)
	}
}

func TestRefundOrderRefusals(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRefundOrderProgram(&RefundOrderImpl{Data: data}))
	for _, c := range []struct {
		principal, order string
		want             mrtr.Outcome
		text             string
	}{
		{"alice", "ord_9999", mrtr.OutcomeRejected, "unknown order ord_9999"},
		{"alice", "ord_1003", mrtr.OutcomeRejected, "already refunded in full"},
		{"", "ord_1004", mrtr.OutcomeUnauthorized, "only the agents"},
		{"mallory", "ord_1004", mrtr.OutcomeUnauthorized, "only the agents"},
	} {
		t.Run(c.principal+" refunding "+c.order, func(t *testing.T) {
			h.Principal = c.principal
			DriveRefundOrder(t, h, order(c.order)).WantEnd(c.want, c.text)
		})
	}
}

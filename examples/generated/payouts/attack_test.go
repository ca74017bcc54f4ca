package payouts

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// TestAttackEmptyFinanceAdmitsNobody: when role finance resolves to
// nobody (an empty group, a directory lookup that found no one), nobody
// can approve a payout above the threshold: not bob, not anyone signed in.
func TestAttackEmptyFinanceAdmitsNobody(t *testing.T) {
	ctx := context.Background()
	data := domain.NewMemory()
	h := mrtrtest.New(t, NewSendPayoutProgram(&SendPayoutImpl{Data: data, Finance: []string{}}))
	d := DriveSendPayout(t, h, SendPayoutArgs{Amount: 5000, Payee: "pay_mallory"})
	d.WantAsks("approval")
	for _, who := range []string{"bob", "mallory"} {
		var refusal *approval.Refusal
		if rec, err := h.Decide(ctx, who, true, "looks fine"); !errors.As(err, &refusal) || refusal.Code != approval.CodeNotApprover {
			t.Fatalf("%s approving a payout whose finance role is empty: %v, %v; want not_approver", who, rec, err)
		}
	}
}

// TestAttackTwoWorkflowsOneApproval: alice starts the same payout twice
// (two workflows, one digest, one approval record); bob approves once.
// One workflow pays; the other is left asking for a new approval, and
// replaying the winner's round pays nothing more.
func TestAttackTwoWorkflowsOneApproval(t *testing.T) {
	ctx := context.Background()
	data := domain.NewMemory()
	h := mrtrtest.New(t, NewSendPayoutProgram(&SendPayoutImpl{Data: data}))
	done := mrtrtest.Respond("approval", &mcp.ElicitResult{Action: "accept"})
	args := SendPayoutArgs{Amount: 4000, Payee: "pay_twice"}
	d1 := DriveSendPayout(t, h, args).WantAsks("approval")
	d2 := DriveSendPayout(t, h, args).WantAsks("approval")
	first, err := h.Approval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := h.Decide(ctx, "bob", true, "once"); err != nil || rec.State != approval.Approved {
		t.Fatalf("bob approving: %v, %v", rec, err)
	}
	d1.Answer(done).WantEnd(vocab.OutcomeSuccess, "Sent 4,000.00 EUR to pay_twice")
	d1.Replay()
	d2.Answer(done).WantAsks("approval")
	second, err := h.Approval(ctx)
	if err != nil || second.ID == first.ID || second.State != approval.Pending {
		t.Fatalf("the second workflow waits for %+v (%v); want a new pending approval", second, err)
	}
	if n, err := domain.Effects(ctx, data, payoutTool, "pay_twice"); err != nil || n != 1 {
		t.Fatalf("payouts to pay_twice: %d, %v; want 1", n, err)
	}
}

package payouts

import (
	"context"
	"errors"
	"testing"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
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

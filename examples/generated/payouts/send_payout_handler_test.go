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

// TestSendPayoutHandler drives SendPayoutImpl through payouts below the
// approval threshold (the chat's confirmation suffices): one sent once,
// one declined, one to a blocked payee refused at the recheck. Payouts
// above it wait for an approval: TestSendPayoutApproval.
func TestSendPayoutHandler(t *testing.T) {
	data := domain.NewMemory()
	impl := &SendPayoutImpl{Data: data, Blocked: []string{"pay_blocked"}}
	h := mrtrtest.New(t, NewSendPayoutProgram(impl))

	d := DriveSendPayout(t, h, SendPayoutArgs{Amount: 250, Payee: "pay_acme"})
	d.WantAsks("confirm")
	d.Confirm()
	d.WantEnd(vocab.OutcomeSuccess, "Sent 250.00 EUR to pay_acme")
	if n, err := domain.Effects(context.Background(), data, payoutTool, "pay_acme"); err != nil || n != 1 {
		t.Fatalf("payouts to pay_acme: %d, %v; want 1", n, err)
	}

	d = DriveSendPayout(t, h, SendPayoutArgs{Amount: 250, Payee: "pay_acme"})
	d.WantAsks("confirm")
	d.Decline("confirm")
	d.WantEnd(vocab.OutcomeCancelled, "No payout was sent to pay_acme")

	d = DriveSendPayout(t, h, SendPayoutArgs{Amount: 10, Payee: "pay_blocked"})
	d.WantAsks("confirm")
	d.Confirm()
	d.WantEnd(vocab.OutcomeRejected, "payee pay_blocked is blocked")
	if n, _ := domain.Effects(context.Background(), data, payoutTool, "pay_acme"); n != 1 {
		t.Fatalf("payouts to pay_acme: %d; want still 1", n)
	}
}

// TestSendPayoutApprovers: role finance is the demo users unless set.
func TestSendPayoutApprovers(t *testing.T) {
	got, err := (&SendPayoutImpl{}).ApproveApprovers(context.Background(), &SendPayoutFlow{})
	if err != nil || len(got) != 2 || got[0] != "alice" || got[1] != "bob" {
		t.Fatalf("approvers = %v, %v; want [alice bob]", got, err)
	}
	got, _ = (&SendPayoutImpl{Finance: []string{"carol"}}).ApproveApprovers(context.Background(), &SendPayoutFlow{})
	if len(got) != 1 || got[0] != "carol" {
		t.Fatalf("approvers = %v; want [carol]", got)
	}
}

// TestSendPayoutApproval: a payout above 1,000 EUR asked by alice waits
// for role finance; alice's own approval is refused (four eyes), bob's
// lets it through once the client comes back, and it is sent once. One
// bob declines ends in declined, and nothing is sent.
func TestSendPayoutApproval(t *testing.T) {
	ctx := context.Background()
	data := domain.NewMemory()
	h := mrtrtest.New(t, NewSendPayoutProgram(&SendPayoutImpl{Data: data}))
	done := mrtrtest.Respond("approval", &mcp.ElicitResult{Action: "accept"})

	d := DriveSendPayout(t, h, SendPayoutArgs{Amount: 1500, Payee: "pay_big"})
	d.WantAsks("approval")
	var refusal *approval.Refusal
	if _, err := h.Decide(ctx, "alice", true, "mine"); !errors.As(err, &refusal) {
		t.Fatalf("alice approving her own payout: %v, want a refusal", err)
	}
	if rec, err := h.Decide(ctx, "bob", true, "checked"); err != nil || rec.State != approval.Approved {
		t.Fatalf("bob approving: %v, %v", rec, err)
	}
	d.Answer(done)
	d.WantEnd(vocab.OutcomeSuccess, "Sent 1,500.00 EUR to pay_big")
	if n, err := domain.Effects(ctx, data, payoutTool, "pay_big"); err != nil || n != 1 {
		t.Fatalf("payouts to pay_big: %d, %v; want 1", n, err)
	}

	d = DriveSendPayout(t, h, SendPayoutArgs{Amount: 2000, Payee: "pay_other"})
	d.WantAsks("approval")
	if _, err := h.Decide(ctx, "bob", false, "unknown payee"); err != nil {
		t.Fatal(err)
	}
	d.Answer(done)
	d.WantEnd(vocab.OutcomeCancelled, "No payout was sent to pay_other")
	if n, _ := domain.Effects(ctx, data, payoutTool, "pay_other"); n != 0 {
		t.Fatalf("payouts to pay_other: %d; want none", n)
	}
}

package payments

import (
	"context"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func invoice(id string) ChargePaymentArgs { return ChargePaymentArgs{InvoiceID: id} }

// TestChargePaymentRealMatrix runs the MRTR matrix against the real handler
// on the demo invoice inv_1002, which only its billing contacts alice and
// bob may charge (mallory is refused on every round).
func TestChargePaymentRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	mrtrtest.RunMatrix(t, NewChargePaymentProgram(&ChargePaymentImpl{Data: data}), mrtrtest.Fixtures{
		Args:         invoice("inv_1002"),
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    invoice("inv_1005"),
		Effects:      data.Effects(chargeTool, "inv_1002"),
		Break:        data.BreakWrites,
	}, data.Harness(t))
}

func TestChargePaymentChargesOnce(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewChargePaymentProgram(&ChargePaymentImpl{Data: data}))
	// inv_1002's billing contacts are alice and bob.
	d := DriveChargePayment(t, h, invoice("inv_1002")).
		WantQuestion("confirm", "129900 cents (USD)").
		WantQuestion("confirm", "ending in 1881").
		Confirm().
		WantEnd(mrtr.OutcomeSuccess, "charge ch_")
	inv, _, _ := domain.Load[domain.Invoice](ctx, data, domain.InvoiceKey("inv_1002"))
	if inv.Status != "paid" || !strings.HasPrefix(inv.ChargeID, "ch_") || !strings.Contains(d.Reply().Final.Text, "charge "+inv.ChargeID) {
		t.Fatalf("invoice status %q, charge %q, final %q: want paid with the charge id in the result", inv.Status, inv.ChargeID, d.Reply().Final.Text)
	}
	ch, ok, _ := domain.Load[domain.Charge](ctx, data, domain.ChargeKey(inv.ChargeID))
	if !ok || ch.AmountCents != 129900 || ch.InvoiceID != "inv_1002" {
		t.Fatalf("charge record of %d cents for %q (found: %v)", ch.AmountCents, ch.InvoiceID, ok)
	}
	// The retried final round replays the same charge.
	d.Replay()
	// Another workflow for the same invoice is refused.
	h.Principal = "bob"
	DriveChargePayment(t, h, invoice("inv_1002")).WantEnd(mrtr.OutcomeRejected, "already paid")
	if n := data.Effects(chargeTool, "inv_1002")(); n != 1 {
		t.Fatalf("charged %d times", n)
	}
}

// TestChargePaymentNotConfirmed: the payer says no, or closes the
// question: nothing is charged.
func TestChargePaymentNotConfirmed(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewChargePaymentProgram(&ChargePaymentImpl{Data: data}))
	DriveChargePayment(t, h, invoice("inv_1002")).Refuse().WantEnd(mrtr.OutcomeCancelled, "")
	DriveChargePayment(t, h, invoice("inv_1002")).Cancel("confirm").WantEnd(mrtr.OutcomeCancelled, "")
	if n := data.Effects(chargeTool, "inv_1002")(); n != 0 {
		t.Fatalf("charged %d times", n)
	}
}

// TestChargePaymentChangedAfterConfirmation: the amount changed after the
// payer confirmed: nothing is charged.
func TestChargePaymentChangedAfterConfirmation(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewChargePaymentProgram(&ChargePaymentImpl{Data: data}))
	d := DriveChargePayment(t, h, invoice("inv_1005")).WantAsks("confirm")
	if err := domain.Update(ctx, data, domain.InvoiceKey("inv_1005"), "", func(inv *domain.Invoice) error {
		inv.AmountCents = 99999
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	d.Confirm().WantEnd(mrtr.OutcomeRejected, "changed after you confirmed")
	if n := data.Effects(chargeTool, "inv_1005")(); n != 0 {
		t.Fatalf("charged %d times", n)
	}
}

func TestChargePaymentRefusals(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewChargePaymentProgram(&ChargePaymentImpl{Data: data}))
	for _, c := range []struct {
		principal, invoice string
		want               mrtr.Outcome
		text               string
	}{
		{"alice", "inv_9999", mrtr.OutcomeRejected, "unknown invoice inv_9999"},
		{"alice", "inv_1003", mrtr.OutcomeRejected, "already paid"},
		{"alice", "inv_1004", mrtr.OutcomeRejected, "no card on file"},
		{"", "inv_1002", mrtr.OutcomeUnauthorized, "billing contacts"},
		{"mallory", "inv_1002", mrtr.OutcomeUnauthorized, "billing contacts"},
	} {
		t.Run(c.principal+" charging "+c.invoice, func(t *testing.T) {
			h.Principal = c.principal
			DriveChargePayment(t, h, invoice(c.invoice)).WantEnd(c.want, c.text)
		})
	}
}

// TestChargePaymentTakeoverAfterTheChargeReturned: a retry took the round
// over after the charge returned but before the engine recorded it (the
// store was out for longer than the lease allows; README, "What holds for
// side effects"). The invoice is paid by this very workflow: the check
// after the confirmation lets it through, and the charge answers with the
// existing charge instead of charging again or saying "already paid".
func TestChargePaymentTakeoverAfterTheChargeReturned(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	impl := &ChargePaymentImpl{Data: data}
	f := &ChargePaymentFlow{Call: &mrtr.Call{WorkflowID: "wf-first", Principal: "alice"}, Args: invoice("inv_1002")}
	if err := impl.ValidateInvoice(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := impl.ChargeCard(ctx, f); err != nil {
		t.Fatal(err)
	}
	first := f.Continuation.ChargeID

	retry := &ChargePaymentFlow{Call: &mrtr.Call{WorkflowID: "wf-first", Principal: "alice",
		Attempt: &mrtr.Attempt{Takeover: true}}, Args: f.Args, Continuation: f.Continuation}
	retry.Continuation.ChargeID = ""
	if err := impl.InvoiceStillDue(ctx, retry); err != nil {
		t.Fatalf("the retry of the workflow that paid the invoice: %v", err)
	}
	if err := impl.ChargeCard(ctx, retry); err != nil || retry.Continuation.ChargeID != first {
		t.Fatalf("the retry's charge: %q, %v; want the first one, %q", retry.Continuation.ChargeID, err, first)
	}
	if n := data.Effects(chargeTool, "inv_1002")(); n != 1 {
		t.Fatalf("charged %d times", n)
	}
	// Another workflow is still told the invoice is paid.
	other := &ChargePaymentFlow{Call: &mrtr.Call{WorkflowID: "wf-other", Principal: "alice"}, Args: f.Args, Continuation: f.Continuation}
	if err := impl.InvoiceStillDue(ctx, other); err == nil || !strings.Contains(err.Error(), "already paid") {
		t.Fatalf("another workflow: %v, want already paid", err)
	}
}

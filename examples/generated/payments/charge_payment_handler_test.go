package payments

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

var confirm = mcp.InputResponseMap{"confirm": mrtrtest.Accept(map[string]any{"confirm": true})}

// TestChargePaymentRealMatrix runs the MRTR matrix against the real handler
// on the demo invoice inv_1002, which only its billing contacts alice and
// bob may charge (mallory is refused on every round).
func TestChargePaymentRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	mrtrtest.RunMatrix(t, NewChargePaymentProgram(&ChargePaymentImpl{Data: data}), mrtrtest.Fixtures{
		Args:         map[string]any{"invoiceId": "inv_1002"},
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    map[string]any{"invoiceId": "inv_1005"},
		Effects:      data.Effects(chargeTool, "inv_1002"),
		Break:        data.BreakWrites,
	}, data.Harness(t))
}

func TestChargePaymentChargesOnce(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewChargePaymentProgram(&ChargePaymentImpl{Data: data}))
	args := map[string]any{"invoiceId": "inv_1002"} // billing contacts alice and bob
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	if q := first.InputRequests["confirm"].(*mcp.ElicitParams).Message; !strings.Contains(q, "129900 cents (USD)") || !strings.Contains(q, "ending in 1881") {
		t.Fatalf("the confirmation does not show the exact charge: %q", q)
	}
	done, err := h.Call(ctx, args, first.RequestState, confirm)
	if err != nil || done.NeedsInput() || done.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("round 2: %+v, %v", done, err)
	}
	inv, _, _ := domain.Load[domain.Invoice](ctx, data, domain.InvoiceKey("inv_1002"))
	if inv.Status != "paid" || !strings.HasPrefix(inv.ChargeID, "ch_") || !strings.Contains(done.Final.Text, "charge "+inv.ChargeID) {
		t.Fatalf("invoice %+v, final %q: want paid with the charge id in the result", inv, done.Final.Text)
	}
	ch, ok, _ := domain.Load[domain.Charge](ctx, data, domain.ChargeKey(inv.ChargeID))
	if !ok || ch.AmountCents != 129900 || ch.InvoiceID != "inv_1002" {
		t.Fatalf("charge record %+v", ch)
	}
	// The retried final round replays the same charge.
	again, err := h.Call(ctx, args, first.RequestState, confirm)
	if err != nil || again.Final == nil || again.Final.Text != done.Final.Text {
		t.Fatalf("retry: %+v, %v", again, err)
	}
	// Another workflow for the same invoice is refused.
	h.Principal = "bob"
	other, err := h.Call(ctx, args, "", nil)
	if err != nil || other.NeedsInput() || other.Final.Outcome != mrtr.OutcomeRejected || !strings.Contains(other.Final.Text, "already paid") {
		t.Fatalf("second workflow: %+v, %v", other, err)
	}
	if n := data.Effects(chargeTool, "inv_1002")(); n != 1 {
		t.Fatalf("charged %d times", n)
	}
}

// TestChargePaymentChangedAfterConfirmation: the amount changed after the
// payer confirmed: nothing is charged.
func TestChargePaymentChangedAfterConfirmation(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewChargePaymentProgram(&ChargePaymentImpl{Data: data}))
	args := map[string]any{"invoiceId": "inv_1005"}
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	if err := domain.Update(ctx, data, domain.InvoiceKey("inv_1005"), "", func(inv *domain.Invoice) error {
		inv.AmountCents = 99999
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r, err := h.Call(ctx, args, first.RequestState, confirm)
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeRejected || !strings.Contains(r.Final.Text, "changed after you confirmed") {
		t.Fatalf("round 2: %+v, %v", r, err)
	}
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
		h.Principal = c.principal
		r, err := h.Call(context.Background(), map[string]any{"invoiceId": c.invoice}, "", nil)
		if err != nil || r.NeedsInput() || r.Final.Outcome != c.want || !strings.Contains(r.Final.Text, c.text) {
			t.Errorf("%q charging %s: %+v, %v; want %s with %q", c.principal, c.invoice, r.Final, err, c.want, c.text)
		}
	}
}

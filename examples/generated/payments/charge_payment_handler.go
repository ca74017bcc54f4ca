package payments

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/payments.mrtr.yaml

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ChargePaymentImpl implements ChargePaymentHandler on the domain store:
// the invoice is validated, rechecked after the payer confirmed the exact
// amount, then charged; the charge id goes into the continuation (and the
// final message).
//
// Access rule: an invoice that names billing contacts may be charged only
// by them; an invoice without (the seeded sandbox invoices) by anyone,
// anonymous callers included.
type ChargePaymentImpl struct {
	Data domain.Store
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

var _ ChargePaymentHandler = (*ChargePaymentImpl)(nil)

const chargeTool = "charge_payment"

func (h *ChargePaymentImpl) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Authorize applies the access rule on every round. An unknown invoice is
// left to the validate check.
func (h *ChargePaymentImpl) Authorize(ctx context.Context, f *ChargePaymentFlow) error {
	inv, ok, err := domain.Load[domain.Invoice](ctx, h.Data, domain.InvoiceKey(f.Args.InvoiceID))
	if err != nil || !ok {
		return err
	}
	if !domain.Allowed(f.Call.Principal, inv.BillingContacts) {
		return mrtr.Forbidden("only the billing contacts of invoice %s may charge it", inv.ID)
	}
	return nil
}

// ValidateInvoice: the invoice exists, is open, has an amount in a
// supported currency and a card on file. What the payer must confirm is
// kept for the next rounds.
func (h *ChargePaymentImpl) ValidateInvoice(ctx context.Context, f *ChargePaymentFlow) error {
	inv, err := h.due(ctx, f.Args.InvoiceID)
	if err != nil {
		return err
	}
	f.Continuation.AmountCents = inv.AmountCents
	f.Continuation.Currency = ChargePaymentCurrency(inv.Currency)
	f.Continuation.CardLast4 = inv.CardLast4
	return nil
}

// InvoiceStillDue runs after the confirmation: the invoice must still be
// open and still ask for exactly what the payer confirmed. One paid by
// this very workflow passes: that is a retry which took over the charge
// after it returned but before the engine could record it (the store was
// unreachable for longer than the lease allows), and ChargeCard answers
// it with that charge instead of saying the invoice is paid.
func (h *ChargePaymentImpl) InvoiceStillDue(ctx context.Context, f *ChargePaymentFlow) error {
	inv, err := h.due(ctx, f.Args.InvoiceID)
	if err != nil {
		if inv.Status == "paid" && inv.ChargedBy == f.Call.WorkflowID {
			return nil
		}
		return err
	}
	return confirmed(f, inv)
}

// due loads an invoice that can be charged, or says why not.
func (h *ChargePaymentImpl) due(ctx context.Context, id string) (domain.Invoice, error) {
	inv, ok, err := domain.Load[domain.Invoice](ctx, h.Data, domain.InvoiceKey(id))
	switch {
	case err != nil:
		return inv, err
	case !ok:
		return inv, mrtr.Reject("unknown invoice %s", id)
	case inv.Status == "paid":
		return inv, mrtr.Reject("invoice %s is already paid", id)
	case inv.Status != "open":
		return inv, mrtr.Reject("invoice %s is %s and cannot be charged", id, inv.Status)
	case inv.AmountCents < 1 || inv.AmountCents > 100_000_000:
		return inv, mrtr.Reject("invoice %s has no chargeable amount", id)
	case !slices.Contains(chargePaymentCurrencyValues, ChargePaymentCurrency(inv.Currency)):
		return inv, mrtr.Reject("invoice %s is in %s, which cannot be charged here", id, inv.Currency)
	case len(inv.CardLast4) != 4:
		return inv, mrtr.Reject("invoice %s has no card on file", id)
	}
	return inv, nil
}

// confirmed checks that the invoice asks for what the payer confirmed.
func confirmed(f *ChargePaymentFlow, inv domain.Invoice) error {
	c := f.Continuation
	if inv.AmountCents != c.AmountCents || inv.Currency != string(c.Currency) || inv.CardLast4 != c.CardLast4 {
		return mrtr.Reject("invoice %s changed after you confirmed (now %d cents %s on the card ending in %s); nothing was charged, start again",
			inv.ID, inv.AmountCents, inv.Currency, inv.CardLast4)
	}
	return nil
}

// ChargeCard charges the card: the invoice becomes paid with a new charge
// id in one change, counted in effects:charge_payment:<id>, and the charge
// is recorded. The engine runs it at most once per invoice (operation
// charge-{invoiceId}, kept 72h); a retry that finds the invoice paid by
// this very workflow takes that charge's id instead of charging again.
func (h *ChargePaymentImpl) ChargeCard(ctx context.Context, f *ChargePaymentFlow) error {
	id := f.Args.InvoiceID
	chargeID, err := newChargeID()
	if err != nil {
		return err
	}
	now := h.now().UTC()
	var charged domain.Invoice
	err = domain.Update(ctx, h.Data, domain.InvoiceKey(id), domain.EffectKey(chargeTool, id), func(inv *domain.Invoice) error {
		if inv.Status == "paid" && inv.ChargedBy == f.Call.WorkflowID {
			charged = *inv
			return domain.ErrUnchanged
		}
		if inv.Status != "open" {
			return mrtr.Reject("invoice %s was paid or closed meanwhile; nothing was charged", id)
		}
		if err := confirmed(f, *inv); err != nil {
			return err
		}
		inv.Status, inv.ChargeID, inv.ChargedBy, inv.PaidAt = "paid", chargeID, f.Call.WorkflowID, now
		charged = *inv
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return mrtr.Reject("invoice %s no longer exists", id)
	}
	if err != nil {
		return err
	}
	f.Continuation.ChargeID = charged.ChargeID
	return domain.Save(ctx, h.Data, domain.ChargeKey(charged.ChargeID), domain.Charge{
		ID: charged.ChargeID, InvoiceID: id, AmountCents: charged.AmountCents,
		Currency: charged.Currency, CardLast4: charged.CardLast4, At: charged.PaidAt,
	})
}

func newChargeID() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "ch_" + hex.EncodeToString(b[:]), nil
}

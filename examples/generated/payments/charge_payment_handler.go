/*
Written by mrtrgen as a starting point. This file is yours: edit it freely;
mrtrgen never overwrites it (delete it to get a fresh scaffold).
*/

package payments

import (
	"context"
	"errors"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ChargePaymentImpl implements ChargePaymentHandler for tool charge_payment.
// Give it what the methods need: a database handle, API clients.
type ChargePaymentImpl struct{}

var _ ChargePaymentHandler = (*ChargePaymentImpl)(nil)

// Authorize decides whether f.Call.Principal may run charge_payment with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ChargePaymentImpl) Authorize(ctx context.Context, f *ChargePaymentFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("charge_payment: Authorize is not implemented yet")
}

// ValidateInvoice is the check of state validate (examples/specs/payments.mrtr.yaml:44:16).
// The invoice is open, its amount is known, and a card is on file.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ChargePaymentImpl) ValidateInvoice(ctx context.Context, f *ChargePaymentFlow) error {
	// TODO: check validateInvoice; set f.Continuation fields later states need.
	return errors.New("charge_payment: ValidateInvoice is not implemented yet")
}

// InvoiceStillDue is the check of state recheck (examples/specs/payments.mrtr.yaml:53:16).
// The invoice may have been paid or changed while the payer decided.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ChargePaymentImpl) InvoiceStillDue(ctx context.Context, f *ChargePaymentFlow) error {
	// TODO: check invoiceStillDue; set f.Continuation fields later states need.
	return errors.New("charge_payment: InvoiceStillDue is not implemented yet")
}

// ChargeCard is the irreversible side effect of state charge (examples/specs/payments.mrtr.yaml:56:17). It runs at most once per
// operation id charge-{invoiceId}; retries replay its outcome. Store its results in f.Continuation.
// Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *ChargePaymentImpl) ChargeCard(ctx context.Context, f *ChargePaymentFlow) error {
	// TODO: perform chargeCard; record its results in f.Continuation.
	return errors.New("charge_payment: ChargeCard is not implemented yet")
}

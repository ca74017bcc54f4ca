// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package deploys

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RefundPaymentImpl implements RefundPaymentHandler for tool refund_payment.
// Give it what the methods need: a database handle, API clients.
type RefundPaymentImpl struct{}

var _ RefundPaymentHandler = (*RefundPaymentImpl)(nil)

// Authorize decides whether f.Call.Principal may run refund_payment with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *RefundPaymentImpl) Authorize(ctx context.Context, f *RefundPaymentFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("refund_payment: Authorize is not implemented yet")
}

// LookUpPayment is the check of state lookup.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *RefundPaymentImpl) LookUpPayment(ctx context.Context, f *RefundPaymentFlow) error {
	// TODO: check lookUpPayment; set f.Continuation fields later states need.
	return errors.New("refund_payment: LookUpPayment is not implemented yet")
}

// RefundPayment is the side effect of state refund. Once it returned, it is not run again for
// operation id refund-{paymentId}: retries replay its outcome. If the instance running it dies
// first, a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so,
// and f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of
// the downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite
// refusal (recorded and replayed); any other error lets a retry try again.
func (h *RefundPaymentImpl) RefundPayment(ctx context.Context, f *RefundPaymentFlow) error {
	// TODO: perform refundPayment; record its results in f.Continuation.
	return errors.New("refund_payment: RefundPayment is not implemented yet")
}

// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package refunds

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

// LoadPayment is the check of state lookup. It must set f.Continuation.Balance before it returns
// (sets: in the spec); a value still empty fails the round. Return mrtr.Reject to refuse the
// request with a message; any other error is a dependency failure.
func (h *RefundPaymentImpl) LoadPayment(ctx context.Context, f *RefundPaymentFlow) error {
	// TODO: check loadPayment; set f.Continuation fields later states need.
	return errors.New("refund_payment: LoadPayment is not implemented yet")
}

// RefundPayment is the side effect of state refund. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. It must set f.Continuation.RefundID before
// it returns (sets: in the spec); a value still empty fails the round. Return mrtr.Reject for a
// definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *RefundPaymentImpl) RefundPayment(ctx context.Context, f *RefundPaymentFlow) error {
	// TODO: perform refundPayment; record its results in f.Continuation.
	return errors.New("refund_payment: RefundPayment is not implemented yet")
}

// NotRefundedOutput fills the structured result of terminal state notRefunded (cancelled), sent as
// structuredContent with the state's message as its text.
// A value the spec does not allow
// or a field of another state fails the round (logged, naming the state and the field).
// It runs once the workflow ends there; retries of that round replay the recorded result.
// An error is a dependency failure.
func (h *RefundPaymentImpl) NotRefundedOutput(ctx context.Context, f *RefundPaymentFlow, out *RefundPaymentOutput) error {
	// TODO: fill out with the result of notRefunded (from f.Continuation, f.Args or your records).
	return errors.New("refund_payment: NotRefundedOutput is not implemented yet")
}

// RefundedOutput fills the structured result of terminal state refunded (success), sent as
// structuredContent with the state's message as its text.
// It must set out.Cents, out.RefundID; a required field left unset, a value the spec does not allow
// or a field of another state fails the round (logged, naming the state and the field).
// It runs once the workflow ends there; retries of that round replay the recorded result.
// An error is a dependency failure.
func (h *RefundPaymentImpl) RefundedOutput(ctx context.Context, f *RefundPaymentFlow, out *RefundPaymentOutput) error {
	// TODO: fill out with the result of refunded (from f.Continuation, f.Args or your records).
	return errors.New("refund_payment: RefundedOutput is not implemented yet")
}

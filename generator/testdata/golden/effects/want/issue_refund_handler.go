// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package billing

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// IssueRefundImpl implements IssueRefundHandler for tool issue_refund.
// Give it what the methods need: a database handle, API clients.
type IssueRefundImpl struct{}

var _ IssueRefundHandler = (*IssueRefundImpl)(nil)

// Authorize decides whether f.Call.Principal may run issue_refund with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *IssueRefundImpl) Authorize(ctx context.Context, f *IssueRefundFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("issue_refund: Authorize is not implemented yet")
}

// OrderRefundable is the check of state check.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *IssueRefundImpl) OrderRefundable(ctx context.Context, f *IssueRefundFlow) error {
	// TODO: check orderRefundable; set f.Continuation fields later states need.
	return errors.New("issue_refund: OrderRefundable is not implemented yet")
}

// StillRefundable is the check of state recheck.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *IssueRefundImpl) StillRefundable(ctx context.Context, f *IssueRefundFlow) error {
	// TODO: check stillRefundable; set f.Continuation fields later states need.
	return errors.New("issue_refund: StillRefundable is not implemented yet")
}

// ReserveFunds is the side effect of state reserve. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *IssueRefundImpl) ReserveFunds(ctx context.Context, f *IssueRefundFlow) error {
	// TODO: perform reserveFunds; record its results in f.Continuation.
	return errors.New("issue_refund: ReserveFunds is not implemented yet")
}

// RefundPayment is the irreversible side effect of state refund. Once it returned, it is not run
// again for operation id refund-{orderId}-{amountCents}: retries replay its outcome. If the
// instance running it dies first, a retry runs it again after the lease (at least once):
// f.Call.Attempt.Takeover says so, and f.Call.Attempt.OperationID is the same on every attempt;
// pass it as the idempotency key of the downstream call. Store its results in f.Continuation.
// Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry
// try again.
func (h *IssueRefundImpl) RefundPayment(ctx context.Context, f *IssueRefundFlow) error {
	// TODO: perform refundPayment; record its results in f.Continuation.
	return errors.New("issue_refund: RefundPayment is not implemented yet")
}

// NotifyCustomer is the side effect of state notify. Once it returned, it is not run again for
// operation id notify/{refundId}/{channel.via}/{workflowId}: retries replay its outcome. If the
// instance running it dies first, a retry runs it again after the lease (at least once):
// f.Call.Attempt.Takeover says so, and f.Call.Attempt.OperationID is the same on every attempt;
// pass it as the idempotency key of the downstream call. Store its results in f.Continuation.
// Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry
// try again.
func (h *IssueRefundImpl) NotifyCustomer(ctx context.Context, f *IssueRefundFlow) error {
	// TODO: perform notifyCustomer; record its results in f.Continuation.
	return errors.New("issue_refund: NotifyCustomer is not implemented yet")
}

// WriteAudit is the side effect of state audit. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *IssueRefundImpl) WriteAudit(ctx context.Context, f *IssueRefundFlow) error {
	// TODO: perform writeAudit; record its results in f.Continuation.
	return errors.New("issue_refund: WriteAudit is not implemented yet")
}

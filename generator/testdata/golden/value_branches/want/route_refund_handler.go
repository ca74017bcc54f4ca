// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package routing

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RouteRefundImpl implements RouteRefundHandler for tool route_refund.
// Give it what the methods need: a database handle, API clients.
type RouteRefundImpl struct{}

var _ RouteRefundHandler = (*RouteRefundImpl)(nil)

// Authorize decides whether f.Call.Principal may run route_refund with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *RouteRefundImpl) Authorize(ctx context.Context, f *RouteRefundFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("route_refund: Authorize is not implemented yet")
}

// LookupOrder is the check of state lookup.
// The order exists; its customer's tier and risk score are known.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *RouteRefundImpl) LookupOrder(ctx context.Context, f *RouteRefundFlow) error {
	// TODO: check lookupOrder; set f.Continuation fields later states need.
	return errors.New("route_refund: LookupOrder is not implemented yet")
}

// IssueVoucher is the side effect of state issueVoucher. Once it returned, it is not run again for
// operation id voucher-{orderId}: retries replay its outcome. If the instance running it dies
// first, a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so,
// and f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of
// the downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite
// refusal (recorded and replayed); any other error lets a retry try again.
func (h *RouteRefundImpl) IssueVoucher(ctx context.Context, f *RouteRefundFlow) error {
	// TODO: perform issueVoucher; record its results in f.Continuation.
	return errors.New("route_refund: IssueVoucher is not implemented yet")
}

// RefundToCardNow is the side effect of state refundExpress. Once it returned, it is not run again
// for operation id refund-{orderId}: retries replay its outcome. If the instance running it dies
// first, a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so,
// and f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of
// the downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite
// refusal (recorded and replayed); any other error lets a retry try again.
func (h *RouteRefundImpl) RefundToCardNow(ctx context.Context, f *RouteRefundFlow) error {
	// TODO: perform refundToCardNow; record its results in f.Continuation.
	return errors.New("route_refund: RefundToCardNow is not implemented yet")
}

// RefundToCard is the side effect of state refundCard. Once it returned, it is not run again for
// operation id refund-{orderId}: retries replay its outcome. If the instance running it dies first,
// a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *RouteRefundImpl) RefundToCard(ctx context.Context, f *RouteRefundFlow) error {
	// TODO: perform refundToCard; record its results in f.Continuation.
	return errors.New("route_refund: RefundToCard is not implemented yet")
}

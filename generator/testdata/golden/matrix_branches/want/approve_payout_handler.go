// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package branches

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ApprovePayoutImpl implements ApprovePayoutHandler for tool approve_payout.
// Give it what the methods need: a database handle, API clients.
type ApprovePayoutImpl struct{}

var _ ApprovePayoutHandler = (*ApprovePayoutImpl)(nil)

// Authorize decides whether f.Call.Principal may run approve_payout with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ApprovePayoutImpl) Authorize(ctx context.Context, f *ApprovePayoutFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("approve_payout: Authorize is not implemented yet")
}

// RoutePayout is the check of state route.
// Amounts above the threshold need an approver.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ApprovePayoutImpl) RoutePayout(ctx context.Context, f *ApprovePayoutFlow) (ApprovePayoutRoutePayoutOutcome, error) {
	// TODO: check routePayout; set f.Continuation fields later states need.
	return 0, errors.New("approve_payout: RoutePayout is not implemented yet")
}

// SendPayout is the side effect of state pay. Once it returned, it is not run again for operation
// id payout-{payee}: retries replay its outcome. If the instance running it dies first, a retry
// runs it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *ApprovePayoutImpl) SendPayout(ctx context.Context, f *ApprovePayoutFlow) error {
	// TODO: perform sendPayout; record its results in f.Continuation.
	return errors.New("approve_payout: SendPayout is not implemented yet")
}

// AuditDecline is the side effect of state recordDecline. Once it returned, it is not run again for
// this workflow round: retries replay its outcome. If the instance running it dies first, a retry
// runs it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Notes the declined payout for the audit
// log. Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a
// retry try again.
func (h *ApprovePayoutImpl) AuditDecline(ctx context.Context, f *ApprovePayoutFlow) error {
	// TODO: perform auditDecline; record its results in f.Continuation.
	return errors.New("approve_payout: AuditDecline is not implemented yet")
}

// KnownApprover is custom validator knownApprover; it runs once value has passed the spec's
// built-in constraints. The approver is in the directory. Return mrtr.Invalid saying what is wrong
// with value: the user is shown it (an answer is asked for again). Any other error means value
// could not be checked (a backend is down): the round fails as a dependency error, and the error
// goes to the log only.
func (h *ApprovePayoutImpl) KnownApprover(ctx context.Context, value string) error {
	// TODO: validate value; return nil when it is acceptable, mrtr.Invalid("...") saying what is
	// wrong when it is not.
	return errors.New("approve_payout: KnownApprover is not implemented yet")
}

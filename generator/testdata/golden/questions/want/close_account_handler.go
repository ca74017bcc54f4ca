// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package closing

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// CloseAccountImpl implements CloseAccountHandler for tool close_account.
// Give it what the methods need: a database handle, API clients.
type CloseAccountImpl struct{}

var _ CloseAccountHandler = (*CloseAccountImpl)(nil)

// Authorize decides whether f.Call.Principal may run close_account with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *CloseAccountImpl) Authorize(ctx context.Context, f *CloseAccountFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("close_account: Authorize is not implemented yet")
}

// LookupAccount is the check of state lookup. The account exists and is open; its plan is known. It
// must set f.Continuation.Plan before it returns (sets: in the spec); a value still empty fails the
// round. Return mrtr.Reject to refuse the request with a message; any other error is a dependency
// failure.
func (h *CloseAccountImpl) LookupAccount(ctx context.Context, f *CloseAccountFlow) error {
	// TODO: check lookupAccount; set f.Continuation fields later states need.
	return errors.New("close_account: LookupAccount is not implemented yet")
}

// CloseAccount is the side effect of state close. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *CloseAccountImpl) CloseAccount(ctx context.Context, f *CloseAccountFlow) error {
	// TODO: perform closeAccount; record its results in f.Continuation.
	return errors.New("close_account: CloseAccount is not implemented yet")
}

// ReviewRefund is the check of state review. The refund asked for is within what the plan allows.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
// In state review, return mrtr.AskAgain with a message for the user to ask askPaid again (2 answers
// in all; then kept).
func (h *CloseAccountImpl) ReviewRefund(ctx context.Context, f *CloseAccountFlow) error {
	// TODO: check reviewRefund; set f.Continuation fields later states need.
	return errors.New("close_account: ReviewRefund is not implemented yet")
}

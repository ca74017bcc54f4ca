// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package treasury

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ReleaseFundsImpl implements ReleaseFundsHandler for tool release_funds.
// Give it what the methods need: a database handle, API clients.
type ReleaseFundsImpl struct{}

var _ ReleaseFundsHandler = (*ReleaseFundsImpl)(nil)

// Authorize decides whether f.Call.Principal may run release_funds with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ReleaseFundsImpl) Authorize(ctx context.Context, f *ReleaseFundsFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("release_funds: Authorize is not implemented yet")
}

// ApproveApprovers resolves role "treasury" of approval gate approve to the principals who may
// approve f's action (as f.Call.Principal names them). It is called when the approval is requested;
// a principal it does not return cannot approve. The requester may approve too, on the approval
// page.
func (h *ReleaseFundsImpl) ApproveApprovers(ctx context.Context, f *ReleaseFundsFlow) ([]string, error) {
	// TODO: return the principals of role "treasury" who may approve this action.
	return nil, errors.New("release_funds: ApproveApprovers is not implemented yet")
}

// ApproveEscalation resolves role "cfo", to whom approval gate approve escalates 24h after the
// request, to principals: they are notified then, and may approve from then on.
func (h *ReleaseFundsImpl) ApproveEscalation(ctx context.Context, f *ReleaseFundsFlow) ([]string, error) {
	// TODO: return the principals of role "cfo" who may approve this action.
	return nil, errors.New("release_funds: ApproveEscalation is not implemented yet")
}

// AccountOpen is the check of state recheck.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ReleaseFundsImpl) AccountOpen(ctx context.Context, f *ReleaseFundsFlow) error {
	// TODO: check accountOpen; set f.Continuation fields later states need.
	return errors.New("release_funds: AccountOpen is not implemented yet")
}

// ReleaseFunds is the irreversible side effect of state release. Once it returned, it is not run
// again for this workflow round: retries replay its outcome. If the instance running it dies first,
// a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *ReleaseFundsImpl) ReleaseFunds(ctx context.Context, f *ReleaseFundsFlow) error {
	// TODO: perform releaseFunds; record its results in f.Continuation.
	return errors.New("release_funds: ReleaseFunds is not implemented yet")
}

// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package release

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ShipReleaseImpl implements ShipReleaseHandler for tool ship_release.
// Give it what the methods need: a database handle, API clients.
type ShipReleaseImpl struct{}

var _ ShipReleaseHandler = (*ShipReleaseImpl)(nil)

// Authorize decides whether f.Call.Principal may run ship_release with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ShipReleaseImpl) Authorize(ctx context.Context, f *ShipReleaseFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("ship_release: Authorize is not implemented yet")
}

// ChangedSince is the check of state diff. Finds what changed since the release, and who may own
// the rollout. It must set f.Continuation.Changed (on changes), f.Continuation.Owners (on changes),
// f.Continuation.Summary (on changes, nothing) before it returns (sets: in the spec); a value still
// empty fails the round. Return mrtr.Reject to refuse the request with a message; any other error
// is a dependency failure.
func (h *ShipReleaseImpl) ChangedSince(ctx context.Context, f *ShipReleaseFlow) (ShipReleaseChangedSinceOutcome, error) {
	// TODO: check changedSince; set f.Continuation fields later states need.
	return 0, errors.New("ship_release: ChangedSince is not implemented yet")
}

// ShipServices is the side effect of state ship. Once it returned, it is not run again for
// operation id ship-{since}-{plan.owner}: retries replay its outcome. If the instance running it
// dies first, a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says
// so, and f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key
// of the downstream call. Store its results in f.Continuation. It must set f.Continuation.ReleaseID
// before it returns (sets: in the spec); a value still empty fails the round. Return mrtr.Reject
// for a definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *ShipReleaseImpl) ShipServices(ctx context.Context, f *ShipReleaseFlow) error {
	// TODO: perform shipServices; record its results in f.Continuation.
	return errors.New("ship_release: ShipServices is not implemented yet")
}

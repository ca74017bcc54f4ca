// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package releases

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ApproveDeploymentImpl implements ApproveDeploymentHandler for tool approve_deployment.
// Give it what the methods need: a database handle, API clients.
type ApproveDeploymentImpl struct{}

var _ ApproveDeploymentHandler = (*ApproveDeploymentImpl)(nil)

// Authorize decides whether f.Call.Principal may run approve_deployment with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ApproveDeploymentImpl) Authorize(ctx context.Context, f *ApproveDeploymentFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("approve_deployment: Authorize is not implemented yet")
}

// ChangedServices is the check of state diff. Compare the builds of every service with what the
// environment runs. It must set f.Continuation.Changes (on changes), f.Continuation.LastRelease (on
// changes, upToDate) before it returns (sets: in the spec); a value still empty fails the round.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ApproveDeploymentImpl) ChangedServices(ctx context.Context, f *ApproveDeploymentFlow) (ApproveDeploymentChangedServicesOutcome, error) {
	// TODO: check changedServices; set f.Continuation fields later states need.
	return 0, errors.New("approve_deployment: ChangedServices is not implemented yet")
}

// BuildsStillPending is the check of state recheck.
// The picked builds are still the latest, and not deployed meanwhile.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ApproveDeploymentImpl) BuildsStillPending(ctx context.Context, f *ApproveDeploymentFlow) (ApproveDeploymentBuildsStillPendingOutcome, error) {
	// TODO: check buildsStillPending; set f.Continuation fields later states need.
	return 0, errors.New("approve_deployment: BuildsStillPending is not implemented yet")
}

// DeployBuilds is the side effect of state deploy. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. It must set f.Continuation.ReleaseID before
// it returns (sets: in the spec); a value still empty fails the round. Return mrtr.Reject for a
// definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *ApproveDeploymentImpl) DeployBuilds(ctx context.Context, f *ApproveDeploymentFlow) error {
	// TODO: perform deployBuilds; record its results in f.Continuation.
	return errors.New("approve_deployment: DeployBuilds is not implemented yet")
}

// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package deploys

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// DeployReleaseImpl implements DeployReleaseHandler for tool deploy_release.
// Give it what the methods need: a database handle, API clients.
type DeployReleaseImpl struct{}

var _ DeployReleaseHandler = (*DeployReleaseImpl)(nil)

// Authorize decides whether f.Call.Principal may run deploy_release with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *DeployReleaseImpl) Authorize(ctx context.Context, f *DeployReleaseFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("deploy_release: Authorize is not implemented yet")
}

// PlanDeploy is the check of state plan.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *DeployReleaseImpl) PlanDeploy(ctx context.Context, f *DeployReleaseFlow) error {
	// TODO: check planDeploy; set f.Continuation fields later states need.
	return errors.New("deploy_release: PlanDeploy is not implemented yet")
}

// ReleaseUnchanged is the check of state recheck.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *DeployReleaseImpl) ReleaseUnchanged(ctx context.Context, f *DeployReleaseFlow) error {
	// TODO: check releaseUnchanged; set f.Continuation fields later states need.
	return errors.New("deploy_release: ReleaseUnchanged is not implemented yet")
}

// DeployRelease is the irreversible side effect of state deploy. Once it returned, it is not run
// again for operation id deploy-{releaseId}: retries replay its outcome. If the instance running it
// dies first, a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says
// so, and f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key
// of the downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite
// refusal (recorded and replayed); any other error lets a retry try again.
func (h *DeployReleaseImpl) DeployRelease(ctx context.Context, f *DeployReleaseFlow) error {
	// TODO: perform deployRelease; record its results in f.Continuation.
	return errors.New("deploy_release: DeployRelease is not implemented yet")
}

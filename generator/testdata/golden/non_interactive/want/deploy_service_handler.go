// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package deploy

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// DeployServiceImpl implements DeployServiceHandler for tool deploy_service.
// Give it what the methods need: a database handle, API clients.
type DeployServiceImpl struct{}

var _ DeployServiceHandler = (*DeployServiceImpl)(nil)

// Authorize decides whether f.Call.Principal may run deploy_service with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *DeployServiceImpl) Authorize(ctx context.Context, f *DeployServiceFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("deploy_service: Authorize is not implemented yet")
}

// InspectService is the check of state inspect.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *DeployServiceImpl) InspectService(ctx context.Context, f *DeployServiceFlow) error {
	// TODO: check inspectService; set f.Continuation fields later states need.
	return errors.New("deploy_service: InspectService is not implemented yet")
}

// StillDeployable is the check of state recheck.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *DeployServiceImpl) StillDeployable(ctx context.Context, f *DeployServiceFlow) error {
	// TODO: check stillDeployable; set f.Continuation fields later states need.
	return errors.New("deploy_service: StillDeployable is not implemented yet")
}

// RollOut is the irreversible side effect of state deploy. Once it returned, it is not run again
// for this workflow round: retries replay its outcome. If the instance running it dies first, a
// retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *DeployServiceImpl) RollOut(ctx context.Context, f *DeployServiceFlow) error {
	// TODO: perform rollOut; record its results in f.Continuation.
	return errors.New("deploy_service: RollOut is not implemented yet")
}

// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package deploys

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// StartDeploymentImpl implements StartDeploymentHandler for tool start_deployment.
// Give it what the methods need: a database handle, API clients.
type StartDeploymentImpl struct{}

var _ StartDeploymentHandler = (*StartDeploymentImpl)(nil)

// Authorize decides whether f.Call.Principal may run start_deployment with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *StartDeploymentImpl) Authorize(ctx context.Context, f *StartDeploymentFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("start_deployment: Authorize is not implemented yet")
}

// StartDeployment is the side effect of state start. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. It must set f.Continuation.DeploymentID
// before it returns (sets: in the spec); a value still empty fails the round. Return mrtr.Reject
// for a definite refusal (recorded and replayed); any other error lets a retry try again.
func (h *StartDeploymentImpl) StartDeployment(ctx context.Context, f *StartDeploymentFlow) error {
	// TODO: perform startDeployment; record its results in f.Continuation.
	return errors.New("start_deployment: StartDeployment is not implemented yet")
}

// NotStartedOutput fills the structured result of terminal state notStarted (cancelled), sent as
// structuredContent with the state's message as its text.
// It must set out.Started; a required field left unset, a value the spec does not allow
// or a field of another state fails the round (logged, naming the state and the field).
// It runs once the workflow ends there; retries of that round replay the recorded result.
// An error is a dependency failure.
func (h *StartDeploymentImpl) NotStartedOutput(ctx context.Context, f *StartDeploymentFlow, out *StartDeploymentOutput) error {
	// TODO: fill out with the result of notStarted (from f.Continuation, f.Args or your records).
	return errors.New("start_deployment: NotStartedOutput is not implemented yet")
}

// StartedOutput fills the structured result of terminal state started (success), sent as
// structuredContent with the state's message as its text. It must set out.DeploymentID,
// out.EtaSeconds, out.Region, out.Started, out.URL; a required field left unset, a value the spec
// does not allow or a field of another state fails the round (logged, naming the state and the
// field). It runs once the workflow ends there; retries of that round replay the recorded result.
// An error is a dependency failure.
func (h *StartDeploymentImpl) StartedOutput(ctx context.Context, f *StartDeploymentFlow, out *StartDeploymentOutput) error {
	// TODO: fill out with the result of started (from f.Continuation, f.Args or your records).
	return errors.New("start_deployment: StartedOutput is not implemented yet")
}

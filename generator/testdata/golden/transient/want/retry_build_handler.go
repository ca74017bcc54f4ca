// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package builds

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RetryBuildImpl implements RetryBuildHandler for tool retry_build.
// Give it what the methods need: a database handle, API clients.
type RetryBuildImpl struct{}

var _ RetryBuildHandler = (*RetryBuildImpl)(nil)

// Authorize decides whether f.Call.Principal may run retry_build with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *RetryBuildImpl) Authorize(ctx context.Context, f *RetryBuildFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("retry_build: Authorize is not implemented yet")
}

// FindFailedRun is the check of state lookup. It must set f.Continuation.RunID before it returns
// (sets: in the spec); a value still empty fails the round. Return mrtr.Reject to refuse the
// request with a message; any other error is a dependency failure.
func (h *RetryBuildImpl) FindFailedRun(ctx context.Context, f *RetryBuildFlow) error {
	// TODO: check findFailedRun; set f.Continuation fields later states need.
	return errors.New("retry_build: FindFailedRun is not implemented yet")
}

// JobExists is the check of state verify. Return mrtr.Reject to refuse the request with a message;
// any other error is a dependency failure. In state verify, return mrtr.AskAgain with a message for
// the user to ask askJob again (3 answers in all; then noJob).
func (h *RetryBuildImpl) JobExists(ctx context.Context, f *RetryBuildFlow) error {
	// TODO: check jobExists; set f.Continuation fields later states need.
	return errors.New("retry_build: JobExists is not implemented yet")
}

// RenderCiLog computes transient value ciLog, which templates show but the continuation never
// carries. It runs before each render of a template naming it (the first ask and every re-ask); an
// error fails the round as a dependency failure. It may read pipeline, runId (reads: in the spec),
// which are set wherever it runs.
func (h *RetryBuildImpl) RenderCiLog(ctx context.Context, f *RetryBuildFlow) (string, error) {
	// TODO: compute ciLog from f.Args and f.Continuation.
	var v string
	return v, errors.New("retry_build: RenderCiLog is not implemented yet")
}

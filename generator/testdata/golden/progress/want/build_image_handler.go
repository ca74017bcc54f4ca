// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package builds

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// BuildImageImpl implements BuildImageHandler for tool build_image.
// Give it what the methods need: a database handle, API clients.
type BuildImageImpl struct{}

var _ BuildImageHandler = (*BuildImageImpl)(nil)

// Authorize decides whether f.Call.Principal may run build_image with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *BuildImageImpl) Authorize(ctx context.Context, f *BuildImageFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("build_image: Authorize is not implemented yet")
}

// ScanRepository is the check of state scan. The state is slow (progress: true): report with
// p.Report(ctx, progress, total, message), which sends notifications/progress on the request's
// progressToken (nothing when it has none, or once the request was answered). Return mrtr.Reject to
// refuse the request with a message; any other error is a dependency failure.
func (h *BuildImageImpl) ScanRepository(ctx context.Context, f *BuildImageFlow, p *mrtr.Progress) error {
	// TODO: check scanRepository; set f.Continuation fields later states need.
	return errors.New("build_image: ScanRepository is not implemented yet")
}

// BuildImage is the side effect of state build. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. It must set f.Continuation.ImageID before
// it returns (sets: in the spec); a value still empty fails the round. The state is slow (progress:
// true): report with p.Report(ctx, progress, total, message), which sends notifications/progress on
// the request's progressToken (nothing when it has none, or once the request was answered). Return
// mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry try
// again.
func (h *BuildImageImpl) BuildImage(ctx context.Context, f *BuildImageFlow, p *mrtr.Progress) error {
	// TODO: perform buildImage; record its results in f.Continuation.
	return errors.New("build_image: BuildImage is not implemented yet")
}

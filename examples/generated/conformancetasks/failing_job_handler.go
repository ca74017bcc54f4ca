package conformancetasks

import (
	"context"
	"time"
)

// buildTime is how long failing_job runs before it fails: about a second,
// as the suite asks.
const buildTime = time.Second

// FailingJobImpl implements FailingJobHandler for tool failing_job: a job
// that runs for a while and then reports that its build broke, a tool
// error (terminal state broke), so its task ends completed with isError,
// not failed.
type FailingJobImpl struct{}

var _ FailingJobHandler = (*FailingJobImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*FailingJobImpl) Authorize(context.Context, *FailingJobFlow) error { return nil }

// RunBuild runs the job for buildTime, or until ctx ends; the build always
// breaks afterwards (the spec's next state).
func (*FailingJobImpl) RunBuild(ctx context.Context, _ *FailingJobFlow) error {
	return wait(ctx, buildTime)
}

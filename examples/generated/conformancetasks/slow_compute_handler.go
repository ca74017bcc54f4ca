package conformancetasks

import (
	"context"
	"time"
)

// SlowComputeImpl implements SlowComputeHandler for tool slow_compute: the
// computation is a wait of the given seconds. Its check runs on the
// task's context, so tasks/cancel stops it at once and the task settles to
// cancelled (the suite cancels a 60-second computation and waits at most
// 10 seconds for that).
type SlowComputeImpl struct{}

var _ SlowComputeHandler = (*SlowComputeImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*SlowComputeImpl) Authorize(context.Context, *SlowComputeFlow) error { return nil }

// Compute waits f.Args.Seconds (the spec bounds them to 0..600), or until
// ctx ends.
func (*SlowComputeImpl) Compute(ctx context.Context, f *SlowComputeFlow) error {
	return wait(ctx, time.Duration(f.Args.Seconds*float64(time.Second)))
}

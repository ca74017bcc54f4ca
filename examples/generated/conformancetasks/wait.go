package conformancetasks

import (
	"context"
	"time"
)

// wait pauses for d, or until ctx ends (tasks/cancel, the task's timeout,
// the client going away), whichever comes first; it returns ctx's error
// when ctx ended first.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Package ticks is the loop the background work of mrtr's packages
// shares (store sweepers, the task manager's lease renewal, cancel watch
// and sweeps): something to do on every tick of a ticker until a context
// ends.
package ticks

import (
	"context"
	"time"
)

// Every calls f every interval, the first time one interval from now,
// until ctx is done or f returns false.
func Every(ctx context.Context, every time.Duration, f func() bool) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !f() {
			return
		}
	}
}

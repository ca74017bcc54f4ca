package store

import (
	"context"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/ticks"
)

// DefaultSweepEvery is the interval RunSweeper uses when every <= 0.
const DefaultSweepEvery = time.Minute

// RunSweeper calls s.Sweep once right away and then every interval until
// ctx is done, then returns. Errors (other than those caused by ctx ending)
// go to onErr when it is non-nil; the loop keeps going after an error.
// Run one sweeper per store per process (several instances sweeping the
// same shared store is safe, merely redundant).
func RunSweeper(ctx context.Context, s Store, every time.Duration, onErr func(error)) {
	if every <= 0 {
		every = DefaultSweepEvery
	}
	sweep := func() {
		if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
	}
	if ctx.Err() != nil {
		return
	}
	sweep()
	ticks.Every(ctx, every, func() bool {
		sweep()
		return true
	})
}

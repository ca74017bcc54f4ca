// Package storecall is what the calls of mrtr's shared network stores
// (mrtr/store/pgstore, mrtr/store/redisstore) check before they run.
package storecall

import (
	"context"
	"sync/atomic"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Begin returns, in this order: invalid (the call's validation error, if
// it has one), the error of the caller's context, store.ErrClosed when
// closed is set; nil when the call may run.
func Begin(ctx context.Context, invalid error, closed *atomic.Bool) error {
	if invalid != nil {
		return invalid
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if closed.Load() {
		return store.ErrClosed
	}
	return nil
}

// BeginRef is Begin for a call that reads the continuation record ref:
// after the checks of Begin, store.ErrNotFound for a ref no record can
// have (store.ValidRef).
func BeginRef(ctx context.Context, ref string, closed *atomic.Bool) error {
	if err := Begin(ctx, nil, closed); err != nil {
		return err
	}
	if !store.ValidRef(ref) {
		return store.ErrNotFound
	}
	return nil
}

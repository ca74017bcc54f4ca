package mrtr

import (
	"context"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// boundedStore gives every store call a deadline (Config.StoreTimeout).
// A store whose link is cut fails fast, but one whose packets vanish (a
// black hole, a stalled primary) would hold each round, and each goroutine
// serving it, for as long as the client waits, and then some: a bounded call
// turns that into a retryable error instead.
type boundedStore struct {
	s       store.Store
	timeout time.Duration
}

func bounded(s store.Store, timeout time.Duration) store.Store {
	if s == nil {
		return nil
	}
	return &boundedStore{s: s, timeout: timeout}
}

func (b *boundedStore) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.s.Claim(ctx, req)
}

func (b *boundedStore) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.s.Complete(ctx, key, owner, result, retain)
}

func (b *boundedStore) Release(ctx context.Context, key, owner string) error {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.s.Release(ctx, key, owner)
}

func (b *boundedStore) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.s.PutState(ctx, rec, ttl)
}

func (b *boundedStore) GetState(ctx context.Context, ref string) (store.StateRecord, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.s.GetState(ctx, ref)
}

func (b *boundedStore) DeleteWorkflowStates(ctx context.Context, workflow string) error {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.s.DeleteWorkflowStates(ctx, workflow)
}

func (b *boundedStore) Sweep(ctx context.Context) (int, error) { return b.s.Sweep(ctx) }

func (b *boundedStore) Close() error { return b.s.Close() }

// BeginEffectTx forwards to the store when it can begin effect
// transactions (store.TxBeginner); the transaction's own calls are not
// bounded, as they run inside the effect.
func (b *boundedStore) BeginEffectTx(ctx context.Context) (store.EffectTx, error) {
	tb, ok := b.s.(store.TxBeginner)
	if !ok {
		return nil, store.ErrNoEffectTx
	}
	return tb.BeginEffectTx(ctx)
}

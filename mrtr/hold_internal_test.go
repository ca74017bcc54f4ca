package mrtr

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// claimCounter counts the Claims that reach the store, and says whether one
// arrived after the holder was stopped.
type claimCounter struct {
	store.Store
	claims  atomic.Int32
	stopped atomic.Bool
	late    atomic.Int32
}

func (c *claimCounter) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	c.claims.Add(1)
	if c.stopped.Load() {
		c.late.Add(1)
	}
	return c.Store.Claim(ctx, req)
}

func holdEngine(t *testing.T, st store.Store) *Engine {
	t.Helper()
	ring, err := seal.NewRing(seal.Key{ID: 1, Secret: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(Config{Audience: "a", Codec: seal.New(ring, seal.Options{}), Store: st,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A holder stopped before a third of its lease sends nothing; one that runs
// longer renews, and no renewal is sent once stop has returned, whenever
// stop comes (before the first renewal, during one, between two).
func TestHoldRenewsOnlyWhileHeldAndNeverAfterStop(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		lease    time.Duration
		work     time.Duration
		renewals func(n int32) bool
	}{
		{"quick holder", 300 * time.Millisecond, time.Millisecond, func(n int32) bool { return n == 0 }},
		{"slow holder", 30 * time.Millisecond, 100 * time.Millisecond, func(n int32) bool { return n >= 2 }},
		{"stopped at the first renewal", 3 * time.Millisecond, time.Millisecond, func(int32) bool { return true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 {
				c := &claimCounter{Store: store.NewMemory(store.Options{})}
				e := holdEngine(t, c)
				req := store.ClaimRequest{Key: "k", Fingerprint: []byte("f"), Owner: "o", Lease: tc.lease}
				if res, err := c.Store.Claim(ctx, req); err != nil || res.Status != store.Acquired {
					t.Fatalf("claim: %+v, %v", res, err)
				}
				stop := e.hold(ctx, req)
				time.Sleep(tc.work)
				stop()
				c.stopped.Store(true)
				n := c.claims.Load()
				time.Sleep(2 * tc.lease / 3)
				if !tc.renewals(n) {
					t.Fatalf("%d renewals while held %v with a lease of %v", n, tc.work, tc.lease)
				}
				if late := c.late.Load(); late != 0 {
					t.Fatalf("%d renewals after stop returned", late)
				}
				if tc.name == "quick holder" {
					break // its wait, past the first renewal's time, proves the timer stopped
				}
			}
		})
	}
}

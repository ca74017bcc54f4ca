package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// performRound is what the engine does for a final round with batches:
// claim the round and the effect together, run the effect if both are
// acquired, and complete both in one batch; wait while another attempt
// holds the round, take its reply otherwise.
func performRound(ctx context.Context, apply func(context.Context, store.Store, []store.Op) ([]store.OpResult, error),
	s store.Store, round, effect, owner string, run func() []byte) ([]byte, error) {
	for {
		res, err := apply(ctx, s, []store.Op{store.ClaimOp(req(round, "fpR", owner, lease)), store.ClaimOp(req(effect, "fpE", owner, lease)).IfClaimed()})
		if err != nil {
			return nil, err
		}
		switch r, eff := res[0].Claim, res[1]; {
		case r.Status == store.Replayed:
			return r.Result, nil
		case r.Status == store.InFlight || (r.Status == store.Acquired && eff.Claim.Status == store.InFlight):
			if r.Status == store.Acquired {
				if _, err := apply(ctx, s, []store.Op{store.ReleaseOp(round, owner)}); err != nil {
					return nil, err
				}
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		case r.Status == store.Acquired && eff.Claim.Status == store.Acquired:
			out := run()
			res, err := apply(ctx, s, []store.Op{store.CompleteOp(effect, owner, out, retain), store.CompleteOp(round, owner, out, retain)})
			if err != nil {
				return nil, err
			}
			if res[0].Err != nil || res[1].Err != nil {
				return nil, fmt.Errorf("completing: %w", errors.Join(res[0].Err, res[1].Err))
			}
			return out, nil
		case r.Status == store.Acquired && eff.Claim.Status == store.Replayed:
			res, err := apply(ctx, s, []store.Op{store.CompleteOp(round, owner, eff.Claim.Result, retain)})
			if err != nil {
				return nil, err
			}
			return eff.Claim.Result, res[0].Err
		default:
			return nil, fmt.Errorf("round %v, effect %+v", r.Status, eff)
		}
	}
}

// testBatchRace: copies of one round race; the effect runs once and every
// copy gets its result.
func testBatchRace(e *batchEnv) {
	const n = 30
	var effects atomic.Int32
	results, errs := make([][]byte, n), make([]error, n)
	together(n, func(i int) {
		owner := fmt.Sprintf("copy-%02d", i)
		results[i], errs[i] = performRound(e.ctx, e.apply, e.s, "wf/round/2", "wf-r2-charge", owner, func() []byte {
			effects.Add(1)
			time.Sleep(2 * time.Millisecond)
			return []byte("charged by " + owner)
		})
	})
	if got := effects.Load(); got != 1 {
		e.Fatalf("%d racing copies of a round ran its effect %d times, want once", n, got)
	}
	oneResult(e.Fatalf, "copy", results, errs)
}

// testBatchRaceBusinessKey: rounds with distinct round records race for
// one operation record (the same operation reached from several rounds):
// it runs once.
func testBatchRaceBusinessKey(e *batchEnv) {
	const n = 20
	var effects atomic.Int32
	errs := make([]error, n)
	together(n, func(i int) {
		owner := fmt.Sprintf("wf-%02d", i)
		_, errs[i] = performRound(e.ctx, e.apply, e.s, owner+"/round/2", "charge-invoice-7", owner, func() []byte {
			effects.Add(1)
			return []byte("charged")
		})
	})
	for i, err := range errs {
		if err != nil {
			e.Fatalf("workflow %d: %v", i, err)
		}
	}
	if got := effects.Load(); got != 1 {
		e.Fatalf("%d workflows racing for one business operation ran it %d times, want once", n, got)
	}
}

func testBatchClose(e *batchEnv) {
	if err := e.s.Close(); err != nil {
		e.Fatal(err)
	}
	if _, err := e.apply(e.ctx, e.s, []store.Op{claimOp("op", "fp", "a")}); err == nil {
		e.Fatal("Apply after Close succeeded")
	}
}

// BatchRoundTrips applies the batches the engine sends in a workflow's
// rounds and checks that each costs one round trip to s (trips reports
// the round trips since reset). Each batch runs once first, so that
// drivers that prepare statements (pgx) have done so.
func BatchRoundTrips(t *testing.T, s store.Store, reset func(), trips func() int64) {
	t.Helper()
	ctx := context.Background()
	name := UniqueName()
	step := 0
	batches := []struct {
		what string
		ops  func(k string) []store.Op
	}{
		{"claim round + effect", func(k string) []store.Op {
			return []store.Op{claimOp(k+"/round", "fp", "a"), claimOp(k+"/effect", "fp", "a").IfClaimed()}
		}},
		{"record outcome + reply", func(k string) []store.Op {
			return []store.Op{store.CompleteOp(k+"/effect", "a", make([]byte, 256), retain), store.CompleteOp(k+"/round", "a", make([]byte, 1024), retain)}
		}},
		{"claim + record reply", func(k string) []store.Op {
			return []store.Op{claimOp(k+"/r2", "fp", "a"), store.CompleteOp(k+"/r2", "a", make([]byte, 1024), retain).IfClaimed()}
		}},
		{"claim round + read state", func(k string) []store.Op {
			return []store.Op{store.PutStateOp(store.StateRecord{Ref: k + "/ref", Workflow: k, Data: []byte("d")}, time.Hour),
				claimOp(k+"/r3", "fp", "a"), store.GetStateOp(k + "/ref").IfClaimed()}
		}},
		{"finish by reference", func(k string) []store.Op {
			return []store.Op{store.PutStateOp(store.StateRecord{Ref: k + "/ref2", Workflow: k, Data: []byte("d")}, time.Hour),
				store.CompleteOp(k+"/effect", "a", nil, retain), store.CompleteOp(k+"/r3", "a", nil, retain), store.DeleteWorkflowStatesOp(k)}
		}},
		{"replayed round", func(k string) []store.Op {
			return []store.Op{claimOp(k+"/round", "fp", "b"), claimOp(k+"/effect", "fp", "b").IfClaimed()}
		}},
	}
	for _, warm := range []bool{true, false} {
		step++
		k := fmt.Sprintf("%s-%d", name, step)
		for _, b := range batches {
			reset()
			res, err := store.Apply(ctx, s, b.ops(k))
			if err != nil {
				t.Fatalf("%s: %v", b.what, err)
			}
			for i, r := range res {
				if r.Err != nil {
					t.Fatalf("%s: op %d: %v", b.what, i, r.Err)
				}
			}
			if warm {
				continue
			}
			n := trips()
			t.Logf("batch %-26s %d ops, round trips=%d", b.what, len(res), n)
			if n != 1 {
				t.Errorf("batch %s: %d round trips, want 1", b.what, n)
			}
		}
	}
}

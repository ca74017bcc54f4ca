package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Races: n goroutines released at once on one store, each named i.

// together runs f(0) … f(n-1) in n goroutines released at the same moment,
// and waits for all of them.
func together(n int, f func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			f(i)
		})
	}
	close(start)
	wg.Wait()
}

// oneResult fails unless every racer succeeded and holds the result racer
// 0 holds; who names a racer in the message ("goroutine", "copy").
func oneResult(fatalf func(string, ...any), who string, results [][]byte, errs []error) {
	for i := range results {
		if errs[i] != nil {
			fatalf("%s %d: %v", who, i, errs[i])
		}
		if !bytes.Equal(results[i], results[0]) {
			fatalf("%s %d holds %q, %s 0 holds %q", who, i, trunc(results[i]), who, trunc(results[0]))
		}
	}
}

// perform is what the runtime does for the final round of a tool: claim,
// run the effect once if acquired, wait while someone else runs it, take
// the stored result otherwise.
func perform(ctx context.Context, s store.Store, key, fp, owner string, effect func() []byte) ([]byte, error) {
	for {
		r, err := s.Claim(ctx, req(key, fp, owner, lease))
		if err != nil {
			return nil, err
		}
		switch r.Status {
		case store.Acquired:
			res := effect()
			if err := s.Complete(ctx, key, owner, res, retain); err != nil {
				return nil, err
			}
			return res, nil
		case store.Replayed:
			return r.Result, nil
		case store.InFlight:
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		default:
			return nil, fmt.Errorf("claim: unexpected %v", r.Status)
		}
	}
}

func testRaceOneEffect(e *env) {
	const n = 50
	var effects atomic.Int32
	results, errs := make([][]byte, n), make([]error, n)
	together(n, func(i int) {
		owner := fmt.Sprintf("instance-%02d", i)
		results[i], errs[i] = perform(e.ctx, e.s, "charge/order-42", "fp-order-42", owner, func() []byte {
			effects.Add(1)
			time.Sleep(2 * time.Millisecond) // widen the window
			return []byte("charged by " + owner + "\x00" + strings.Repeat("x", 1000))
		})
	})
	if got := effects.Load(); got != 1 {
		e.Fatalf("%d goroutines racing performed the effect %d times, want exactly once", n, got)
	}
	oneResult(e.Fatalf, "goroutine", results, errs)
	if !bytes.HasPrefix(results[0], []byte("charged by instance-")) {
		e.Fatalf("result %q", trunc(results[0]))
	}
}

func testRaceTakeover(e *env) {
	e.wantClaim("op", "fp", "crashed", store.Acquired)
	e.clock.Advance(lease)
	const n = 20
	var acquired atomic.Int32
	statuses := make([]store.ClaimStatus, n)
	errs := make([]error, n)
	together(n, func(i int) {
		var r store.ClaimResult
		r, errs[i] = e.s.Claim(e.ctx, req("op", "fp", fmt.Sprintf("o%d", i), lease))
		statuses[i] = r.Status
		if r.Status == store.Acquired {
			acquired.Add(1)
		}
	})
	for i := range n {
		if errs[i] != nil {
			e.Fatalf("claim %d: %v", i, errs[i])
		}
		if statuses[i] != store.Acquired && statuses[i] != store.InFlight {
			e.Fatalf("claim %d = %v, want acquired or in-flight", i, statuses[i])
		}
	}
	if got := acquired.Load(); got != 1 {
		e.Fatalf("%d claimants took the lapsed claim over, want exactly 1", got)
	}
	e.wantLeaseLost("op", "crashed", []byte("x"))
}

func testRaceDistinctKeys(e *env) {
	const workers, perWorker = 10, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				key := fmt.Sprintf("op-%d-%d", w, i)
				res, err := perform(e.ctx, e.s, key, "fp", fmt.Sprintf("w%d", w), func() []byte { return []byte(key) })
				if err == nil && string(res) != key {
					err = fmt.Errorf("%s: result %q", key, res)
				}
				if err == nil {
					err = e.s.PutState(e.ctx, store.StateRecord{Ref: "ref-" + key, Workflow: fmt.Sprintf("wf-%d", w), Data: []byte(key)}, time.Hour)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.Fatal(err)
	}
	for w := range workers {
		for i := range perWorker {
			key := fmt.Sprintf("op-%d-%d", w, i)
			e.wantReplay(key, "fp", "check", []byte(key))
		}
	}
	e.clock.Advance(retain)
	e.sweep(workers * perWorker * 2)
}

func testClose(e *env) {
	e.wantClaim("op", "fp", "a", store.Acquired)
	if err := e.s.Close(); err != nil {
		e.Fatalf("Close: %v", err)
	}
	if _, err := e.s.Claim(e.ctx, req("op2", "fp", "a", lease)); err == nil {
		e.Fatal("Claim after Close succeeded")
	}
	if _, err := e.s.GetState(e.ctx, "ref"); err == nil || errors.Is(err, store.ErrNotFound) {
		e.Fatalf("GetState after Close = %v, want a non-ErrNotFound error", err)
	}
	if err := e.s.Close(); err != nil {
		e.Fatalf("second Close: %v", err)
	}
}

// RaceInstances races perInstance goroutines on each of several Store
// instances (own connections, as separate server processes would have)
// over one operation, and fails unless exactly one performed the effect
// and all hold the same result.
func RaceInstances[S store.Store](t *testing.T, ctx context.Context, stores []S, perInstance int) {
	t.Helper()
	n := len(stores) * perInstance
	var effects atomic.Int32
	results, errs := make([][]byte, n), make([]error, n)
	together(n, func(i int) {
		owner := fmt.Sprintf("inst%d-%d", i%len(stores), i)
		results[i], errs[i] = perform(ctx, stores[i%len(stores)], "charge/1", "fp", owner, func() []byte {
			effects.Add(1)
			return []byte("charged by " + owner)
		})
	})
	if got := effects.Load(); got != 1 {
		t.Fatalf("effect ran %d times across %d instances, want 1", got, len(stores))
	}
	oneResult(t.Fatalf, "goroutine", results, errs)
}

package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

func TestRunSweeperRemovesExpiredAndStops(t *testing.T) {
	clock := storetest.NewClock()
	m := store.NewMemory(store.Options{Now: clock.Now})
	defer m.Close()
	ctx := context.Background()
	if err := m.PutState(ctx, store.StateRecord{Ref: "r", Workflow: "w"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)

	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		store.RunSweeper(sctx, m, 5*time.Millisecond, func(err error) { t.Errorf("onErr(%v)", err) })
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		// The sweeper removed it when the next sweep finds nothing.
		if n, err := m.Sweep(ctx); err != nil || n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sweeper did not run")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("RunSweeper did not return after its context ended")
	}
}

type failingStore struct {
	store.Store
	calls atomic.Int32
}

func (f *failingStore) Sweep(ctx context.Context) (int, error) {
	f.calls.Add(1)
	return 0, errors.New("backend down")
}

func TestRunSweeperReportsErrorsAndKeepsGoing(t *testing.T) {
	f := &failingStore{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errs atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		store.RunSweeper(ctx, f, time.Millisecond, func(error) {
			if errs.Add(1) == 3 {
				cancel()
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("RunSweeper did not keep sweeping after errors")
	}
	if errs.Load() < 3 || f.calls.Load() < 3 {
		t.Fatalf("errors reported %d, sweeps %d; want ≥ 3 each", errs.Load(), f.calls.Load())
	}
}

func TestRunSweeperDoneContextReturnsAtOnce(t *testing.T) {
	f := &failingStore{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	store.RunSweeper(ctx, f, time.Hour, func(err error) { t.Errorf("onErr(%v)", err) })
	if f.calls.Load() != 0 {
		t.Fatal("swept with a done context")
	}
}

// Package taskstest is the conformance suite of tasks.Store: every store
// (tasks.MemoryStore, pgtasks, sqlitetasks, redistasks) runs it from its
// own tests, so they all keep the contract that tasks.Store states.
//
// The suite imports no database client: a store's test binary links only
// the client of the store under test.
package taskstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/testclock"
)

// Factory returns a new, empty store whose clock is now. Each call must
// give a store that sees no record of another call (a unique table or key
// prefix); the factory registers any cleanup with t.
type Factory func(t *testing.T, now func() time.Time) tasks.Store

// Options describe what a store does differently where the contract
// leaves it a choice.
type Options struct {
	// ExpiresItself: the backend deletes expired records by itself (Redis
	// key expiry) and Sweep deletes nothing and reports 0. The suite then
	// checks only that Sweep leaves live records alone and that expired
	// ones stay invisible.
	ExpiresItself bool
}

// Concurrency is how many goroutines the concurrency tests run at once.
const Concurrency = 160

// Run runs the suite, each case as a subtest with a store of its own.
func Run(t *testing.T, newStore Factory, opts Options) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s tasks.Store, clock *testclock.Clock, opts Options)
	}{
		{"RoundTrip", testRoundTrip},
		{"GetReturnsCopy", testGetReturnsCopy},
		{"CreateNeverOverwrites", testCreateNeverOverwrites},
		{"Expiry", testExpiry},
		{"UpdateExtendsExpiry", testUpdateExtendsExpiry},
		{"UpdateMissing", testUpdateMissing},
		{"UpdateFnError", testUpdateFnError},
		{"Sweep", testSweep},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"ConcurrentCreates", testConcurrentCreates},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clock := testclock.New()
			c.fn(t, newStore(t, clock.Now), clock, opts)
		})
	}
}

// record returns a record updated at now that expires ttl later, with
// every field of the current Record set, so a store that drops one fails
// RoundTrip.
func record(id string, now time.Time, ttl time.Duration) *tasks.Record {
	return &tasks.Record{
		ID:            id,
		Tool:          "slow_tool",
		Principal:     "p-hash",
		Status:        tasks.StatusInputRequired,
		StatusMessage: "waiting for you",
		CreatedAt:     now.Add(-time.Minute),
		UpdatedAt:     now,
		TTL:           ttl,
		PollInterval:  time.Second,
		Pending:       map[string]json.RawMessage{"k1": json.RawMessage(`{"method":"elicitation/create","params":{"message":"ok?"}}`)},
		Answers:       map[string]json.RawMessage{"k0": json.RawMessage(`{"action":"accept"}`)},
		UsedKeys:      []string{"k0", "k1"},
		Result:        json.RawMessage(`{"content":[{"type":"text","text":"héllo \u2028"}]}`),
		Error:         &tasks.WireError{Code: -32603, Message: "boom", Data: json.RawMessage(`{"x":1}`)},
		Owner:         "instance-a",
	}
}

// sameRecord fails t unless got and want serialise alike (a Record's
// times lose their monotonic reading in any store).
func sameRecord(t *testing.T, what string, got, want *tasks.Record) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g, w) {
		t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func mustCreate(t *testing.T, s tasks.Store, rec *tasks.Record) {
	t.Helper()
	if err := s.Create(context.Background(), rec); err != nil {
		t.Fatalf("Create(%q): %v", rec.ID, err)
	}
}

func mustGet(t *testing.T, s tasks.Store, id string) *tasks.Record {
	t.Helper()
	rec, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%q): %v", id, err)
	}
	return rec
}

func wantNotFound(t *testing.T, s tasks.Store, id string) {
	t.Helper()
	if rec, err := s.Get(context.Background(), id); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get(%q) = %+v, %v; want ErrNotFound", id, rec, err)
	}
}

func testRoundTrip(t *testing.T, s tasks.Store, clock *testclock.Clock, _ Options) {
	want := record("rt", clock.Now(), time.Hour)
	mustCreate(t, s, want)
	sameRecord(t, "Get after Create", mustGet(t, s, "rt"), want)

	got, err := s.Update(context.Background(), "rt", func(r *tasks.Record) error {
		sameRecord(t, "record given to fn", r, want)
		r.Status = tasks.StatusCompleted
		r.Pending = nil
		r.UsedKeys = append(r.UsedKeys, "k2")
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want.Status, want.Pending, want.UsedKeys = tasks.StatusCompleted, nil, []string{"k0", "k1", "k2"}
	sameRecord(t, "Update's result", got, want)
	sameRecord(t, "Get after Update", mustGet(t, s, "rt"), want)
}

func testGetReturnsCopy(t *testing.T, s tasks.Store, clock *testclock.Clock, _ Options) {
	want := record("copy", clock.Now(), time.Hour)
	mustCreate(t, s, want)
	want.Tool = "changed after Create" // the store must not have kept want
	got := mustGet(t, s, "copy")
	got.UsedKeys[0] = "changed after Get"
	got.Answers["k0"] = json.RawMessage(`null`)
	again := mustGet(t, s, "copy")
	if again.Tool != "slow_tool" || again.UsedKeys[0] != "k0" || string(again.Answers["k0"]) != `{"action":"accept"}` {
		t.Fatalf("store shares memory with its callers: %+v", again)
	}
}

func testCreateNeverOverwrites(t *testing.T, s tasks.Store, clock *testclock.Clock, _ Options) {
	first := record("dup", clock.Now(), time.Hour)
	mustCreate(t, s, first)
	second := record("dup", clock.Now(), 2*time.Hour)
	second.Tool = "other_tool"
	if err := s.Create(context.Background(), second); err == nil {
		t.Fatal("second Create of one id succeeded")
	}
	sameRecord(t, "record after a refused Create", mustGet(t, s, "dup"), first)
}

// testExpiry checks the boundary to the nanosecond: a record is live
// strictly before its ExpiresAt.
func testExpiry(t *testing.T, s tasks.Store, clock *testclock.Clock, _ Options) {
	const ttl = time.Minute + 1234567*time.Nanosecond // not a whole millisecond
	mustCreate(t, s, record("exp", clock.Now(), ttl))
	clock.Advance(ttl - time.Nanosecond)
	mustGet(t, s, "exp")
	if _, err := s.Update(context.Background(), "exp", func(*tasks.Record) error { return nil }); err != nil {
		t.Fatalf("Update 1ns before expiry: %v", err)
	}
	clock.Advance(time.Nanosecond)
	wantNotFound(t, s, "exp")
	called := false
	_, err := s.Update(context.Background(), "exp", func(*tasks.Record) error { called = true; return nil })
	if !errors.Is(err, tasks.ErrNotFound) || called {
		t.Fatalf("Update of an expired record: err %v, fn called %v; want ErrNotFound, not called", err, called)
	}
}

// testUpdateExtendsExpiry checks that a store recomputes the expiry from
// the updated record (ExpiresAt is UpdatedAt + TTL).
func testUpdateExtendsExpiry(t *testing.T, s tasks.Store, clock *testclock.Clock, _ Options) {
	mustCreate(t, s, record("ext", clock.Now(), time.Minute))
	clock.Advance(50 * time.Second)
	if _, err := s.Update(context.Background(), "ext", func(r *tasks.Record) error {
		r.UpdatedAt = clock.Now()
		return nil
	}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	clock.Advance(50 * time.Second) // 100s after Create, 50s after Update
	if n, err := s.Sweep(context.Background(), clock.Now()); err != nil || n != 0 {
		t.Fatalf("Sweep = %d, %v; want 0 (the record was extended)", n, err)
	}
	mustGet(t, s, "ext")
	clock.Advance(10 * time.Second)
	wantNotFound(t, s, "ext")
}

func testUpdateMissing(t *testing.T, s tasks.Store, _ *testclock.Clock, _ Options) {
	called := false
	rec, err := s.Update(context.Background(), "nobody", func(*tasks.Record) error { called = true; return nil })
	if !errors.Is(err, tasks.ErrNotFound) || rec != nil || called {
		t.Fatalf("Update of a missing id = %+v, %v, fn called %v; want nil, ErrNotFound, not called", rec, err, called)
	}
	wantNotFound(t, s, "nobody")
}

func testUpdateFnError(t *testing.T, s tasks.Store, clock *testclock.Clock, _ Options) {
	want := record("fnerr", clock.Now(), time.Hour)
	mustCreate(t, s, want)
	errRefused := errors.New("refused")
	rec, err := s.Update(context.Background(), "fnerr", func(r *tasks.Record) error {
		r.Status = tasks.StatusFailed
		r.UpdatedAt = r.UpdatedAt.Add(time.Hour)
		r.UsedKeys = nil
		return fmt.Errorf("wrapped: %w", errRefused)
	})
	if !errors.Is(err, errRefused) || rec != nil {
		t.Fatalf("Update with a failing fn = %+v, %v; want nil and fn's error", rec, err)
	}
	sameRecord(t, "record after a failed fn", mustGet(t, s, "fnerr"), want)

	// The failed Update let go of the record: the next one goes through.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Update(ctx, "fnerr", func(r *tasks.Record) error { r.Status = tasks.StatusFailed; return nil }); err != nil {
		t.Fatalf("Update after a failed fn: %v", err)
	}
}

func testSweep(t *testing.T, s tasks.Store, clock *testclock.Clock, opts Options) {
	start := clock.Now()
	live := []string{"live-a", "live-b", "live-c"}
	expired := []string{"old-a", "old-b"}
	for _, id := range live {
		mustCreate(t, s, record(id, start, time.Hour))
	}
	mustCreate(t, s, record("old-a", start, time.Minute))
	mustCreate(t, s, record("old-b", start, time.Minute+time.Second)) // expires exactly at the sweep
	clock.Advance(time.Minute + time.Second)

	n, err := s.Sweep(context.Background(), clock.Now())
	want := len(expired)
	if opts.ExpiresItself {
		want = 0
	}
	if err != nil || n != want {
		t.Fatalf("Sweep = %d, %v; want %d", n, err, want)
	}
	for _, id := range live {
		mustGet(t, s, id)
	}
	for _, id := range expired {
		wantNotFound(t, s, id)
	}
	if n, err := s.Sweep(context.Background(), clock.Now()); err != nil || n != 0 {
		t.Fatalf("second Sweep = %d, %v; want 0", n, err)
	}
}

// testConcurrentUpdates appends one key per goroutine to one record: a
// store whose Update is not atomic loses some.
func testConcurrentUpdates(t *testing.T, s tasks.Store, clock *testclock.Clock, _ Options) {
	rec := record("hot", clock.Now(), time.Hour)
	rec.UsedKeys = nil
	mustCreate(t, s, rec)
	want := make([]string, Concurrency)
	errs := make([]error, Concurrency)
	var wg sync.WaitGroup
	for i := range Concurrency {
		want[i] = fmt.Sprintf("key-%03d", i)
		wg.Go(func() {
			_, errs[i] = s.Update(context.Background(), "hot", func(r *tasks.Record) error {
				r.UsedKeys = append(r.UsedKeys, want[i])
				return nil
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Updates failed: %v", err)
	}
	got := mustGet(t, s, "hot").UsedKeys
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("after %d concurrent Updates the record has %d keys (lost %d): %v",
			Concurrency, len(got), Concurrency-len(got), got)
	}
}

// testConcurrentCreates creates one id from many goroutines at once:
// exactly one wins, and the record is the winner's.
func testConcurrentCreates(t *testing.T, s tasks.Store, clock *testclock.Clock, _ Options) {
	errs := make([]error, Concurrency)
	var wg sync.WaitGroup
	for i := range Concurrency {
		wg.Go(func() {
			rec := record("race", clock.Now(), time.Hour)
			rec.Owner = fmt.Sprintf("instance-%03d", i)
			errs[i] = s.Create(context.Background(), rec)
		})
	}
	wg.Wait()
	var winners []int
	for i, err := range errs {
		if err == nil {
			winners = append(winners, i)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("%d of %d concurrent Creates of one id succeeded (%v); want exactly 1; errors: %v",
			len(winners), Concurrency, winners, errors.Join(errs...))
	}
	if got, want := mustGet(t, s, "race").Owner, fmt.Sprintf("instance-%03d", winners[0]); got != want {
		t.Fatalf("record's owner %q, but the Create that succeeded was %q's", got, want)
	}
}

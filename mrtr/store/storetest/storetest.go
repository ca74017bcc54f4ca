package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// NewStoreFunc returns a fresh, empty store isolated from every other test
// (own tables, key prefix or file), whose clock is clock.Now and whose
// AbandonAfter is the default (store.DefaultAbandonAfter). It registers its
// own cleanup with t (closing the store and dropping what it created).
type NewStoreFunc func(t *testing.T, clock *Clock) store.Store

// Run runs the conformance suite against the stores newStore returns.
// Each case gets a fresh store and clock; cases run in parallel. The batch
// cases (batch.go) run through store.Apply and through store.ApplyEach.
func Run(t *testing.T, newStore NewStoreFunc) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(newEnv(t, newStore))
		})
	}
	runBatchCases(t, newStore)
}

// newEnv is a case's fresh store and clock, with a context that ends with
// the case (or after a minute).
func newEnv(t *testing.T, newStore NewStoreFunc) *env {
	clock := NewClock()
	s := newStore(t, clock)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return &env{T: t, s: s, clock: clock, ctx: ctx}
}

const (
	lease  = 30 * time.Second
	retain = time.Hour
)

var cases = []struct {
	name string
	run  func(e *env)
}{
	{"AcquireCompleteReplay", testAcquireCompleteReplay},
	{"MismatchPending", testMismatchPending},
	{"MismatchCompleted", testMismatchCompleted},
	{"MismatchLapsedPending", testMismatchLapsedPending},
	{"NeverAppliedToOtherWorkflow", testNeverAppliedToOtherWorkflow},
	{"InFlightWhileLeaseLive", testInFlightWhileLeaseLive},
	{"SameOwnerReclaimRenewsLease", testSameOwnerReclaim},
	{"TakeoverAfterLeaseLapses", testTakeover},
	{"TakeoverFlag", testTakeoverFlag},
	{"CompleteByNonOwnerLeaseLost", testCompleteNonOwner},
	{"CompleteAfterTakeoverLeaseLost", testCompleteAfterTakeover},
	{"CompleteAfterLapseWithoutTakeover", testCompleteAfterLapse},
	{"CompleteMissingOrReleasedLeaseLost", testCompleteMissing},
	{"CompleteTwiceKeepsFirstResult", testCompleteTwice},
	{"ReleaseLetsRetryAcquire", testRelease},
	{"ReleaseByNonOwnerOrAfterCompleteIsNoop", testReleaseNoop},
	{"RetentionThenGoneAndReacquirable", testRetention},
	{"AbandonedClaimSweptAndReacquirable", testAbandoned},
	{"KeysAreOpaque", testOpaqueKeys},
	{"EmptyAndLargeResults", testResultsByteExact},
	{"StatePutGet", testStatePutGet},
	{"StateExpiry", testStateExpiry},
	{"StateOverwrite", testStateOverwrite},
	{"StateDeleteWorkflowIsolation", testStateDeleteWorkflow},
	{"StateEmptyAndLargeData", testStateData},
	{"SweepRemovesExpiredAndCounts", testSweep},
	{"ContextCanceled", testContextCanceled},
	{"InvalidArguments", testInvalid},
	{"RaceOneEffect", testRaceOneEffect},
	{"RaceTakeover", testRaceTakeover},
	{"RaceDistinctKeys", testRaceDistinctKeys},
	{"CloseIsFinal", testClose},
}

type env struct {
	*testing.T
	s     store.Store
	clock *Clock
	ctx   context.Context
}

func req(key, fp, owner string, lease time.Duration) store.ClaimRequest {
	return store.ClaimRequest{Key: key, Fingerprint: []byte(fp), Owner: owner, Lease: lease}
}

func (e *env) claim(key, fp, owner string) store.ClaimResult {
	e.Helper()
	r, err := e.s.Claim(e.ctx, req(key, fp, owner, lease))
	if err != nil {
		e.Fatalf("Claim(%q, fp=%q, owner=%q): %v", key, fp, owner, err)
	}
	return r
}

func (e *env) wantClaim(key, fp, owner string, want store.ClaimStatus) store.ClaimResult {
	e.Helper()
	r := e.claim(key, fp, owner)
	if r.Status != want {
		e.Fatalf("Claim(%q, fp=%q, owner=%q) at %v = %v, want %v",
			key, fp, owner, e.clock.Now().Sub(Epoch), r.Status, want)
	}
	if want != store.Replayed && len(r.Result) != 0 {
		e.Fatalf("Claim(%q) = %v with a result (%d bytes): results are only for Replayed", key, r.Status, len(r.Result))
	}
	if want != store.InFlight && !r.LeaseExpires.IsZero() {
		e.Fatalf("Claim(%q) = %v with LeaseExpires %v: only for InFlight", key, r.Status, r.LeaseExpires)
	}
	return r
}

func (e *env) wantReplay(key, fp, owner string, result []byte) {
	e.Helper()
	r := e.wantClaim(key, fp, owner, store.Replayed)
	if !bytes.Equal(r.Result, result) {
		e.Fatalf("Claim(%q) replayed %d bytes %q, want %d bytes %q", key, len(r.Result), trunc(r.Result), len(result), trunc(result))
	}
}

func (e *env) complete(key, owner string, result []byte, retain time.Duration) {
	e.Helper()
	if err := e.s.Complete(e.ctx, key, owner, result, retain); err != nil {
		e.Fatalf("Complete(%q, owner=%q): %v", key, owner, err)
	}
}

func (e *env) wantLeaseLost(key, owner string, result []byte) {
	e.Helper()
	err := e.s.Complete(e.ctx, key, owner, result, retain)
	if !errors.Is(err, store.ErrLeaseLost) {
		e.Fatalf("Complete(%q, owner=%q) = %v, want ErrLeaseLost", key, owner, err)
	}
}

func (e *env) release(key, owner string) {
	e.Helper()
	if err := e.s.Release(e.ctx, key, owner); err != nil {
		e.Fatalf("Release(%q, owner=%q): %v", key, owner, err)
	}
}

func (e *env) sweep(want int) {
	e.Helper()
	n, err := e.s.Sweep(e.ctx)
	if err != nil {
		e.Fatalf("Sweep: %v", err)
	}
	if n != want {
		e.Fatalf("Sweep at %v removed %d records, want %d", e.clock.Now().Sub(Epoch), n, want)
	}
}

func (e *env) put(rec store.StateRecord, ttl time.Duration) {
	e.Helper()
	if err := e.s.PutState(e.ctx, rec, ttl); err != nil {
		e.Fatalf("PutState(workflow %q): %v", rec.Workflow, err)
	}
}

func (e *env) wantState(rec store.StateRecord) {
	e.Helper()
	got, err := e.s.GetState(e.ctx, rec.Ref)
	if err != nil {
		e.Fatalf("GetState(workflow %q): %v", rec.Workflow, err)
	}
	if got.Ref != rec.Ref || got.Workflow != rec.Workflow || got.Subject != rec.Subject ||
		got.Principal != rec.Principal || !bytes.Equal(got.Data, rec.Data) {
		e.Fatalf("GetState = {%q %q %q %q %d bytes}, want {%q %q %q %q %d bytes}",
			got.Ref, got.Workflow, got.Subject, got.Principal, len(got.Data),
			rec.Ref, rec.Workflow, rec.Subject, rec.Principal, len(rec.Data))
	}
}

func (e *env) wantNoState(ref string) {
	e.Helper()
	got, err := e.s.GetState(e.ctx, ref)
	if !errors.Is(err, store.ErrNotFound) {
		e.Fatalf("GetState(%q) = (%+v, %v), want ErrNotFound", ref, got, err)
	}
}

func trunc(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

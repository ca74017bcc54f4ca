package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
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

func testAcquireCompleteReplay(e *env) {
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.complete("op", "a", []byte("charged ch_123"), retain)
	e.wantReplay("op", "fp", "b", []byte("charged ch_123"))
	e.wantReplay("op", "fp", "a", []byte("charged ch_123"))
	e.clock.Advance(retain / 2)
	e.wantReplay("op", "fp", "c", []byte("charged ch_123"))
	// Other keys are independent.
	e.wantClaim("op2", "fp", "a", store.Acquired)
}

func testMismatchPending(e *env) {
	e.wantClaim("op", "fp1", "a", store.Acquired)
	e.wantClaim("op", "fp2", "b", store.Mismatch)
	// Even the owner of the pending claim cannot switch fingerprints.
	e.wantClaim("op", "fp2", "a", store.Mismatch)
	// The original claim is intact.
	e.wantClaim("op", "fp1", "b", store.InFlight)
	e.complete("op", "a", []byte("r1"), retain)
	e.wantReplay("op", "fp1", "b", []byte("r1"))
}

func testMismatchCompleted(e *env) {
	e.wantClaim("op", "fp1", "a", store.Acquired)
	e.complete("op", "a", []byte("secret result of fp1"), retain)
	// wantClaim checks that no result leaks with a Mismatch.
	e.wantClaim("op", "fp2", "b", store.Mismatch)
	e.wantClaim("op", "fp2", "a", store.Mismatch)
	e.clock.Advance(retain - time.Millisecond)
	e.wantClaim("op", "fp2", "b", store.Mismatch)
	e.wantReplay("op", "fp1", "b", []byte("secret result of fp1"))
}

func testMismatchLapsedPending(e *env) {
	// A lapsed pending claim may have run its effect before crashing: it is
	// never handed to a different operation, only taken over by the same one.
	e.wantClaim("op", "fp1", "a", store.Acquired)
	e.clock.Advance(lease + time.Minute)
	e.wantClaim("op", "fp2", "b", store.Mismatch)
	e.wantClaim("op", "fp1", "c", store.Acquired)
}

func testNeverAppliedToOtherWorkflow(e *env) {
	// Workflow A and B both use operation id "refund/order-7" (for example a
	// client reusing ids); their fingerprints differ because the workflow id
	// is part of the fingerprint.
	key := "refund/order-7"
	fpA, fpB := "tool=refund;wf=A;args=7", "tool=refund;wf=B;args=7"
	e.wantClaim(key, fpA, "a", store.Acquired)
	e.complete(key, "a", []byte("refund re_A"), retain)
	for _, d := range []time.Duration{0, lease, retain - time.Millisecond} {
		e.clock.Set(Epoch.Add(d))
		e.wantClaim(key, fpB, "b", store.Mismatch)
		if err := e.s.Complete(e.ctx, key, "b", []byte("refund re_B"), retain); !errors.Is(err, store.ErrLeaseLost) {
			e.Fatalf("Complete by B = %v, want ErrLeaseLost", err)
		}
		if err := e.s.Release(e.ctx, key, "b"); err != nil {
			e.Fatalf("Release by B: %v", err)
		}
		e.wantReplay(key, fpA, "a2", []byte("refund re_A"))
	}
}

func testInFlightWhileLeaseLive(e *env) {
	e.wantClaim("op", "fp", "a", store.Acquired)
	want := e.clock.Now().Add(lease)
	for _, d := range []time.Duration{0, time.Second, lease - time.Millisecond} {
		e.clock.Set(Epoch.Add(d))
		r := e.wantClaim("op", "fp", "b", store.InFlight)
		if diff := r.LeaseExpires.Sub(want); diff < -time.Millisecond || diff > time.Millisecond {
			e.Fatalf("InFlight LeaseExpires = %v, want %v", r.LeaseExpires, want)
		}
	}
}

func testSameOwnerReclaim(e *env) {
	// A claimant retrying its own Claim (say the reply was lost) gets the
	// claim again with a renewed lease instead of waiting on itself.
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.clock.Advance(lease / 2)
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.clock.Advance(lease/2 + time.Second) // past the first lease, within the renewed one
	r := e.wantClaim("op", "fp", "b", store.InFlight)
	if want := Epoch.Add(lease / 2).Add(lease); !r.LeaseExpires.Equal(want) {
		e.Fatalf("renewed lease expires %v, want %v", r.LeaseExpires, want)
	}
	e.complete("op", "a", []byte("ok"), retain)
	e.wantReplay("op", "fp", "a", []byte("ok"))
}

func testTakeover(e *env) {
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.clock.Advance(lease - time.Millisecond)
	e.wantClaim("op", "fp", "b", store.InFlight)
	e.clock.Advance(time.Millisecond) // lease lapses exactly now
	e.wantClaim("op", "fp", "b", store.Acquired)
	// b now holds a fresh lease.
	e.wantClaim("op", "fp", "c", store.InFlight)
	e.complete("op", "b", []byte("by b"), retain)
	e.wantReplay("op", "fp", "c", []byte("by b"))
}

// testTakeoverFlag: only taking over another owner's lapsed claim is a
// takeover (the effect may have happened); fresh claims, renewals by the
// owner, claims after a Release and after the retention or abandonment
// are not.
func testTakeoverFlag(e *env) {
	takeover := func(key, fp, owner string, want bool) {
		e.Helper()
		if r := e.wantClaim(key, fp, owner, store.Acquired); r.Takeover != want {
			e.Fatalf("Claim(%s, owner %s).Takeover = %v, want %v", key, owner, r.Takeover, want)
		}
	}
	takeover("op", "fp", "a", false) // fresh
	takeover("op", "fp", "a", false) // renewed by its owner
	e.clock.Advance(lease)
	takeover("op", "fp", "a", false) // its own lapsed claim, renewed
	e.clock.Advance(lease)
	takeover("op", "fp", "b", true)  // a's lapsed claim
	takeover("op", "fp", "b", false) // b renews
	e.clock.Advance(lease)
	takeover("op", "fp", "c", true)
	e.release("op", "c")
	takeover("op", "fp", "d", false) // released: nothing was in progress

	takeover("op2", "fp1", "a", false)
	e.clock.Advance(lease + store.DefaultAbandonAfter)
	takeover("op2", "fp1", "b", false) // abandoned counts as absent
	e.complete("op2", "b", []byte("done"), retain)
	e.clock.Advance(retain)
	takeover("op2", "fp1", "c", false) // past its retention
}

func testCompleteNonOwner(e *env) {
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.wantLeaseLost("op", "b", []byte("by b"))
	e.wantClaim("op", "fp", "c", store.InFlight)
	e.complete("op", "a", []byte("by a"), retain)
	e.wantLeaseLost("op", "b", []byte("by b"))
	e.wantReplay("op", "fp", "c", []byte("by a"))
}

func testCompleteAfterTakeover(e *env) {
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.clock.Advance(lease)
	e.wantClaim("op", "fp", "b", store.Acquired)
	e.wantLeaseLost("op", "a", []byte("by a"))
	if err := e.s.Release(e.ctx, "op", "a"); err != nil {
		e.Fatalf("Release by the former owner: %v", err)
	}
	e.wantClaim("op", "fp", "c", store.InFlight) // a's Release did not drop b's claim
	e.complete("op", "b", []byte("by b"), retain)
	e.wantLeaseLost("op", "a", []byte("by a"))
	e.wantReplay("op", "fp", "c", []byte("by b"))
}

func testCompleteAfterLapse(e *env) {
	// The lease lapsed but nobody took over: the effect already ran, so
	// recording its result is better than forcing a second effect.
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.clock.Advance(lease + time.Minute)
	e.complete("op", "a", []byte("late"), retain)
	e.wantReplay("op", "fp", "b", []byte("late"))
}

func testCompleteMissing(e *env) {
	e.wantLeaseLost("never-claimed", "a", []byte("x"))
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.release("op", "a")
	e.wantLeaseLost("op", "a", []byte("x"))
	e.wantClaim("op", "fp", "b", store.Acquired)
}

func testCompleteTwice(e *env) {
	// A retried Complete (reply lost) succeeds and keeps the first result.
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.complete("op", "a", []byte("first"), retain)
	e.clock.Advance(time.Minute)
	e.complete("op", "a", []byte("second"), retain)
	e.wantReplay("op", "fp", "b", []byte("first"))
	// Retention still counts from the first completion.
	e.clock.Set(Epoch.Add(retain))
	e.wantClaim("op", "fp", "b", store.Acquired)
}

func testRelease(e *env) {
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.release("op", "a")
	e.wantClaim("op", "fp", "b", store.Acquired)
	e.release("op", "b")
	// After a release the key is free, even for another fingerprint.
	e.wantClaim("op", "other", "c", store.Acquired)
	e.complete("op", "c", []byte("c"), retain)
	e.wantReplay("op", "other", "d", []byte("c"))
}

func testReleaseNoop(e *env) {
	e.release("missing", "a")
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.release("op", "b")
	e.wantClaim("op", "fp", "b", store.InFlight)
	e.complete("op", "a", []byte("done"), retain)
	e.release("op", "a") // completed records are never released
	e.wantReplay("op", "fp", "b", []byte("done"))
}

func testRetention(e *env) {
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.clock.Advance(10 * time.Second)
	e.complete("op", "a", []byte("r"), retain)
	done := e.clock.Now()
	e.clock.Set(done.Add(retain - time.Millisecond))
	e.wantReplay("op", "fp", "b", []byte("r"))
	e.sweep(0)
	e.clock.Set(done.Add(retain))
	e.sweep(1)
	e.sweep(0)
	e.wantClaim("op", "fp", "b", store.Acquired)

	// Without a sweep, an expired record is equally gone for Claim.
	e.wantClaim("op2", "fp", "a", store.Acquired)
	e.complete("op2", "a", []byte("r2"), time.Minute)
	e.clock.Advance(time.Minute)
	e.wantClaim("op2", "fp-other", "b", store.Acquired)
	e.wantLeaseLost("op2", "a", []byte("r2"))
}

func testAbandoned(e *env) {
	e.wantClaim("op", "fp1", "a", store.Acquired)
	e.clock.Set(Epoch.Add(lease + store.DefaultAbandonAfter - time.Millisecond))
	e.sweep(0)
	e.wantClaim("op", "fp2", "b", store.Mismatch)
	e.clock.Set(Epoch.Add(lease + store.DefaultAbandonAfter))
	e.sweep(1)
	e.wantClaim("op", "fp2", "b", store.Acquired)
	e.wantLeaseLost("op", "a", []byte("too late"))

	// Claim treats an abandoned claim as absent even before a sweep.
	e.wantClaim("op2", "fp1", "a", store.Acquired)
	e.clock.Advance(lease + store.DefaultAbandonAfter)
	e.wantClaim("op2", "fp2", "b", store.Acquired)
}

func testOpaqueKeys(e *env) {
	keys := []string{
		"close_support_ticket/ticket-12345",
		"a*", "a?", "a[bc]", "a\\*", "{tag}x", "x:y:z", "ü 🎫 \t\n", "'; DROP TABLE x; --",
		strings.Repeat("k", store.MaxIDLen-len("-new")),
	}
	for i, k := range keys {
		fp := fmt.Sprintf("fp%d", i)
		e.wantClaim(k, fp, "a", store.Acquired)
		e.complete(k, "a", []byte(fp), retain)
	}
	for i, k := range keys {
		fp := fmt.Sprintf("fp%d", i)
		e.wantReplay(k, fp, "b", []byte(fp))
		// A pattern-like key never touches the keys it would match.
		e.wantClaim(k+"-new", fp, "b", store.Acquired)
		e.release(k+"-new", "b")
	}
	e.clock.Advance(retain)
	e.sweep(len(keys))
}

// binary returns n bytes cycling through every byte value, starting with
// the ones most likely to be mangled (NUL, high bit, quote, backslash).
func binary(n int) []byte {
	b := make([]byte, n)
	head := []byte{0, 0xff, 0x80, '\'', '"', '\\', '\r', '\n', 0xc3, 0x28}
	for i := range b {
		if i < len(head) {
			b[i] = head[i]
		} else {
			b[i] = byte(i * 7)
		}
	}
	return b
}

func testResultsByteExact(e *env) {
	big := binary(64 << 10)
	rnd := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range rnd {
		rnd[i] = byte(r.Uint32())
	}
	results := map[string][]byte{
		"nil":    nil,
		"empty":  {},
		"nul":    {0},
		"binary": big,
		"random": rnd,
		"json":   []byte(`{"id":"ch_1","amount":1999,"note":"caf\u00e9 'x' \\ \"y\""}`),
	}
	for name, res := range results {
		e.wantClaim(name, "fp", "a", store.Acquired)
		e.complete(name, "a", res, retain)
	}
	for name, res := range results {
		r := e.wantClaim(name, "fp", "b", store.Replayed)
		if !bytes.Equal(r.Result, res) {
			e.Fatalf("result %s: replayed %d bytes, want %d bytes (byte-exact)", name, len(r.Result), len(res))
		}
		if r.Result == nil {
			e.Fatalf("result %s: replayed nil, want a non-nil (possibly empty) slice", name)
		}
	}
}

func rec(ref, workflow, data string) store.StateRecord {
	return store.StateRecord{
		Ref:       ref,
		Workflow:  workflow,
		Subject:   "tools/call:close_ticket",
		Principal: "sha256:" + strings.Repeat("ab", 32),
		Data:      []byte(data),
	}
}

func testStatePutGet(e *env) {
	r := rec("ref-1", "wf-1", `{"step":2,"ticket":"T-1"}`)
	e.put(r, time.Hour)
	e.wantState(r)
	e.wantNoState("ref-missing")
	r2 := store.StateRecord{Ref: "ref-2", Workflow: "wf-1", Data: []byte("x")} // empty subject, principal
	e.put(r2, time.Hour)
	e.wantState(r2)
	e.wantState(r)
}

func testStateExpiry(e *env) {
	r := rec("ref-1", "wf-1", "data")
	e.put(r, time.Minute)
	e.clock.Advance(time.Minute - time.Millisecond)
	e.wantState(r)
	e.clock.Advance(time.Millisecond)
	e.wantNoState("ref-1")
	e.sweep(1)
	e.wantNoState("ref-1")
}

func testStateOverwrite(e *env) {
	r := rec("ref-1", "wf-1", "v1")
	e.put(r, time.Minute)
	r.Data = []byte("v2")
	e.put(r, time.Hour)
	e.clock.Advance(30 * time.Minute)
	e.wantState(r)
	// Moving a ref to another workflow detaches it from the first one.
	r.Workflow = "wf-2"
	e.put(r, time.Hour)
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-1"); err != nil {
		e.Fatal(err)
	}
	e.wantState(r)
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-2"); err != nil {
		e.Fatal(err)
	}
	e.wantNoState("ref-1")
}

func testStateDeleteWorkflow(e *env) {
	var a, b []store.StateRecord
	for i := range 5 {
		a = append(a, rec(fmt.Sprintf("ref-a%d", i), "wf-A", fmt.Sprintf("a%d", i)))
		b = append(b, rec(fmt.Sprintf("ref-b%d", i), "wf-B", fmt.Sprintf("b%d", i)))
	}
	// A workflow id that is a prefix / pattern of another.
	c := rec("ref-c", "wf-*", "c")
	for _, r := range append(append(a, b...), c) {
		e.put(r, time.Hour)
	}
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-A"); err != nil {
		e.Fatalf("DeleteWorkflowStates(wf-A): %v", err)
	}
	for _, r := range a {
		e.wantNoState(r.Ref)
	}
	for _, r := range b {
		e.wantState(r)
	}
	e.wantState(c)
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-A"); err != nil {
		e.Fatalf("second DeleteWorkflowStates(wf-A): %v", err)
	}
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-never"); err != nil {
		e.Fatalf("DeleteWorkflowStates(unknown): %v", err)
	}
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-*"); err != nil {
		e.Fatal(err)
	}
	e.wantNoState("ref-c")
	for _, r := range b {
		e.wantState(r)
	}
	// Nothing expired yet, and deleted records are not counted again.
	e.sweep(0)
	// A workflow reuses nothing after its deletion: a new record under the
	// same workflow id lives normally.
	n := rec("ref-a-new", "wf-A", "new")
	e.put(n, time.Hour)
	e.wantState(n)
}

func testStateData(e *env) {
	for name, data := range map[string][]byte{"empty": {}, "nil": nil, "big": binary(64 << 10)} {
		r := store.StateRecord{Ref: "ref-" + name, Workflow: "wf", Subject: "s", Principal: "p", Data: data}
		e.put(r, time.Hour)
		e.wantState(r)
	}
}

func testSweep(e *env) {
	e.sweep(0)
	// Expiring at +1h: two completed ops, one state.
	for _, k := range []string{"done1", "done2"} {
		e.wantClaim(k, "fp", "a", store.Acquired)
		e.complete(k, "a", []byte(k), time.Hour)
	}
	e.put(rec("ref-short", "wf", "s"), time.Hour)
	// Abandoned at lease+AbandonAfter.
	e.wantClaim("abandoned", "fp", "a", store.Acquired)
	// Living on: completed with long retention, pending with a fresh lease,
	// a long-lived state.
	e.wantClaim("kept", "fp", "a", store.Acquired)
	e.complete("kept", "a", []byte("kept"), 72*time.Hour)
	e.put(rec("ref-long", "wf", "l"), 72*time.Hour)

	e.clock.Advance(time.Hour - time.Millisecond)
	e.sweep(0)
	e.clock.Advance(time.Millisecond)
	e.sweep(3)
	e.sweep(0)
	e.clock.Set(Epoch.Add(lease + store.DefaultAbandonAfter))
	e.wantClaim("pending", "fp", "a", store.Acquired)
	e.sweep(1) // "abandoned"
	e.sweep(0)
	e.wantReplay("kept", "fp", "b", []byte("kept"))
	e.wantClaim("pending", "fp", "b", store.InFlight)
	e.wantState(rec("ref-long", "wf", "l"))
	e.wantNoState("ref-short")
	e.clock.Set(Epoch.Add(48*time.Hour + 2*lease - time.Millisecond))
	e.sweep(0)
	e.clock.Advance(time.Millisecond)
	e.sweep(1) // "pending", abandoned
	e.clock.Set(Epoch.Add(72 * time.Hour))
	e.sweep(2) // "kept" and "ref-long"
	e.sweep(0)
}

func testContextCanceled(e *env) {
	e.wantClaim("op", "fp", "a", store.Acquired)
	e.put(rec("ref", "wf", "d"), time.Hour)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	expired, cancel2 := context.WithDeadline(e.ctx, time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		ctx  context.Context
		want error
	}{{ctx, context.Canceled}, {expired, context.DeadlineExceeded}} {
		check := func(what string, err error) {
			e.Helper()
			if !errors.Is(err, c.want) {
				e.Errorf("%s with a done context = %v, want %v", what, err, c.want)
			}
		}
		_, err := e.s.Claim(c.ctx, req("op2", "fp", "a", lease))
		check("Claim", err)
		check("Complete", e.s.Complete(c.ctx, "op", "a", []byte("x"), retain))
		check("Release", e.s.Release(c.ctx, "op", "a"))
		check("PutState", e.s.PutState(c.ctx, rec("ref2", "wf", "d"), time.Hour))
		_, err = e.s.GetState(c.ctx, "ref")
		check("GetState", err)
		check("DeleteWorkflowStates", e.s.DeleteWorkflowStates(c.ctx, "wf"))
		_, err = e.s.Sweep(c.ctx)
		check("Sweep", err)
	}
	// Nothing happened.
	e.wantClaim("op", "fp", "b", store.InFlight)
	e.wantClaim("op2", "fp", "b", store.Acquired)
	e.wantState(rec("ref", "wf", "d"))
	e.wantNoState("ref2")
}

func testInvalid(e *env) {
	bad := []store.ClaimRequest{
		{Key: "", Fingerprint: []byte("fp"), Owner: "a", Lease: lease},
		{Key: "k", Fingerprint: nil, Owner: "a", Lease: lease},
		{Key: "k", Fingerprint: []byte("fp"), Owner: "", Lease: lease},
		{Key: "k", Fingerprint: []byte("fp"), Owner: "a", Lease: 0},
		{Key: "k", Fingerprint: []byte("fp"), Owner: "a", Lease: -time.Second},
		{Key: "k\x00nul", Fingerprint: []byte("fp"), Owner: "a", Lease: lease},
		{Key: "k\xff", Fingerprint: []byte("fp"), Owner: "a", Lease: lease},
		{Key: strings.Repeat("k", store.MaxIDLen+1), Fingerprint: []byte("fp"), Owner: "a", Lease: lease},
		{Key: "k", Fingerprint: []byte("fp"), Owner: "a\x00", Lease: lease},
	}
	for _, r := range bad {
		if _, err := e.s.Claim(e.ctx, r); !errors.Is(err, store.ErrInvalidArgument) {
			e.Errorf("Claim(%+v) = %v, want ErrInvalidArgument", r, err)
		}
	}
	e.wantClaim("k", "fp", "a", store.Acquired)
	for _, c := range []struct {
		key, owner string
		retain     time.Duration
	}{{"", "a", retain}, {"k", "", retain}, {"k", "a", 0}, {"k", "a", -time.Second}} {
		if err := e.s.Complete(e.ctx, c.key, c.owner, []byte("x"), c.retain); !errors.Is(err, store.ErrInvalidArgument) {
			e.Errorf("Complete(%q, %q, %v) = %v, want ErrInvalidArgument", c.key, c.owner, c.retain, err)
		}
	}
	if err := e.s.Release(e.ctx, "", "a"); !errors.Is(err, store.ErrInvalidArgument) {
		e.Errorf("Release with empty key = %v, want ErrInvalidArgument", err)
	}
	for _, c := range []struct {
		rec store.StateRecord
		ttl time.Duration
	}{
		{store.StateRecord{Ref: "", Workflow: "wf"}, time.Hour},
		{store.StateRecord{Ref: "r", Workflow: ""}, time.Hour},
		{store.StateRecord{Ref: "r", Workflow: "wf"}, 0},
		{store.StateRecord{Ref: "r\x00", Workflow: "wf"}, time.Hour},
		{store.StateRecord{Ref: "r", Workflow: "wf\xff"}, time.Hour},
		{store.StateRecord{Ref: "r", Workflow: "wf", Subject: "s\x00"}, time.Hour},
		{store.StateRecord{Ref: "r", Workflow: "wf", Principal: "\xc3"}, time.Hour},
	} {
		if err := e.s.PutState(e.ctx, c.rec, c.ttl); !errors.Is(err, store.ErrInvalidArgument) {
			e.Errorf("PutState(%+v, %v) = %v, want ErrInvalidArgument", c.rec, c.ttl, err)
		}
	}
	// The valid claim was not disturbed.
	e.wantClaim("k", "fp", "b", store.InFlight)
	e.wantNoState("r")
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
func RaceInstances(t *testing.T, ctx context.Context, stores []store.Store, perInstance int) {
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

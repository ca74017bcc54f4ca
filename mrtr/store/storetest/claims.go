package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

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

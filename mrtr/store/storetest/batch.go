package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Batch cases: store.Apply must keep every promise of the single methods
// (claim conflicts, takeover after the lease, retention, abandoned claims)
// and add its own: an IfAcquired op runs only when every claim before it
// was acquired, and nothing of an invalid batch is applied. Each case runs
// twice: through store.Apply (the store's own Batcher, if it has one) and
// through store.ApplyEach (the fallback a store without one gets), so the
// fallback is the reference the native batch is compared with.

var batchCases = []struct {
	name string
	run  func(e *batchEnv)
}{
	{"ClaimThenClaimIfAcquired", testBatchClaimPair},
	{"GateClosedByReplayMismatchInFlight", testBatchGateClosed},
	{"TakeoverAfterLease", testBatchTakeover},
	{"RecordIfAbsent", testBatchRecordIfAbsent},
	{"ClaimAndReadState", testBatchClaimAndRead},
	{"FinishRecordsAndDeletes", testBatchFinish},
	{"FinishAfterTakeoverLeaseLost", testBatchFinishLeaseLost},
	{"ReleaseIfAcquired", testBatchRelease},
	{"RetentionAndAbandoned", testBatchRetentionAndAbandoned},
	{"SafeToRepeat", testBatchRepeat},
	{"InvalidAppliesNothing", testBatchInvalid},
	{"ContextCanceledAppliesNothing", testBatchContextCanceled},
	{"Empty", testBatchEmpty},
	{"RaceRoundAndEffect", testBatchRace},
	{"RaceOneBusinessKey", testBatchRaceBusinessKey},
	{"AfterClose", testBatchClose},
}

// runBatchCases runs the batch cases through store.Apply and through
// store.ApplyEach.
func runBatchCases(t *testing.T, newStore NewStoreFunc) {
	vias := []struct {
		name  string
		apply func(context.Context, store.Store, []store.Op) ([]store.OpResult, error)
	}{
		{"Batch", store.Apply},
		{"BatchFallback", store.ApplyEach},
	}
	for _, via := range vias {
		t.Run(via.name, func(t *testing.T) {
			for _, tc := range batchCases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(&batchEnv{env: newEnv(t, newStore), apply: via.apply})
				})
			}
		})
	}
}

type batchEnv struct {
	*env
	apply func(context.Context, store.Store, []store.Op) ([]store.OpResult, error)
}

// do applies ops and fails the test on a batch error.
func (e *batchEnv) do(ops ...store.Op) []store.OpResult {
	e.Helper()
	res, err := e.apply(e.ctx, e.s, ops)
	if err != nil {
		e.Fatalf("Apply(%s): %v", describeOps(ops), err)
	}
	if len(res) != len(ops) {
		e.Fatalf("Apply(%s) returned %d results for %d ops", describeOps(ops), len(res), len(ops))
	}
	return res
}

func describeOps(ops []store.Op) string {
	var b bytes.Buffer
	for i, op := range ops {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(op.Kind.String())
		if op.IfAcquired {
			b.WriteString(" if acquired")
		}
	}
	return b.String()
}

func claimOp(key, fp, owner string) store.Op { return store.ClaimOp(req(key, fp, owner, lease)) }

// wantClaimed checks a claim's result in a batch.
func (e *batchEnv) wantClaimed(r store.OpResult, what string, want store.ClaimStatus) store.ClaimResult {
	e.Helper()
	if r.Skipped {
		e.Fatalf("%s was skipped, want %v", what, want)
	}
	if r.Claim.Status != want {
		e.Fatalf("%s at %v = %v, want %v", what, e.clock.Now().Sub(Epoch), r.Claim.Status, want)
	}
	if want != store.Replayed && len(r.Claim.Result) != 0 {
		e.Fatalf("%s = %v with a result: results are only for Replayed", what, r.Claim.Status)
	}
	return r.Claim
}

func (e *batchEnv) wantSkipped(r store.OpResult, what string) {
	e.Helper()
	if !r.Skipped || r.Claim.Status != 0 || r.Err != nil || r.State.Ref != "" {
		e.Fatalf("%s = %+v, want skipped", what, r)
	}
}

func (e *batchEnv) wantOK(r store.OpResult, what string) {
	e.Helper()
	if r.Skipped || r.Err != nil {
		e.Fatalf("%s = %+v, want done without error", what, r)
	}
}

// testBatchClaimPair: the round record and, only if it is ours, the
// effect record, in one batch.
func testBatchClaimPair(e *batchEnv) {
	res := e.do(claimOp("round", "fpR", "a"), claimOp("effect", "fpE", "a").IfClaimed())
	if c := e.wantClaimed(res[0], "round claim", store.Acquired); c.Takeover {
		e.Fatal("fresh round claim reported a takeover")
	}
	if c := e.wantClaimed(res[1], "effect claim", store.Acquired); c.Takeover {
		e.Fatal("fresh effect claim reported a takeover")
	}
	// A duplicate of the round waits; it does not touch the effect record.
	res = e.do(claimOp("round", "fpR", "b"), claimOp("effect", "fpE", "b").IfClaimed())
	e.wantClaimed(res[0], "duplicate's round claim", store.InFlight)
	e.wantSkipped(res[1], "duplicate's effect claim")
	e.wantClaim("effect", "fpE", "c", store.InFlight)
	// An unconditional claim after a refused one still runs.
	res = e.do(claimOp("round", "fpR", "b"), claimOp("other", "fp", "b"))
	e.wantClaimed(res[0], "round claim", store.InFlight)
	e.wantClaimed(res[1], "unconditional claim", store.Acquired)
	// Both records are a's: it completes them in one batch.
	res = e.do(store.CompleteOp("effect", "a", []byte("effect done"), retain), store.CompleteOp("round", "a", []byte("reply"), retain))
	e.wantOK(res[0], "effect complete")
	e.wantOK(res[1], "round complete")
	e.wantReplay("effect", "fpE", "c", []byte("effect done"))
	e.wantReplay("round", "fpR", "c", []byte("reply"))
}

// testBatchGateClosed: a round already answered, reused with other input,
// or held elsewhere closes the gate for everything after it, and the
// records behind it are left as they are.
func testBatchGateClosed(e *batchEnv) {
	e.wantClaim("done", "fp", "a", store.Acquired)
	e.complete("done", "a", []byte("first reply"), retain)
	e.wantClaim("held", "fp", "a", store.Acquired)
	for _, c := range []struct {
		key, fp string
		want    store.ClaimStatus
	}{{"done", "fp", store.Replayed}, {"done", "other", store.Mismatch}, {"held", "fp", store.InFlight}, {"held", "other", store.Mismatch}} {
		res := e.do(claimOp(c.key, c.fp, "b"),
			claimOp("effect-"+c.key+c.fp, "fpE", "b").IfClaimed(),
			store.CompleteOp(c.key, "b", []byte("overwrite"), retain).IfClaimed(),
			store.GetStateOp("ref").IfClaimed(),
			store.PutStateOp(rec("ref-"+c.key, "wf", "x"), time.Hour).IfClaimed(),
			store.DeleteWorkflowStatesOp("wf").IfClaimed(),
			store.ReleaseOp(c.key, "a").IfClaimed())
		cl := e.wantClaimed(res[0], "claim of "+c.key, c.want)
		if c.want == store.Replayed && !bytes.Equal(cl.Result, []byte("first reply")) {
			e.Fatalf("replayed %q, want the first reply", cl.Result)
		}
		for i, r := range res[1:] {
			e.wantSkipped(r, fmt.Sprintf("op %d after a %v claim", i+1, c.want))
		}
		e.wantNoState("ref-" + c.key)
		// The skipped claim left no record: a fresh claim is no takeover.
		if r := e.wantClaim("effect-"+c.key+c.fp, "fpE", "c", store.Acquired); r.Takeover {
			e.Fatal("skipped claim left a record behind")
		}
	}
	e.wantReplay("done", "fp", "c", []byte("first reply"))
	e.wantClaim("held", "fp", "c", store.InFlight) // a's claim was not released
}

// testBatchTakeover: after the lease, a retry takes both records over and
// is told so; the first holder's completion is then refused.
func testBatchTakeover(e *batchEnv) {
	e.do(claimOp("round", "fpR", "a"), claimOp("effect", "fpE", "a").IfClaimed())
	e.clock.Advance(lease - time.Millisecond)
	res := e.do(claimOp("round", "fpR", "b"), claimOp("effect", "fpE", "b").IfClaimed())
	e.wantClaimed(res[0], "round claim within the lease", store.InFlight)
	e.clock.Advance(time.Millisecond)
	res = e.do(claimOp("round", "fpR", "b"), claimOp("effect", "fpE", "b").IfClaimed())
	if c := e.wantClaimed(res[0], "round claim after the lease", store.Acquired); !c.Takeover {
		e.Fatal("round takeover not reported")
	}
	if c := e.wantClaimed(res[1], "effect claim after the lease", store.Acquired); !c.Takeover {
		e.Fatal("effect takeover not reported")
	}
	res = e.do(store.CompleteOp("effect", "a", []byte("by a"), retain), store.CompleteOp("round", "a", []byte("by a"), retain))
	for i, r := range res {
		if !errors.Is(r.Err, store.ErrLeaseLost) || r.Skipped {
			e.Fatalf("completion %d by the former holder = %+v, want ErrLeaseLost", i, r)
		}
	}
	e.wantClaim("effect", "fpE", "c", store.InFlight)
	// A lapsed claim of another operation is never handed over.
	e.clock.Advance(lease)
	res = e.do(claimOp("round", "fpR", "c"), claimOp("effect", "fp-other", "c").IfClaimed())
	e.wantClaimed(res[0], "round claim", store.Acquired)
	e.wantClaimed(res[1], "effect claim with another fingerprint", store.Mismatch)
}

// testBatchRecordIfAbsent: a round without an effect claims and completes
// its record in one batch; a retry gets the first reply, byte for byte.
func testBatchRecordIfAbsent(e *batchEnv) {
	reply := binary(4 << 10)
	res := e.do(claimOp("round", "fp", "a"), store.CompleteOp("round", "a", reply, retain).IfClaimed())
	e.wantClaimed(res[0], "claim", store.Acquired)
	e.wantOK(res[1], "complete")
	res = e.do(claimOp("round", "fp", "b"), store.CompleteOp("round", "b", []byte("second reply"), retain).IfClaimed())
	if c := e.wantClaimed(res[0], "retry's claim", store.Replayed); !bytes.Equal(c.Result, reply) {
		e.Fatalf("retry replayed %d bytes, want the first reply's %d bytes", len(c.Result), len(reply))
	}
	e.wantSkipped(res[1], "retry's complete")
	res = e.do(claimOp("round", "other input", "b"), store.CompleteOp("round", "b", []byte("x"), retain).IfClaimed())
	e.wantClaimed(res[0], "claim with other input", store.Mismatch)
	e.wantSkipped(res[1], "complete after a mismatch")
	// An empty reply is a reply.
	res = e.do(claimOp("empty", "fp", "a"), store.CompleteOp("empty", "a", nil, retain).IfClaimed())
	e.wantOK(res[1], "complete with an empty result")
	res = e.do(claimOp("empty", "fp", "b"))
	if c := e.wantClaimed(res[0], "claim", store.Replayed); c.Result == nil || len(c.Result) != 0 {
		e.Fatalf("empty result replayed as %v, want a non-nil empty slice", c.Result)
	}
}

// testBatchClaimAndRead: the round record claimed and the continuation it
// resumes read in one batch; a read that finds nothing does not fail it.
func testBatchClaimAndRead(e *batchEnv) {
	st := rec("ref-1", "wf-1", "")
	st.Data = binary(2 << 10)
	e.put(st, time.Hour)
	res := e.do(claimOp("round", "fp", "a"), store.GetStateOp("ref-1").IfClaimed())
	e.wantClaimed(res[0], "claim", store.Acquired)
	e.wantOK(res[1], "get state")
	if got := res[1].State; got.Ref != st.Ref || got.Workflow != st.Workflow || got.Subject != st.Subject ||
		got.Principal != st.Principal || !bytes.Equal(got.Data, st.Data) {
		e.Fatalf("get state = {%q %q %q %q %d bytes}, want the record put", got.Ref, got.Workflow, got.Subject, got.Principal, len(got.Data))
	}
	res = e.do(claimOp("round", "fp", "b"), store.GetStateOp("ref-1").IfClaimed())
	e.wantClaimed(res[0], "duplicate's claim", store.InFlight)
	e.wantSkipped(res[1], "duplicate's read")
	for _, ref := range []string{"ref-missing", "ref\x00tampered", ""} {
		res = e.do(claimOp("round2-"+fmt.Sprint(len(ref)), "fp", "a"), store.GetStateOp(ref).IfClaimed())
		if r := res[1]; r.Skipped || !errors.Is(r.Err, store.ErrNotFound) {
			e.Fatalf("get state %q = %+v, want ErrNotFound", ref, r)
		}
	}
	e.clock.Advance(time.Hour)
	res = e.do(store.GetStateOp("ref-1"))
	if !errors.Is(res[0].Err, store.ErrNotFound) {
		e.Fatalf("get state after its TTL = %+v, want ErrNotFound", res[0])
	}
}

// testBatchFinish: the end of a workflow's final round in one batch: the
// continuation the effect left, its record, the round's reply, and the
// deletion of the workflow's continuations.
func testBatchFinish(e *batchEnv) {
	e.put(rec("ref-old", "wf", "old"), time.Hour)
	e.put(rec("ref-keep", "wf-other", "other"), time.Hour)
	e.do(claimOp("round", "fpR", "a"), claimOp("effect", "fpE", "a").IfClaimed())
	res := e.do(
		store.PutStateOp(rec("ref-effect", "wf", "after the effect"), time.Hour),
		store.CompleteOp("effect", "a", []byte("ok ref-effect"), retain),
		store.CompleteOp("round", "a", []byte("final reply"), retain),
		store.DeleteWorkflowStatesOp("wf"),
	)
	for i, r := range res {
		e.wantOK(r, fmt.Sprintf("finish op %d", i))
	}
	e.wantReplay("effect", "fpE", "b", []byte("ok ref-effect"))
	e.wantReplay("round", "fpR", "b", []byte("final reply"))
	e.wantNoState("ref-old")
	e.wantNoState("ref-effect") // deleted with its workflow, in the same batch
	e.wantState(rec("ref-keep", "wf-other", "other"))
	// A middle round: the next continuation and the reply; the state lives.
	e.do(claimOp("round2", "fp", "a"))
	res = e.do(store.PutStateOp(rec("ref-next", "wf2", "next"), time.Hour), store.CompleteOp("round2", "a", []byte("ask"), retain))
	e.wantOK(res[0], "put state")
	e.wantOK(res[1], "complete")
	e.wantState(rec("ref-next", "wf2", "next"))
	e.clock.Advance(time.Hour)
	e.wantNoState("ref-next")
}

// testBatchFinishLeaseLost: one completion of a batch refused (its claim
// was taken over) does not stop the others.
func testBatchFinishLeaseLost(e *batchEnv) {
	e.do(claimOp("round", "fpR", "a"), claimOp("effect", "fpE", "a").IfClaimed())
	e.clock.Advance(lease)
	e.wantClaim("effect", "fpE", "b", store.Acquired) // taken over
	res := e.do(
		store.CompleteOp("effect", "a", []byte("by a"), retain),
		store.CompleteOp("round", "a", []byte("reply by a"), retain), // lapsed, not taken over: still a's
		store.CompleteOp("never-claimed", "a", []byte("x"), retain),
	)
	if !errors.Is(res[0].Err, store.ErrLeaseLost) {
		e.Fatalf("complete of the taken-over effect = %+v, want ErrLeaseLost", res[0])
	}
	e.wantOK(res[1], "complete of the lapsed round claim")
	if !errors.Is(res[2].Err, store.ErrLeaseLost) {
		e.Fatalf("complete of a claim never made = %+v, want ErrLeaseLost", res[2])
	}
	e.wantReplay("round", "fpR", "c", []byte("reply by a"))
	e.wantClaim("effect", "fpE", "c", store.InFlight)
	e.complete("effect", "b", []byte("by b"), retain)
	e.wantReplay("effect", "fpE", "c", []byte("by b"))
}

// testBatchRelease: a round that failed without an effect gives its record
// back in the same batch that claimed it (consulting it for a reply to
// replay first).
func testBatchRelease(e *batchEnv) {
	res := e.do(claimOp("round", "fp", "a"), store.ReleaseOp("round", "a").IfClaimed())
	e.wantClaimed(res[0], "claim", store.Acquired)
	e.wantOK(res[1], "release")
	if r := e.wantClaim("round", "fp", "b", store.Acquired); r.Takeover {
		e.Fatal("claim after a release reported a takeover")
	}
	res = e.do(claimOp("round", "fp", "c"), store.ReleaseOp("round", "c").IfClaimed(), store.ReleaseOp("round", "b").IfClaimed())
	e.wantClaimed(res[0], "claim of a held record", store.InFlight)
	e.wantSkipped(res[1], "release")
	e.wantSkipped(res[2], "release by another owner")
	e.wantClaim("round", "fp", "c", store.InFlight)
	e.complete("round", "b", []byte("done"), retain)
	res = e.do(store.ReleaseOp("round", "b"))
	e.wantOK(res[0], "release of a completed record")
	e.wantReplay("round", "fp", "c", []byte("done")) // completed records are never released
}

// testBatchRetentionAndAbandoned: records written by batches expire like
// the others, and an abandoned claim counts as absent.
func testBatchRetentionAndAbandoned(e *batchEnv) {
	e.do(claimOp("round", "fp", "a"), store.CompleteOp("round", "a", []byte("r"), retain).IfClaimed())
	done := e.clock.Now()
	e.clock.Set(done.Add(retain - time.Millisecond))
	res := e.do(claimOp("round", "fp", "b"))
	e.wantClaimed(res[0], "claim within the retention", store.Replayed)
	e.sweep(0)
	e.clock.Set(done.Add(retain))
	res = e.do(claimOp("round", "fp", "b"), store.ReleaseOp("round", "b").IfClaimed())
	if c := e.wantClaimed(res[0], "claim after the retention", store.Acquired); c.Takeover {
		e.Fatal("claim after the retention reported a takeover")
	}
	e.sweep(0) // the expired record was replaced, then released

	start := e.clock.Now()
	e.do(claimOp("pending", "fp1", "a"), claimOp("pending-effect", "fp1", "a").IfClaimed())
	e.clock.Set(start.Add(lease + store.DefaultAbandonAfter - time.Millisecond))
	res = e.do(claimOp("pending", "fp2", "b"), claimOp("pending-effect", "fp2", "b"))
	e.wantClaimed(res[0], "other operation on a lapsed claim", store.Mismatch)
	e.wantClaimed(res[1], "other operation on a lapsed effect claim", store.Mismatch)
	e.clock.Set(start.Add(lease + store.DefaultAbandonAfter))
	e.sweep(2)
	res = e.do(claimOp("pending", "fp2", "b"), claimOp("pending-effect", "fp2", "b").IfClaimed())
	for i, r := range res {
		if c := e.wantClaimed(r, fmt.Sprintf("claim %d of an abandoned record", i), store.Acquired); c.Takeover {
			e.Fatal("claim of an abandoned record reported a takeover")
		}
	}
}

// testBatchRepeat: a batch whose reply was lost can be sent again.
func testBatchRepeat(e *batchEnv) {
	claims := []store.Op{claimOp("round", "fpR", "a"), claimOp("effect", "fpE", "a").IfClaimed()}
	e.do(claims...)
	e.clock.Advance(lease / 2)
	res := e.do(claims...)
	for i, r := range res {
		if c := e.wantClaimed(r, fmt.Sprintf("repeated claim %d", i), store.Acquired); c.Takeover {
			e.Fatal("a repeated claim by its owner reported a takeover")
		}
	}
	e.clock.Advance(lease/2 + time.Millisecond) // past the first lease, within the renewed one
	e.wantClaim("effect", "fpE", "b", store.InFlight)
	finish := []store.Op{
		store.PutStateOp(rec("ref", "wf", "d"), time.Hour),
		store.CompleteOp("effect", "a", []byte("first"), retain),
		store.CompleteOp("round", "a", []byte("first reply"), retain),
		store.DeleteWorkflowStatesOp("wf-x"),
	}
	e.do(finish...)
	finish[1].Result, finish[2].Result = []byte("second"), []byte("second reply")
	for i, r := range e.do(finish...) {
		e.wantOK(r, fmt.Sprintf("repeated finish op %d", i))
	}
	e.wantReplay("effect", "fpE", "b", []byte("first"))
	e.wantReplay("round", "fpR", "b", []byte("first reply"))
	e.wantState(rec("ref", "wf", "d"))
	// The owner's claim of its completed record replays it.
	res = e.do(claims...)
	e.wantClaimed(res[0], "owner's claim of its completed round", store.Replayed)
	e.wantSkipped(res[1], "effect claim after a replay")
}

// testBatchInvalid: nothing of a batch with an invalid op is applied, also
// the valid ops before it.
func testBatchInvalid(e *batchEnv) {
	valid := []store.Op{claimOp("op", "fp", "a"), store.PutStateOp(rec("ref", "wf", "d"), time.Hour)}
	for _, bad := range []store.Op{
		{Kind: store.OpClaim, Claim: store.ClaimRequest{Key: "k", Owner: "a", Lease: lease}},
		store.CompleteOp("k", "a", nil, 0),
		store.ReleaseOp("", "a"),
		store.PutStateOp(store.StateRecord{Ref: "r", Workflow: "wf\xff"}, time.Hour),
		store.DeleteWorkflowStatesOp(""),
		{Kind: 0},
		{Kind: 99},
	} {
		_, err := e.apply(e.ctx, e.s, append(append([]store.Op{}, valid...), bad))
		if !errors.Is(err, store.ErrInvalidArgument) {
			e.Fatalf("batch with an invalid %v = %v, want ErrInvalidArgument", bad.Kind, err)
		}
	}
	if r := e.wantClaim("op", "fp", "b", store.Acquired); r.Takeover {
		e.Fatal("an invalid batch left a claim")
	}
	e.wantNoState("ref")
}

func testBatchContextCanceled(e *batchEnv) {
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	res, err := e.apply(ctx, e.s, []store.Op{claimOp("op", "fp", "a"), store.PutStateOp(rec("ref", "wf", "d"), time.Hour)})
	if !errors.Is(err, context.Canceled) {
		e.Fatalf("Apply with a canceled context = %v, want context.Canceled", err)
	}
	if len(res) != 0 {
		e.Fatalf("Apply with a canceled context returned %d results", len(res))
	}
	e.wantClaim("op", "fp", "b", store.Acquired)
	e.wantNoState("ref")
}

func testBatchEmpty(e *batchEnv) {
	res, err := e.apply(e.ctx, e.s, nil)
	if err != nil || len(res) != 0 {
		e.Fatalf("Apply(nil) = %v, %v; want no results, no error", res, err)
	}
}

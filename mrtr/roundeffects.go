package mrtr

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Effects. Every effect holds an effect record while it runs and stores its
// outcome there: the continuation it left behind (ok) or its Rejection. The
// record is claimed before the effect starts (with the round's record, in
// one batch: roundfinish.go) and completed once it returned, with the next
// batch the round sends (its last one, or the one before the next check or
// effect); until then, its lease is renewed. What follows from that:
//
//   - an effect that returned runs once per operation id: a retry of the
//     round or a duplicate on another instance replays the recorded outcome;
//     another workflow sent the same business operation id is refused at it;
//   - a store failure right after it returned does not lose the outcome: the
//     claim stays pending under its holder, which keeps renewing it and
//     trying to record it (Engine.record), so retries wait and then replay;
//   - a crash while it ran leaves a pending claim without an outcome; after
//     the lease, the next attempt takes it over and runs the effect again,
//     with Attempt.Takeover set. That is at least once. So is an effect that
//     returned while the store stayed unreachable for longer than the lease:
//     when the store comes back, a retry that reaches it before the holder
//     does takes the lapsed claim over (told so by Takeover).

// Effect records: status byte, then the continuation after the effect
// (ok), the rejection message, or (ok by reference) the reference of a
// continuation record holding it. The continuation is tagged (binenc) in
// records of this build; effectOK and effectOKRef records, from builds
// before envelope version 3, hold it positional. Programs whose continuation is kept by
// reference (all those with sensitive fields) never put it in an effect
// record, which outlives the workflow by its retention: it goes to a
// continuation record of the workflow, sealed at rest (effectOKRefSealed;
// effectOKRef and effectOKRefV3 point to plaintext records of earlier
// builds: recordatrest.go) and deleted with the others when the workflow ends,
// and the effect record holds only its reference.
const (
	effectOK       = 1
	effectRejected = 2
	effectOKRef    = 3
	effectOKV3     = 4
	effectOKRefV3  = 5
	// effectOKRefSealed: as effectOKRefV3, the record sealed at rest.
	effectOKRefSealed = 6
)

// outcomeRecord encodes a successful effect's record. For a program kept
// by reference, the continuation goes to state, a continuation record of
// the workflow the caller stores (in the effect's transaction, or before
// the effect record), and the record holds only its reference.
func (r *round) outcomeRecord() (record []byte, state *store.StateRecord, err error) {
	data := r.snapshot()
	if r.d.Storage != vocab.Reference {
		return binenc.AppendBytes(binenc.AppendUvarint(nil, effectOKV3), data), nil, nil
	}
	ref, err := r.e.newReference()
	if err != nil {
		return nil, nil, err
	}
	rec, err := r.e.newStateRecord(r.d, ref, r.workflow, r.pHash, data)
	if err != nil {
		return nil, nil, err
	}
	return binenc.AppendBytes(binenc.AppendUvarint(nil, effectOKRefSealed), []byte(ref)), &rec, nil
}

// stateTTL is how long a continuation record lives.
func (r *round) stateTTL() time.Duration { return r.d.TTL + r.e.cfg.Codec.Skew() }

// operation names the effect the round is about to run: its OperationID
// and its record's key. key is the rendered business operation id, or ""
// for the workflow's own: then the id names the workflow, the round, the
// state and, for a state the round visits more than once (a loop without
// input), the visit, so each visit is an effect of its own and each is the
// same on a retry of the round.
func (r *round) operation(key string) (OperationID, string) {
	prefix := r.e.cfg.Audience + "/" + r.d.Subject()
	if key != "" {
		return OperationID(key), prefix + "/effect/" + key
	}
	if r.visits == nil {
		r.visits = map[uint16]int{}
	}
	r.visits[r.current]++
	id := r.workflow + "-r" + strconv.Itoa(r.call.Round) + "-" + r.d.State(r.current).Name
	if n := r.visits[r.current]; n > 1 {
		id += "-" + strconv.Itoa(n)
	}
	return OperationID(id), prefix + "/workflow-effect/" + id
}

// Effect performs a side effect of the current state and moves to next:
// at most once per operation id for an effect that returned, at least once
// for one whose instance died while it ran (see the top of this file). key
// is the rendered operation id; "" means the workflow's own. retain is how
// long a business operation's record is kept; a workflow's own effect is
// kept as long as its round's record. Replays restore the continuation the
// first run left behind, so results it stored there (a charge id) come back
// the same.
func (r *round) Effect(ctx context.Context, key string, retain time.Duration, next uint16, run func(context.Context) error) (mrtrimpl.Step, error) {
	e := r.e
	id, recordKey := r.operation(key)
	if e.cfg.Store == nil {
		return r.effectWithoutStore(ctx, id, next, run)
	}
	if key == "" {
		retain = e.retention(r.d)
	}
	// The operation is this workflow's effect at this state with these
	// arguments; what checks found before it may change between attempts
	// without making it another operation. The state is named, so that a
	// deploy that adds states elsewhere keeps the fingerprint (a round
	// resumed from a token of envelope 1 or 2 numbers it, as the build
	// that may have started the effect did).
	h := sha256.New()
	h.Write([]byte(r.workflow))
	if r.legacy {
		h.Write(binary.BigEndian.AppendUint16(nil, r.current))
	} else {
		h.Write([]byte("\x00state\x00" + r.d.State(r.current).Name))
	}
	h.Write(r.argsDigest[:])
	req := store.ClaimRequest{Key: recordKey, Fingerprint: h.Sum(nil), Owner: newOwner(), Lease: e.cfg.Lease}
	if err := ctx.Err(); err != nil {
		return mrtrimpl.Step{}, err // the client left before the effect started
	}
	res, err := r.claimEffect(ctx, req) // with the round record, or what the round owes
	if err != nil {
		return mrtrimpl.Step{}, err
	}
	switch res.Status {
	case store.Replayed:
		return r.replayEffect(ctx, req.Key, res.Result, next)
	case store.Mismatch:
		return mrtrimpl.Step{}, Reject("operation %s belongs to another request (done, or its outcome unknown); it was not done again", key)
	}
	// Acquired: do it, then record what happened.
	if res.Takeover {
		r.call.Logger.Warn("mrtr: taking over an effect whose earlier attempt recorded no outcome; it may have run", "operation", string(id))
	}
	r.call.Attempt = &Attempt{OperationID: id, Takeover: res.Takeover}
	scope := store.NewEffectScope(e.cfg.Store)
	stop, err := e.runEffect(store.WithEffectScope(ctx, scope), req, scope, run)
	r.call.Attempt = nil
	if tx := scope.Tx(); tx != nil {
		stop() // the record is written in the transaction, at once
		return r.finishInTx(ctx, tx, req, retain, next, err)
	}
	return r.finishRecorded(ctx, req, retain, next, err, stop)
}

// effectWithoutStore runs an effect of an engine without a store: nothing
// is recorded, so a retry runs it again.
func (r *round) effectWithoutStore(ctx context.Context, id OperationID, next uint16, run func(context.Context) error) (mrtrimpl.Step, error) {
	r.call.Attempt = &Attempt{OperationID: id}
	_, err := r.e.runEffect(ctx, store.ClaimRequest{}, nil, run)
	r.call.Attempt = nil
	if err != nil {
		return mrtrimpl.Step{}, err
	}
	r.effected = true
	return r.Goto(next, "next")
}

// finishRecorded records the outcome of an effect that returned (nil, or a
// Rejection), or releases its claim when it failed without a definite
// outcome. stop ends the renewal of the claim's lease: once the outcome is
// recorded, or the claim released.
func (r *round) finishRecorded(ctx context.Context, req store.ClaimRequest, retain time.Duration, next uint16, err error, stop func()) (mrtrimpl.Step, error) {
	e := r.e
	var record []byte
	var state *store.StateRecord // what the record points to
	switch rej, ok := isRejection(err); {
	case err == nil:
		record, state, err = r.outcomeRecord()
		if err != nil {
			stop() // the claim lapses: a retry takes it over, told so
			return mrtrimpl.Step{}, err
		}
	case ok:
		record = binenc.AppendBytes(binenc.AppendUvarint(nil, effectRejected), []byte(rej.msg))
	default:
		// The effect failed without a definite outcome (its method's
		// contract): let a retry try again.
		stop()
		cctx, cancel := detach(ctx)
		if rerr := e.cfg.Store.Release(cctx, req.Key, req.Owner); rerr != nil {
			r.call.Logger.Warn("mrtr: releasing effect claim", "key", req.Key, "error", rerr)
		}
		cancel()
		return mrtrimpl.Step{}, err
	}
	// From here on the outcome is known: the round goes on, and records it
	// with its next batch (recordbatch.go, roundfinish.go), whether or not the store takes
	// it right away (the background recorder keeps trying). The claim's
	// lease is renewed until then.
	r.effected = true
	var ops []store.Op
	if state != nil {
		ops = append(ops, store.PutStateOp(*state, r.stateTTL()))
	}
	r.owe(write{what: "effect outcome", key: req.Key, role: writeEffect, done: stop,
		ops: append(ops, store.CompleteOp(req.Key, req.Owner, record, retain))})
	if err != nil {
		return mrtrimpl.Step{}, err
	}
	return r.Goto(next, "next")
}

// replayEffect restores what an effect's earlier run recorded.
func (r *round) replayEffect(ctx context.Context, key string, record []byte, next uint16) (mrtrimpl.Step, error) {
	rd := binenc.NewReader(record)
	status, data := rd.Uvarint(), rd.Bytes()
	if err := rd.Done(); err != nil {
		return mrtrimpl.Step{}, fmt.Errorf("mrtr: effect record %s: %w", key, err)
	}
	switch status {
	case effectRejected:
		return mrtrimpl.Step{}, &Rejection{msg: string(data)}
	case effectOK, effectOKV3:
	case effectOKRef, effectOKRefV3, effectOKRefSealed:
		rec, err := r.e.cfg.Store.GetState(ctx, string(data))
		if err != nil {
			// Gone with its workflow: only a retry of a round whose reply
			// was never recorded, after the workflow ended, gets here.
			return mrtrimpl.Step{}, fmt.Errorf("mrtr: effect record %s: its continuation: %w", key, err)
		}
		if rec.Workflow != r.workflow || rec.Subject != r.d.Subject() || rec.Principal != r.pHash {
			return mrtrimpl.Step{}, fmt.Errorf("mrtr: effect record %s: its continuation belongs to another workflow", key)
		}
		if data, err = r.e.openStateRecord(rec, status == effectOKRefSealed); err != nil {
			return mrtrimpl.Step{}, fmt.Errorf("mrtr: effect record %s: its continuation: %w", key, err)
		}
	default:
		return mrtrimpl.Step{}, fmt.Errorf("mrtr: effect record %s: unknown status %d (written by a newer build?)", key, status)
	}
	restore := r.restore
	if status == effectOK || status == effectOKRef {
		restore = r.restoreV2
	}
	if err := restore(data); err != nil {
		return mrtrimpl.Step{}, fmt.Errorf("mrtr: effect record %s: %w", key, err)
	}
	r.effected = true
	return r.Goto(next, "next")
}

// runEffect runs a side effect once it is decided, on a context the client
// can no longer cancel (an effect cut off half-way is worse than one that
// finishes; inside a task, tasks.EffectContext: only tasks/cancel and the
// task's deadline end it) and without a deadline of the engine's: a claim's lease is
// renewed while it runs, so a slow effect is never taken over, and an
// effect cut off by the engine would have to be run again without anyone
// knowing whether it happened. Handlers bound their own downstream calls.
// With a claim, the lease goes on being renewed after the effect returned
// until the caller calls stop (once its outcome is recorded). A panic rolls
// back the effect's transaction, if it began one, and releases the claim
// before it goes on up.
func (e *Engine) runEffect(ctx context.Context, claim store.ClaimRequest, scope *store.EffectScope, run func(context.Context) error) (stop func(), err error) {
	if err := ctx.Err(); err != nil {
		return func() {}, err
	}
	// Inside a task, the effect's context still ends with tasks/cancel and
	// the task's deadline (and a cancelled task starts no further effect),
	// even once the round went on detached after an earlier effect.
	ectx := tasks.EffectContext(ctx)
	if err := ectx.Err(); err != nil {
		return func() {}, err
	}
	if claim.Key == "" {
		return func() {}, run(ectx)
	}
	stop = e.hold(ctx, claim)
	defer func() {
		if v := recover(); v != nil {
			stop()
			rctx, cancel := detach(ctx)
			if tx := scope.Tx(); tx != nil {
				_ = tx.Rollback(rctx) // first: a SQLite transaction holds the write lock
			}
			_ = e.cfg.Store.Release(rctx, claim.Key, claim.Owner)
			cancel()
			panic(v)
		}
	}()
	return stop, run(ectx)
}

// finishInTx records the outcome of an effect that wrote through its
// transaction (pgstore.EffectTx, sqlitestore.EffectTx): the record is
// completed in that transaction, and the two commit together or not at
// all. So a failure anywhere before the commit undoes the effect too, and a
// retry may run it again safely; a commit whose outcome is unknown (the
// link died during COMMIT) leaves the claim pending: a retry replays it if
// it committed and takes it over after the lease if it did not.
func (r *round) finishInTx(ctx context.Context, tx store.EffectTx, req store.ClaimRequest, retain time.Duration, next uint16, ran error) (mrtrimpl.Step, error) {
	e := r.e
	cctx, cancel := detach(ctx)
	defer cancel()
	undo := func(release bool) {
		if err := tx.Rollback(cctx); err != nil {
			r.call.Logger.Warn("mrtr: rolling back an effect's transaction", "key", req.Key, "error", err)
		}
		if release {
			if err := e.cfg.Store.Release(cctx, req.Key, req.Owner); err != nil {
				r.call.Logger.Warn("mrtr: releasing effect claim", "key", req.Key, "error", err)
			}
		}
	}
	if rej, ok := isRejection(ran); ok {
		// A definite refusal: nothing the effect wrote stands; the refusal
		// is recorded as usual.
		undo(false)
		record := binenc.AppendBytes(binenc.AppendUvarint(nil, effectRejected), []byte(rej.msg))
		r.pending = append(r.pending, e.record(ctx, "effect outcome", req.Key, func(ctx context.Context) error {
			return e.cfg.Store.Complete(ctx, req.Key, req.Owner, record, retain)
		}, nil))
		return mrtrimpl.Step{}, ran
	}
	if ran != nil {
		undo(true)
		return mrtrimpl.Step{}, ran
	}
	record, state, err := r.outcomeRecord()
	if err != nil {
		undo(true)
		return mrtrimpl.Step{}, err
	}
	if state != nil {
		if err := tx.PutState(cctx, *state, r.stateTTL()); err != nil {
			undo(true)
			return mrtrimpl.Step{}, fmt.Errorf("mrtr: storing an effect's continuation in its transaction: %w", err)
		}
	}
	if err := tx.Complete(cctx, req.Key, req.Owner, record, retain); err != nil {
		// Lost to another attempt, or the store failed: either way the
		// effect's writes are undone with the record.
		undo(!errors.Is(err, store.ErrLeaseLost))
		return mrtrimpl.Step{}, fmt.Errorf("mrtr: recording an effect in its transaction (its writes were rolled back): %w", err)
	}
	if err := tx.Commit(cctx); err != nil {
		r.call.Logger.Error("mrtr: committing an effect's transaction failed; its outcome is unknown until a retry finds the record or takes the claim over", "key", req.Key, "error", err)
		return mrtrimpl.Step{}, fmt.Errorf("mrtr: committing an effect: %w", err)
	}
	r.effected = true
	return r.Goto(next, "next")
}

package mrtr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Store round trips. A round talks to the store at two moments, and sends
// each moment's operations in one batch (store.Apply: one round trip on
// the stores of this module; one call per operation on a store that is no
// store.Batcher, with the same outcome):
//
//   - before its first effect: the round record and the effect record are
//     claimed together, the effect's only if the round is this attempt's;
//   - when it ends: what its effects owe (their outcomes, and the
//     continuation an effect left, by reference), the continuation its
//     reply points to, its reply (or the release of its record when it
//     failed), and the deletion of the workflow's continuations when the
//     workflow ended.
//
// A round whose continuation is sealed has nothing to read from the store,
// so it claims its record only there: with its first effect, or with its
// reply when it runs none (then the claim and the reply are one batch). The
// states before that point (answers and their validators, checks) run
// before the round knows whether an earlier attempt answered it; when one
// did, the round returns that attempt's reply and drops its own, so a retry
// still gets the first reply and runs no effect again. A round kept by
// reference claims its record up front, with the read of its continuation.
//
// An effect's outcome waits for the round's end only while the states
// after it run no handler code: before a check (which may take long), or
// another effect, what the round owes is sent first.

// owe queues a recording until the round's next batch.
func (r *round) owe(w write) { r.queued = append(r.queued, w) }

func (r *round) takeQueued() []write {
	q := r.queued
	r.queued = nil
	return q
}

// flush sends what the round owes now, before a state that runs handler
// code.
func (r *round) flush(ctx context.Context) {
	if len(r.queued) == 0 {
		return
	}
	_, unfinished, err := r.e.writeNow(ctx, r.call.Logger, r.takeQueued(), nil)
	if len(unfinished) > 0 {
		r.pending = append(r.pending, r.e.writeLater(r.call.Logger, unfinished, err))
	}
}

// roundSettled ends a round at its first effect when the batch that
// claimed the round record with the effect's found the round answered by
// an earlier attempt (reply), refused it (err), or failed (storeErr):
// nothing ran that a retry could repeat.
type roundSettled struct {
	reply    *Reply
	err      error
	storeErr error
}

func (s *roundSettled) Error() string {
	switch {
	case s.reply != nil:
		return "mrtr: round already answered"
	case s.storeErr != nil:
		return "mrtr: claiming the round record: " + s.storeErr.Error()
	}
	return "mrtr: round refused: " + s.err.Error()
}

// claimEffect takes an effect's record: in one batch with the round's own
// record when the round has not claimed it yet (its first effect), or with
// what the round still owes the store (an earlier effect's outcome)
// otherwise. It waits while another attempt runs the effect.
func (r *round) claimEffect(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	e := r.e
	var res []store.OpResult
	if rec := r.rec; rec != nil && rec.lazy {
		reply, got, err := rec.claimWith(ctx, store.ClaimOp(req))
		switch {
		case reply != nil:
			rec.settled = true
			return store.ClaimResult{}, &roundSettled{reply: reply}
		case err != nil:
			rec.settled = true
			if _, ok := errors.AsType[*jsonrpc.Error](err); ok || ctx.Err() != nil {
				return store.ClaimResult{}, &roundSettled{err: err}
			}
			return store.ClaimResult{}, &roundSettled{storeErr: err}
		}
		res = got
	} else {
		got, unfinished, err := e.writeNow(ctx, r.call.Logger, r.takeQueued(), []store.Op{store.ClaimOp(req)})
		if len(unfinished) > 0 {
			r.pending = append(r.pending, e.writeLater(r.call.Logger, unfinished, err))
		}
		if err != nil {
			return store.ClaimResult{}, err
		}
		res = got
	}
	if c := res[0].Claim; c.Status != store.InFlight {
		return c, nil
	}
	return e.claim(ctx, req) // another attempt runs this effect: wait for it
}

// settle turns a roundSettled into the round's reply.
func (rr *run[F]) settle(ctx context.Context, s *roundSettled) (*Reply, error) {
	switch {
	case s.reply != nil:
		rr.rt.replayed = true
		return rr.e.replay(rr.d, rr.caps, s.reply)
	case s.storeErr != nil:
		return rr.e.storeFailed(ctx, rr.rt, rr.d, s.storeErr)
	}
	if ctx.Err() != nil {
		rr.rt.outcome = "cancelled"
	}
	return nil, s.err
}

// claimRoundWithState is the claimRound step of a round that did not
// expire: a round kept by reference claims its record and reads its
// continuation in one batch; a sealed one claims its record later (lazy,
// see the top of this file).
func (rr *run[F]) claimRoundWithState(ctx context.Context) (*Reply, error) {
	e := rr.e
	rec, err := e.newRoundRecord(rr.d, rr.env, rr.recordDigest, &rr.req, rr.inputs)
	if err != nil {
		return nil, err
	}
	if rr.d.Storage != vocab.Reference {
		rec.lazy = true
		rr.rec = rec
		return nil, nil
	}
	var ops []store.Op
	if rr.env.ref != "" {
		ops = append(ops, store.GetStateOp(rr.env.ref))
	}
	reply, res, err := rec.claimWith(ctx, ops...)
	if reply != nil || err != nil {
		return rr.unclaimed(ctx, reply, err)
	}
	rr.rec = rec
	if len(res) > 0 {
		rr.fetched = &res[0]
	}
	return nil, nil
}

// finishRound records the round in its last batch: what its effects owe,
// the continuation its reply points to (by reference), its reply or the
// release of its record, and the deletion of the workflow's continuations
// when the workflow ended. Only a continuation the store did not take
// changes the reply: its token would point to nothing, so the round fails
// instead (a retry runs it again).
func (rr *run[F]) finishRound(ctx context.Context, reply *Reply, err error) (*Reply, error) {
	e, r, rec := rr.e, rr.round, rr.rec
	if e.cfg.Store == nil {
		return reply, err
	}
	failed := err != nil || reply == nil || (reply.Final != nil && reply.Final.Outcome == OutcomeError)
	if rec != nil && rec.lazy {
		return rr.finishLazy(ctx, reply, err, failed)
	}
	if r == nil {
		if rec != nil && !rec.settled {
			_, unfinished, werr := e.writeNow(ctx, e.log, []write{rec.write(reply, failed)}, nil)
			e.writeLater(e.log, unfinished, werr)
		}
		return reply, err
	}
	log := r.call.Logger
	writes, deleteLater := rr.finalWrites(reply, failed)
	_, unfinished, werr := e.writeNow(ctx, log, writes, nil)
	if i := slices.IndexFunc(unfinished, func(w write) bool { return w.role == writeContinuation }); i >= 0 {
		// The continuation was not stored: its token would point to
		// nothing, so the round fails (and its record is released).
		unfinished = slices.Delete(unfinished, i, i+1)
		for j := range unfinished {
			if unfinished[j].role == writeRound && rec != nil {
				unfinished[j] = rec.write(nil, true)
			}
		}
		reply, err = nil, fmt.Errorf("storing continuation: %w", werr)
	}
	if len(unfinished) > 0 {
		r.pending = append(r.pending, e.writeLater(log, unfinished, werr))
	}
	if deleteLater {
		e.consume(ctx, rr.d, &rr.req, rr.call, r.pending)
	}
	return reply, err
}

// finalWrites are the writes of finishRound's batch: what the effects owe,
// the next continuation (by reference), the round record, and the
// deletion of a finished workflow's continuations, unless that must wait
// for recordings still in flight (deleteLater).
func (rr *run[F]) finalWrites(reply *Reply, failed bool) (writes []write, deleteLater bool) {
	r, rec := rr.round, rr.rec
	writes = r.takeQueued()
	if r.nextState != nil && !failed {
		writes = append(writes, write{what: "continuation", key: r.workflow, role: writeContinuation,
			ops: []store.Op{store.PutStateOp(*r.nextState, r.stateTTL())}})
	}
	if rec != nil && !rec.settled {
		writes = append(writes, rec.write(reply, failed))
	}
	if r.ended && rr.d.Storage == vocab.Reference && rr.resumed() {
		if !allOver(r.pending) {
			return writes, true
		}
		writes = append(writes, write{what: "deletion of a finished workflow's continuations", key: r.workflow, role: writeDeletion,
			ops: []store.Op{store.DeleteWorkflowStatesOp(r.workflow)}})
	}
	return writes, false
}

// finishLazy ends a round that has not claimed its record (it ran no
// effect): the record is claimed with the reply in one batch, and a reply
// an earlier attempt stored is returned instead of this one. A round that
// failed consults the record the same way (a stored reply still wins) and
// gives it back.
func (rr *run[F]) finishLazy(ctx context.Context, reply *Reply, err error, failed bool) (*Reply, error) {
	e, rec := rr.e, rr.rec
	if rec.settled || (reply == nil && err == nil) || (failed && ctx.Err() != nil) {
		return reply, err // replayed or refused at an effect, a panic, or the client left
	}
	var op store.Op
	if failed {
		op = store.ReleaseOp(rec.key, rec.owner)
	} else {
		data, merr := json.Marshal(reply)
		if merr != nil {
			return nil, fmt.Errorf("mrtr: encoding a round reply: %w", merr)
		}
		op = store.CompleteOp(rec.key, rec.owner, data, rec.retain)
	}
	stored, res, cerr := rec.claimWith(ctx, op)
	if cerr == nil && stored == nil {
		rec.release() // acquired, and completed or released in the same batch
	}
	switch {
	case stored != nil:
		rr.rt.replayed = true
		return e.replay(rr.d, rr.caps, stored)
	case failed:
		return reply, err
	case cerr != nil:
		return e.storeFailed(ctx, rr.rt, rr.d, cerr)
	}
	if res[0].Err != nil {
		e.log.Error("mrtr: round reply not recorded", "key", rec.key, "error", res[0].Err)
	}
	return reply, err
}

// replayAfterPanic looks, after a state panicked in a round that had not
// claimed its record yet, for the reply an earlier attempt stored: a
// retry returns it, as it would have had the round claimed its record
// before running anything. It returns nothing when there is none (the
// record is given back in the same batch).
func (rr *run[F]) replayAfterPanic(ctx context.Context) (*Reply, error) {
	rec := rr.rec
	if rec == nil || !rec.lazy || rec.settled {
		return nil, nil
	}
	stored, _, err := rec.claimWith(ctx, store.ReleaseOp(rec.key, rec.owner))
	switch {
	case stored != nil:
		rr.rt.replayed = true
		return rr.e.replay(rr.d, rr.caps, stored)
	case err == nil:
		rec.release()
	}
	return nil, nil
}

package mrtr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Apply sends a batch with one deadline (Config.StoreTimeout).
func (b *boundedStore) Apply(ctx context.Context, ops []store.Op) ([]store.OpResult, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return store.Apply(ctx, b.s, ops)
}

// apply sends ops to the store as one batch.
func (e *Engine) apply(ctx context.Context, ops []store.Op) ([]store.OpResult, error) {
	return store.Apply(ctx, e.cfg.Store, ops)
}

// write is a recording a round owes the store: ops applied in order (a
// continuation before the record that points to it), then done, which
// stops the renewal of the claim's lease (nil: nothing to stop).
type write struct {
	what, key string
	role      writeRole
	ops       []store.Op
	done      func()
}

type writeRole uint8

const (
	writeEffect       writeRole = iota + 1 // an effect's outcome
	writeContinuation                      // the continuation the reply's token points to
	writeRound                             // the round's reply, or the release of its record
	writeDeletion                          // a finished workflow's continuations
)

// writeNow sends writes, then claims, in one batch. It returns the claims'
// results (fewer than claims when the batch failed) and the writes the
// batch did not finish, which the caller hands to writeLater. Writes go
// through even when the client has left.
func (e *Engine) writeNow(ctx context.Context, log *slog.Logger, writes []write, claims []store.Op) (claimed []store.OpResult, unfinished []write, err error) {
	n := 0
	for _, w := range writes {
		n += len(w.ops)
	}
	if n+len(claims) == 0 {
		return nil, nil, nil
	}
	// One allocation: an Op is a few hundred bytes, and appending one
	// write after another grew and copied the batch each time.
	ops := make([]store.Op, 0, n+len(claims))
	for _, w := range writes {
		ops = append(ops, w.ops...)
	}
	ops = append(ops, claims...)
	if len(writes) > 0 {
		var cancel context.CancelFunc
		ctx, cancel = e.detachForStore(ctx)
		defer cancel()
	}
	res, err := e.apply(ctx, ops)
	unfinished = settleWrites(log, writes, res)
	if len(res) > n {
		claimed = res[n:]
	}
	return claimed, unfinished, err
}

// settleWrites finishes every write all of whose ops have a result (res
// holds the results of a prefix of the writes' ops): a record refused
// because another attempt took its claim over is logged as the error it
// is. It returns the other writes, without their ops that have a result.
func settleWrites(log *slog.Logger, writes []write, res []store.OpResult) []write {
	var rest []write
	start := 0
	for _, w := range writes {
		end := start + len(w.ops)
		if end > len(res) {
			w.ops = w.ops[max(0, len(res)-start):]
			rest = append(rest, w)
			start = end
			continue
		}
		for _, r := range res[start:end] {
			if errors.Is(r.Err, store.ErrLeaseLost) {
				log.Error("mrtr: "+w.what+" not recorded: another attempt took over its claim", "key", w.key, "error", r.Err)
			}
		}
		if w.done != nil {
			w.done()
		}
		start = end
	}
	return rest
}

// writeLater keeps sending writes in the background (Engine.recordLater)
// after the store failed: the claims stay pending under their owners
// meanwhile, their leases renewed, so retries wait and then replay. The
// channel is closed when the writes are over, one way or the other.
func (e *Engine) writeLater(log *slog.Logger, writes []write, cause error) <-chan struct{} {
	over := make(chan struct{})
	if len(writes) == 0 {
		close(over)
		return over
	}
	what := writes[0].what
	if len(writes) > 1 {
		what = fmt.Sprintf("%s and %d more recordings", what, len(writes)-1)
	}
	log.Warn("mrtr: "+what+" not recorded yet; retrying in the background", "key", writes[0].key, "error", cause)
	e.recordLater(what, writes[0].key, func(ctx context.Context) error {
		var ops []store.Op
		for _, w := range writes {
			ops = append(ops, w.ops...)
		}
		res, err := e.apply(ctx, ops)
		writes = settleWrites(log, writes, res)
		return err
	}, func() {
		for _, w := range writes { // given up
			if w.done != nil {
				w.done()
			}
		}
		close(over)
	})
	return over
}

// claimWith takes the round record in one batch with ops, which run only
// if the round is this attempt's (IfAcquired), waiting while another
// attempt holds it. It returns the stored reply when an earlier attempt
// answered the round, or the results of ops once the record is this
// attempt's; its lease is then renewed until the round stops it
// (rr.release). When the store fails, whatever the batch may have claimed
// is given back.
func (rr *roundRecord) claimWith(ctx context.Context, ops ...store.Op) (*Reply, []store.OpResult, error) {
	e := rr.e
	batch := make([]store.Op, 1, 1+len(ops))
	batch[0] = store.ClaimOp(rr.claim)
	for _, op := range ops {
		batch = append(batch, op.IfClaimed())
	}
	wait := 10 * time.Millisecond
	for {
		res, err := e.apply(ctx, batch)
		if err != nil {
			rr.unclaim(ctx, ops)
			return nil, nil, err
		}
		switch c := res[0].Claim; c.Status {
		case store.Acquired:
			rr.lazy = false
			rr.release = e.hold(ctx, rr.claim)
			return nil, res[1:], nil
		case store.Replayed:
			var reply Reply
			if err := json.Unmarshal(c.Result, &reply); err != nil {
				return nil, nil, fmt.Errorf("mrtr: stored reply of %s: %w", rr.key, err)
			}
			return &reply, nil, nil
		case store.Mismatch:
			// The same continuation was already answered differently.
			return nil, nil, usedWithOtherInputError()
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, nil, ctx.Err()
		case <-t.C:
		}
		wait = min(wait*2, 250*time.Millisecond)
	}
}

// unclaim gives back the claims a failed batch of claimWith may have
// taken (its reply may have been lost, or a store without batches applied
// only its first calls), so that a retry need not wait out their leases.
// Releasing a claim one does not hold does nothing.
func (rr *roundRecord) unclaim(ctx context.Context, ops []store.Op) {
	rel := []store.Op{store.ReleaseOp(rr.key, rr.owner)}
	for _, op := range ops {
		if op.Kind == store.OpClaim {
			rel = append(rel, store.ReleaseOp(op.Claim.Key, op.Claim.Owner))
		}
	}
	cctx, cancel := detach(ctx)
	defer cancel()
	_, _ = rr.e.apply(cctx, rel)
}

// write is the round record's part of the round's last batch: its reply,
// or its release when the round failed (a retry runs it then). The lease
// renewal stops before a release is sent: a renewal after it would take
// the record again.
func (rr *roundRecord) write(reply *Reply, failed bool) write {
	if !failed {
		data, err := json.Marshal(reply)
		if err == nil {
			return write{what: "round reply", key: rr.key, role: writeRound, done: rr.release,
				ops: []store.Op{store.CompleteOp(rr.key, rr.owner, data, rr.retain)}}
		}
		rr.e.log.Error("mrtr: encoding a round reply; a retry of this round will run it again", "key", rr.key, "error", err)
	}
	rr.release()
	return write{what: "release of a round record", key: rr.key, role: writeRound, ops: []store.Op{store.ReleaseOp(rr.key, rr.owner)}}
}

// allOver reports whether every recording in pending is over.
func allOver(pending []<-chan struct{}) bool {
	for _, p := range pending {
		select {
		case <-p:
		default:
			return false
		}
	}
	return true
}

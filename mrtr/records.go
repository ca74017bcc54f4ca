package mrtr

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Records make retries safe. Every round that resumes a workflow holds a
// round record (workflow id + round number) while it runs and stores its
// reply in it: a retry of the round, on any instance, gets the same reply
// without running anything again, and a duplicate that arrives while the
// first is still running waits for it. Effects with a business operation
// id ("charge-{invoiceId}") also hold an effect record, which stops a
// second workflow from doing the same thing again.

func newOwner() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// claim takes a record, waiting while another owner holds a live lease.
func (e *Engine) claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	wait := 10 * time.Millisecond
	for {
		res, err := e.cfg.Store.Claim(ctx, req)
		if err != nil || res.Status != store.InFlight {
			return res, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return res, ctx.Err()
		case <-t.C:
		}
		wait = min(wait*2, 250*time.Millisecond)
	}
}

type roundRecord struct {
	e      *Engine
	key    string
	owner  string
	retain time.Duration
}

// claimRound takes the round record, or returns the reply a previous
// attempt of this round stored.
func (e *Engine) claimRound(ctx context.Context, d *Descriptor, env *envelope, argsDigest [32]byte, req *Request) (*roundRecord, *Reply, error) {
	h := sha256.New()
	h.Write(argsDigest[:])
	responses, err := json.Marshal(req.InputResponses)
	if err != nil {
		return nil, nil, err
	}
	h.Write(responses)
	rr := &roundRecord{
		e:      e,
		key:    fmt.Sprintf("%s/%s/round/%s/%d", e.cfg.Audience, d.Subject(), env.workflowID(), env.round),
		owner:  newOwner(),
		retain: d.TTL + seal.DefaultSkew + time.Minute,
	}
	res, err := e.claim(ctx, store.ClaimRequest{Key: rr.key, Fingerprint: h.Sum(nil), Owner: rr.owner, Lease: e.cfg.Lease})
	if err != nil {
		return nil, nil, err
	}
	switch res.Status {
	case store.Acquired:
		return rr, nil, nil
	case store.Replayed:
		var reply Reply
		if err := json.Unmarshal(res.Result, &reply); err != nil {
			return nil, nil, fmt.Errorf("mrtr: stored reply of %s: %w", rr.key, err)
		}
		return nil, &reply, nil
	}
	// Mismatch: the same continuation was already answered differently.
	return nil, nil, &jsonrpc.Error{Code: codeInvalidParams, Message: "this requestState was already used with other input; start the operation again"}
}

// finish stores the round's reply, or releases the record when the round
// failed so that a corrected retry can run.
func (rr *roundRecord) finish(ctx context.Context, reply *Reply, err error) {
	if rr == nil {
		return
	}
	cctx, cancel := detach(ctx)
	defer cancel()
	s := rr.e.cfg.Store
	if err != nil || reply == nil {
		if rerr := s.Release(cctx, rr.key, rr.owner); rerr != nil {
			rr.e.log.Warn("mrtr: releasing round record", "key", rr.key, "error", rerr)
		}
		return
	}
	data, merr := json.Marshal(reply)
	if merr == nil {
		merr = s.Complete(cctx, rr.key, rr.owner, data, rr.retain)
	}
	if merr != nil {
		rr.e.log.Error("mrtr: storing round reply; a retry of this round will run again", "key", rr.key, "error", merr)
	}
}

// Effect records: status byte, then the continuation after the effect (ok)
// or the rejection message.
const (
	effectOK       = 1
	effectRejected = 2
)

// Effect performs a side effect of the current state at most once per
// operation and moves to next. key is the rendered operation id; "" means
// the workflow's own (the round record already covers retries). Replays
// restore the continuation the first run left behind, so results that the
// effect stored in it (a charge id) come back the same.
func (r *Round) Effect(ctx context.Context, key string, retain time.Duration, next uint16, run func(context.Context) error) (Step, error) {
	e := r.e
	if key == "" || e.cfg.Store == nil {
		if err := run(ctx); err != nil {
			return Step{}, err
		}
		return r.Goto(next, "next")
	}
	h := sha256.New()
	h.Write([]byte(r.workflow))
	h.Write(binary.BigEndian.AppendUint16(nil, r.current))
	h.Write(r.argsDigest[:])
	h.Write(r.snapshot())
	req := store.ClaimRequest{
		Key:         fmt.Sprintf("%s/%s/effect/%s", e.cfg.Audience, r.d.Subject(), key),
		Fingerprint: h.Sum(nil),
		Owner:       newOwner(),
		Lease:       e.cfg.Lease,
	}
	res, err := e.claim(ctx, req)
	if err != nil {
		return Step{}, err
	}
	switch res.Status {
	case store.Replayed:
		rd := binenc.NewReader(res.Result)
		status, data := rd.Uvarint(), rd.Bytes()
		if err := rd.Done(); err != nil {
			return Step{}, fmt.Errorf("mrtr: effect record %s: %w", req.Key, err)
		}
		if status == effectRejected {
			return Step{}, &Rejection{msg: string(data)}
		}
		if err := r.restore(data); err != nil {
			return Step{}, fmt.Errorf("mrtr: effect record %s: %w", req.Key, err)
		}
		return r.Goto(next, "next")
	case store.Mismatch:
		return Step{}, Reject("operation %s was already performed by another request; it was not done again", key)
	}
	// Acquired: do it, then record what happened.
	err = run(ctx)
	var record []byte
	switch rej, ok := isRejection(err); {
	case err == nil:
		record = binenc.AppendBytes(binenc.AppendUvarint(nil, effectOK), r.snapshot())
	case ok:
		record = binenc.AppendBytes(binenc.AppendUvarint(nil, effectRejected), []byte(rej.msg))
	default:
		// The effect failed without a definite outcome: let a retry try again.
		cctx, cancel := detach(ctx)
		if rerr := e.cfg.Store.Release(cctx, req.Key, req.Owner); rerr != nil {
			r.call.Logger.Warn("mrtr: releasing effect claim", "key", req.Key, "error", rerr)
		}
		cancel()
		return Step{}, err
	}
	cctx, cancel := detach(ctx)
	defer cancel()
	if cerr := e.cfg.Store.Complete(cctx, req.Key, req.Owner, record, retain); cerr != nil {
		r.call.Logger.Error("mrtr: effect done but its record was not stored; a retry could repeat it", "key", req.Key, "error", cerr)
		if !errors.Is(cerr, store.ErrLeaseLost) {
			return Step{}, cerr
		}
	}
	if err != nil {
		return Step{}, err
	}
	return r.Goto(next, "next")
}

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

// hold keeps a claim's lease alive while its holder works: a round or an
// effect slower than the lease must not be taken over by a retry while it
// still runs. It renews the claim (same owner) every third of the lease
// until stop is called, which must happen before Complete or Release.
func (e *Engine) hold(ctx context.Context, req store.ClaimRequest) (stop func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(max(req.Lease/3, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				res, err := e.cfg.Store.Claim(ctx, req)
				if ctx.Err() != nil {
					return
				}
				if err != nil || res.Status != store.Acquired {
					e.log.Warn("mrtr: could not renew a claim's lease", "key", req.Key, "status", res.Status, "error", err)
					return
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// retention is how long a record must outlive the token it protects: the
// token's TTL plus the codec's clock skew, and a minute of margin.
func (e *Engine) retention(d *Descriptor) time.Duration {
	return d.TTL + e.cfg.Codec.Skew() + time.Minute
}

type roundRecord struct {
	e       *Engine
	key     string
	owner   string
	retain  time.Duration
	release func() // stops renewing the lease
}

// claimRound takes the round record, or returns the reply a previous
// attempt of this round stored. The fingerprint covers everything the
// client sent: arguments, answers and up-front inputs.
func (e *Engine) claimRound(ctx context.Context, d *Descriptor, env *envelope, argsDigest [32]byte, req *Request, inputs map[string]json.RawMessage) (*roundRecord, *Reply, error) {
	h := sha256.New()
	h.Write(argsDigest[:])
	for _, v := range []any{req.InputResponses, inputs} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, nil, err
		}
		h.Write(b)
	}
	rr := &roundRecord{
		e:      e,
		key:    fmt.Sprintf("%s/%s/round/%s/%d", e.cfg.Audience, d.Subject(), env.workflowID(), env.round),
		owner:  newOwner(),
		retain: e.retention(d),
	}
	claim := store.ClaimRequest{Key: rr.key, Fingerprint: h.Sum(nil), Owner: rr.owner, Lease: e.cfg.Lease}
	res, err := e.claim(ctx, claim)
	if err != nil {
		return nil, nil, err
	}
	switch res.Status {
	case store.Acquired:
		rr.release = e.hold(ctx, claim)
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
// failed so that a retry can run: protocol errors, cancellation, and
// dependency failures (outcome error), which a retry may not meet again.
func (rr *roundRecord) finish(ctx context.Context, reply *Reply, err error) {
	if rr == nil {
		return
	}
	rr.release()
	cctx, cancel := detach(ctx)
	defer cancel()
	s := rr.e.cfg.Store
	if err != nil || reply == nil || (reply.Final != nil && reply.Final.Outcome == OutcomeError) {
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

// runEffect runs a side effect once it is decided: on a context the client
// can no longer cancel (an effect cut off half-way is worse than one that
// finishes), bounded by the lease, which is renewed meanwhile when there is
// a claim. A panic releases the claim before it goes on up.
func (e *Engine) runEffect(ctx context.Context, claim store.ClaimRequest, run func(context.Context) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.Lease)
	defer cancel()
	if claim.Key == "" {
		return run(ectx)
	}
	stop := e.hold(ctx, claim)
	defer func() {
		stop()
		if v := recover(); v != nil {
			rctx, cancel := detach(ctx)
			_ = e.cfg.Store.Release(rctx, claim.Key, claim.Owner)
			cancel()
			panic(v)
		}
	}()
	return run(ectx)
}

// Effect performs a side effect of the current state at most once per
// operation and moves to next. key is the rendered operation id; "" means
// the workflow's own (the round record already covers retries). Replays
// restore the continuation the first run left behind, so results that the
// effect stored in it (a charge id) come back the same.
func (r *Round) Effect(ctx context.Context, key string, retain time.Duration, next uint16, run func(context.Context) error) (Step, error) {
	e := r.e
	if key == "" || e.cfg.Store == nil {
		if err := e.runEffect(ctx, store.ClaimRequest{}, run); err != nil {
			return Step{}, err
		}
		r.effected = true
		return r.Goto(next, "next")
	}
	// The operation is this workflow's effect at this state with these
	// arguments; what checks found before it may change between attempts
	// without making it another operation.
	h := sha256.New()
	h.Write([]byte(r.workflow))
	h.Write(binary.BigEndian.AppendUint16(nil, r.current))
	h.Write(r.argsDigest[:])
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
		r.effected = true
		return r.Goto(next, "next")
	case store.Mismatch:
		return Step{}, Reject("operation %s belongs to another request (done, or its outcome unknown); it was not done again", key)
	}
	// Acquired: do it, then record what happened.
	err = e.runEffect(ctx, req, run)
	r.effected = err == nil
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

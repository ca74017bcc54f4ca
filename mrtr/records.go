package mrtr

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Records make retries safe. Every round that resumes a workflow holds a
// round record (workflow id + round number) while it runs and stores its
// reply in it: a retry of the round, on any instance, gets the same reply
// and runs no effect again, and a duplicate that arrives while the first
// is still running waits for it. (A round with a sealed continuation
// claims its record with its first effect, or with its reply: the states
// before that, answers and checks, may run again in a retry before it
// finds the record; see roundfinish.go.) Every effect also holds an effect
// record (roundeffects.go): a retry that runs the round again (its reply was not
// stored) replays the effect instead of repeating it, and an effect with a
// business operation id ("charge-{invoiceId}") is not done again by a
// second workflow either.

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
// until stop is called, which must happen before Complete or Release. A
// renewal that fails (the store is briefly unreachable) is retried every
// twentieth of the lease: giving up would let the lease lapse under a live
// holder. Only losing the claim to another owner ends it early.
//
// Most holders finish long before a third of their lease, so nothing runs
// until then: one timer waits, and only when it fires does a goroutine
// start renewing (a round then costs a timer, not a goroutine, two
// contexts and a channel). stop returns once no renewal can be sent any
// more.
func (e *Engine) hold(ctx context.Context, req store.ClaimRequest) (stop func()) {
	h := &leaseHolder{e: e, req: req, parent: ctx}
	h.timer = time.AfterFunc(max(req.Lease/3, time.Millisecond), h.renew)
	return h.stop
}

// leaseHolder is one hold: its timer, and once the timer has fired, the
// renewing goroutine's cancel and done.
type leaseHolder struct {
	e      *Engine
	req    store.ClaimRequest
	parent context.Context
	timer  *time.Timer

	mu      sync.Mutex
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func (h *leaseHolder) stop() {
	if h.timer.Stop() {
		return // never fired: no renewal was started, none will be
	}
	h.mu.Lock()
	h.stopped = true
	cancel, done := h.cancel, h.done
	h.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// renew runs on the timer's goroutine the first time the timer fires, and
// renews until stopped or the claim is lost.
func (h *leaseHolder) renew() {
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(h.parent))
	h.cancel, h.done = cancel, make(chan struct{})
	h.mu.Unlock()
	defer close(h.done)
	e, req := h.e, h.req
	every, retry := max(req.Lease/3, time.Millisecond), max(req.Lease/20, time.Millisecond)
	var t *time.Timer // made at the first renewal's end
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	failing := false
	for {
		if t != nil {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
		res, err := e.cfg.Store.Claim(ctx, req)
		if ctx.Err() != nil {
			return
		}
		next := every
		switch {
		case err != nil:
			if !failing {
				e.log.Warn("mrtr: could not renew a claim's lease; retrying", "key", req.Key, "error", err)
			}
			failing = true
			next = retry
		case res.Status == store.Replayed:
			return // recorded (by this holder, in the moment before stop)
		case res.Status != store.Acquired:
			e.log.Error("mrtr: a claim's lease was lost to another attempt while its holder still works", "key", req.Key, "status", res.Status)
			return
		default:
			if failing {
				e.log.Info("mrtr: renewed a claim's lease again", "key", req.Key)
			}
			failing = false
		}
		if t == nil {
			t = time.NewTimer(next)
		} else {
			t.Reset(next)
		}
	}
}

// retention is how long a record must outlive the token it protects: the
// token's TTL plus the codec's clock skew, and a minute of margin.
func (e *Engine) retention(d *mrtrimpl.Descriptor) time.Duration {
	return d.TTL + e.cfg.Codec.Skew() + time.Minute
}

type roundRecord struct {
	e       *Engine
	key     string
	owner   string
	retain  time.Duration
	claim   store.ClaimRequest
	release func() // stops renewing the lease (set once claimed)
	// lazy: not claimed yet. A round whose continuation is sealed claims
	// its record together with its first effect's record, or with its
	// reply when it runs no effect (recordbatch.go, roundfinish.go); settled is set when
	// that claim found the round answered before or refused, so that the
	// round leaves the record alone.
	lazy, settled bool
}

// claimRound takes the round record, or returns the reply a previous
// attempt of this round stored.
func (e *Engine) claimRound(ctx context.Context, d *mrtrimpl.Descriptor, env *envelope, argsDigest [32]byte, req *Request, inputs map[string]json.RawMessage) (*roundRecord, *Reply, error) {
	rr, err := e.newRoundRecord(d, env, argsDigest, req, inputs)
	if err != nil {
		return nil, nil, err
	}
	reply, _, err := rr.claimWith(ctx)
	if err != nil || reply != nil {
		return nil, reply, err
	}
	return rr, nil, nil
}

// newRoundRecord names the round record and the claim on it, without
// taking it. The fingerprint covers everything the client sent:
// arguments, answers and up-front inputs.
func (e *Engine) newRoundRecord(d *mrtrimpl.Descriptor, env *envelope, argsDigest [32]byte, req *Request, inputs map[string]json.RawMessage) (*roundRecord, error) {
	// Only answers to requests this round was sent count: a retry that adds
	// or drops a key nobody asked for is the same round (such keys are
	// ignored, as the MCP MRTR rules ask), and replays.
	asked := mcp.InputResponseMap{}
	if info := d.State(env.state); info != nil {
		for i, q := range info.Requests {
			if resp, ok := req.InputResponses[q.Key]; ok && i < 64 && env.sent&(1<<i) != 0 {
				asked[q.Key] = resp
			}
		}
	}
	h := sha256.New()
	h.Write(argsDigest[:])
	b, err := json.Marshal(asked)
	if err != nil {
		return nil, err
	}
	h.Write(b)
	// The bytes json.Marshal writes for the inputs; most tools have none
	// (a nil map is "null"), and these fingerprints must not change.
	b = []byte("null")
	if inputs != nil {
		if b, err = json.Marshal(inputs); err != nil {
			return nil, err
		}
	}
	h.Write(b)
	rr := &roundRecord{
		e:      e,
		key:    e.cfg.Audience + "/" + d.Subject() + "/round/" + env.workflowID() + "/" + strconv.Itoa(env.round),
		owner:  newOwner(),
		retain: e.retention(d),
	}
	rr.claim = store.ClaimRequest{Key: rr.key, Fingerprint: h.Sum(nil), Owner: rr.owner, Lease: e.cfg.Lease}
	return rr, nil
}

// abandon releases the record of a round that will not run (its token
// expired and no earlier attempt recorded a reply).
func (rr *roundRecord) abandon(ctx context.Context) {
	rr.release()
	cctx, cancel := detach(ctx)
	defer cancel()
	if err := rr.e.cfg.Store.Release(cctx, rr.key, rr.owner); err != nil {
		rr.e.log.Warn("mrtr: releasing round record", "key", rr.key, "error", err)
	}
}

// record runs write, which completes a claim (and may store what the
// record points to first), then calls done (nil: nothing), which stops the
// renewal of the claim's lease. When the store cannot be reached it does
// not give up: the claim stays pending under its owner, its lease still
// renewed whenever the store answers (so retries wait on it, or replay once
// it is recorded), and a background recording keeps trying for
// Config.RecordFor. Only a claim lost to another owner is final: that is
// logged as the error it is. The channel is closed when the recording is
// over, one way or the other.
func (e *Engine) record(ctx context.Context, what, key string, write func(context.Context) error, done func()) <-chan struct{} {
	over := make(chan struct{})
	finish := func() {
		if done != nil {
			done()
		}
		close(over)
	}
	cctx, cancel := detach(ctx)
	err := write(cctx)
	cancel()
	switch {
	case err == nil:
		finish()
		return over
	case errors.Is(err, store.ErrLeaseLost):
		e.log.Error("mrtr: "+what+" not recorded: another attempt took over its claim", "key", key, "error", err)
		finish()
		return over
	}
	e.log.Warn("mrtr: "+what+" not recorded yet; retrying in the background", "key", key, "error", err)
	e.recordLater(what, key, write, finish)
	return over
}

// recordLater retries write until it succeeds, the claim is lost, or
// Config.RecordFor has passed, then calls finish. Attempts start 10 ms
// apart and back off to 100 ms only: when the store comes back, the holder
// must record before a retry whose lease ran out meanwhile takes the claim
// over.
func (e *Engine) recordLater(what, key string, write func(context.Context) error, finish func()) {
	e.recording.Add(1)
	go func() {
		defer e.recording.Done()
		defer finish()
		deadline := time.Now().Add(e.cfg.RecordFor)
		wait := 10 * time.Millisecond
		for attempt := 2; ; attempt++ {
			time.Sleep(wait)
			wait = min(2*wait, 100*time.Millisecond)
			err := write(context.Background())
			switch {
			case err == nil:
				e.log.Info("mrtr: "+what+" recorded", "key", key, "attempts", attempt)
				return
			case errors.Is(err, store.ErrLeaseLost):
				e.log.Error("mrtr: "+what+" not recorded: another attempt took over its claim", "key", key, "attempts", attempt)
				return
			case time.Now().After(deadline):
				e.log.Error("mrtr: gave up recording "+what+"; a retry will take the claim over", "key", key, "attempts", attempt, "error", err)
				return
			}
		}
	}()
}

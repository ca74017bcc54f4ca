package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/ticks"
)

// Running one step (Runner): claim it in the record (a lease), run the
// step function while a keeper renews the lease and watches for
// cancellation, and settle the step's end in one Update that checks the
// lease is still this run's.

// ErrStepBusy is returned by RunStep for a step another run holds a live
// lease on.
var ErrStepBusy = errors.New("tasks: step is running elsewhere")

// ErrRunAgain is what a StepFunc's error wraps when the step did nothing
// that counts and should run again rather than end the task (its store
// failed before anything ran, say): the lease is released, RunStep
// returns an error, and the executor runs the step again later.
var ErrRunAgain = errors.New("tasks: the step did not run; run it again")

// errSkip ends a claim that finds nothing to run.
var errSkip = errors.New("tasks: nothing to run")

// recordFor bounds the store calls that record a step's end after the
// step's context ended.
const recordFor = 10 * time.Second

func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), recordFor)
}

// RunStep implements Runner: it runs step of resumable task id and
// records its end (see Runner for what nil and an error mean).
func (m *Manager) RunStep(ctx context.Context, id string, step int) error {
	runID, err := newRunID()
	if err != nil {
		return err
	}
	rec, err := m.claim(ctx, id, step, runID)
	if errors.Is(err, errSkip) || errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		if !errors.Is(err, ErrStepBusy) {
			m.log.Warn("tasks: claiming a step failed; it runs again", "task", id, "step", step, "error", err)
		}
		return fmt.Errorf("tasks: claiming step %d of task %s: %w", step, id, err)
	}
	fn := m.stepFunc(rec.Tool)
	if fn == nil {
		// An instance of another build (a rolling deploy): one that has
		// the tool runs the step.
		fault := &InstanceFault{Cause: fmt.Sprintf("tool %q is not registered on the instance that ran the step", rec.Tool)}
		m.release(ctx, id, runID, fault)
		return fmt.Errorf("tasks: task %s: tool %q is not registered on this instance: %w", id, rec.Tool, fault)
	}
	answers, err := decodeAnswers(rec.Answers)
	if err != nil {
		return m.settle(ctx, rec, runID, StepEnd{}, err, nil)
	}

	// life ends with the task (cancel, deadline), never with ctx: it is
	// what EffectContext gives effects.
	life, endLife := context.WithCancel(context.Background())
	if !rec.Deadline.IsZero() {
		life, endLife = withTimeout(life, endLife, rec.Deadline.Sub(m.now()))
	}
	defer endLife()
	sctx, stopStep := context.WithCancel(context.WithValue(ctx, lifeKey{}, life))
	defer stopStep()
	defer context.AfterFunc(life, stopStep)()
	defer m.trackRun(id, runID, endLife)()

	// The keeper renews the lease until the step function returned, not
	// until ctx ends: when the executor stops the step (a shutdown, River's
	// JobTimeout) an effect in progress goes on on its life context, and
	// its lease must hold for as long as it does, or a cancel would settle
	// the task under it and another run would start beside it.
	kctx, stopKeeper := context.WithCancel(context.WithoutCancel(sctx))
	lost := make(chan struct{})
	keeperDone := make(chan struct{})
	go func() {
		defer close(keeperDone)
		m.keepLease(kctx, rec, runID, endLife, func() { close(lost); stopStep() })
	}()
	end, runErr := m.callStep(sctx, fn, rec, StepInput{TaskID: id, Step: step, Checkpoint: rec.Checkpoint, Answers: answers, Due: rec.due()})
	// Whether the task's life ended while the step ran, read before
	// anything else can end it: a cancel that comes after a step returned
	// its result must not turn it into a cancelled task.
	lifeErr := life.Err()
	stopKeeper()
	stopStep()
	<-keeperDone

	select {
	case <-lost:
		// Another run claimed the step (this one could not renew its
		// lease in time): that run records the step's end.
		m.log.Warn("tasks: a step lost its lease while it ran; its end is left to the run that took it over", "task", id, "step", step)
		return fmt.Errorf("tasks: step %d of task %s lost its lease", step, id)
	default:
	}
	if runErr != nil && lifeErr == nil && (ctx.Err() != nil || errors.Is(runErr, ErrRunAgain)) {
		// The executor stopped the step, or it did nothing and asks to run
		// again (its instance failed it: InstanceFault): it runs again from
		// the same checkpoint, and the lease must not make the next run
		// wait.
		m.release(ctx, id, runID, m.faultOf(ctx, rec, runErr))
		return fmt.Errorf("tasks: step %d of task %s stopped before it ended: %w", step, id, runErr)
	}
	return m.settle(ctx, rec, runID, end, runErr, lifeErr)
}

// faultOf is the InstanceFault runErr carries, logged, or nil (also when
// the executor stopped the step: that is no fault of the instance).
func (m *Manager) faultOf(ctx context.Context, rec *Record, runErr error) *InstanceFault {
	fault, _ := errors.AsType[*InstanceFault](runErr)
	if fault == nil || ctx.Err() != nil {
		return nil //nolint:nilerr // a stopped executor's error is no fault of the instance
	}
	m.log.Warn("tasks: a step failed on this instance; it runs again, here or on another instance",
		"task", rec.ID, "tool", rec.Tool, "step", rec.Step, "instance", m.self, "cause", fault.Cause, "error", fault.Err)
	return fault
}

// claim takes the lease of step in one Update, or says why not: errSkip
// (a stale, duplicate or late step, or one it settled at once: cancelled,
// past its deadline), ErrStepBusy.
func (m *Manager) claim(ctx context.Context, id string, step int, runID string) (*Record, error) {
	var ended bool
	rec, err := m.store.Update(ctx, id, func(r *Record) error {
		ended = false
		now := m.now()
		switch {
		case r.Step != step || r.Status != StatusWorking || r.Waiting:
			return errSkip // a waiting step runs after Resume
		case r.leaseLive(now):
			return ErrStepBusy
		case r.CancelRequested:
			r.settle(StatusCancelled, now)
		case !r.Deadline.IsZero() && !now.Before(r.Deadline):
			r.settle(StatusFailed, now)
			r.Error = &WireError{Code: codeInternalError, Message: "task timed out"}
		default:
			r.Lease = &Lease{Runner: runID, Until: now.Add(m.cfg.StepLease)}
			return nil
		}
		ended = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ended {
		m.tel.ended(ctx, rec)
		return nil, errSkip
	}
	m.tel.transition(ctx, rec, "step")
	return rec, nil
}

// AbandonStep implements Abandoner: the executor gave up on step of task
// id (reason is the last attempt's error, logged). The task fails with
// -32603 "the task could not be run", followed by the Cause of the
// InstanceFault that reason wraps, or else of the last one the record kept
// (never the rest of reason, which may name hosts or users), unless it
// moved on, ended, or another run holds the step (then nothing changes).
func (m *Manager) AbandonStep(ctx context.Context, id string, step int, reason error) error {
	rec, err := m.store.Update(ctx, id, func(r *Record) error {
		now := m.now()
		if r.Step != step || r.Status != StatusWorking || r.leaseLive(now) {
			return errSkip
		}
		fault := r.Fault
		r.settle(StatusFailed, now)
		r.Error = &WireError{Code: codeInternalError, Message: abandonMessage(reason, fault)}
		return nil
	})
	if errors.Is(err, errSkip) || errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tasks: abandoning step %d of task %s: %w", step, id, err)
	}
	m.log.Error("tasks: a step was given up; the task failed", "task", id, "tool", rec.Tool, "step", step, "message", rec.Error.Message, "error", reason)
	m.tel.ended(ctx, rec)
	return nil
}

// keepLease renews the lease of a running step every renewal interval
// until ctx ends, and ends the task's life when tasks/cancel was asked on
// any instance. If the lease was taken by another run (this one failed to
// renew it in time) or the record is gone, it calls lost and returns.
func (m *Manager) keepLease(ctx context.Context, rec *Record, runID string, endLife, lost func()) {
	every := min(rec.PollInterval, m.cfg.StepLease/3)
	ticks.Every(ctx, every, func() bool {
		var cancelled, taken bool
		_, err := m.store.Update(ctx, rec.ID, func(r *Record) error {
			cancelled, taken = r.CancelRequested, false
			if r.Step != rec.Step || r.Lease == nil || r.Lease.Runner != runID {
				taken = true
				return errSkip
			}
			r.Lease.Until = m.now().Add(m.cfg.StepLease)
			return nil
		})
		switch {
		case taken || errors.Is(err, ErrNotFound):
			if cancelled {
				endLife() // the run that took the step over may be gone too
			}
			lost()
			return false
		case err != nil && ctx.Err() == nil:
			m.log.Warn("tasks: renewing the lease of a running step failed", "task", rec.ID, "step", rec.Step, "error", err)
		}
		if cancelled {
			endLife()
		}
		return true
	})
}

// callStep runs fn, turning a panic into an error.
func (m *Manager) callStep(ctx context.Context, fn StepFunc, rec *Record, in StepInput) (end StepEnd, err error) {
	defer func() {
		if p := recover(); p != nil {
			m.log.Error("tasks: step panicked", "task", rec.ID, "tool", rec.Tool, "step", in.Step, "panic", p, "stack", string(debug.Stack()))
			end, err = StepEnd{}, &jsonrpc.Error{Code: codeInternalError, Message: "internal error"}
		}
	}()
	return fn(ctx, in)
}

// settle records the end of a step in one Update, if the step is still
// this run's. lifeErr is why the task's life ended while the step ran (a
// cancel, the deadline), nil if it did not or the step never ran.
func (m *Manager) settle(ctx context.Context, rec *Record, runID string, end StepEnd, runErr, lifeErr error) error {
	pending, result, runErr := encodeEnd(end, runErr)
	// cut: the task's life ended (cancel, deadline) while the step ran, so
	// what it returned may only be the cut's consequence.
	cut := lifeErr != nil
	timedOut := errors.Is(lifeErr, context.DeadlineExceeded)
	sctx, cancel := detached(ctx)
	defer cancel()
	var what string
	done, err := m.store.Update(sctx, rec.ID, func(r *Record) error {
		if r.Step != rec.Step || r.Lease == nil || r.Lease.Runner != runID {
			return errSkip // another run claimed the step
		}
		what = r.end(end, pending, result, runErr, cut, timedOut, m.now())
		return nil
	})
	switch {
	case errors.Is(err, errSkip) || errors.Is(err, ErrNotFound):
		return nil
	case err != nil:
		m.log.Error("tasks: recording the end of a step failed; it runs again", "task", rec.ID, "step", rec.Step, "error", err)
		return fmt.Errorf("tasks: recording the end of step %d of task %s: %w", rec.Step, rec.ID, err)
	case what == "ask" || what == "wait":
		m.tel.transition(sctx, done, what)
	case what == "resume":
		m.resumed(sctx, done)
	default:
		m.tel.ended(sctx, done)
	}
	return nil
}

// resumed enqueues the step of a task that a Resume reached while the
// step before it ran: the wait it ended with is already over.
func (m *Manager) resumed(ctx context.Context, rec *Record) {
	if err := m.cfg.Executor.Enqueue(ctx, rec.ID, rec.Step); err != nil {
		// Wait after all: the caller of Resume tries again (ErrNotWaiting).
		m.log.Warn("tasks: enqueueing a resumed step failed; it waits for the next Resume", "task", rec.ID, "step", rec.Step, "error", err)
		_, _ = m.store.Update(ctx, rec.ID, func(r *Record) error {
			if r.Step != rec.Step || r.Status != StatusWorking || r.Lease != nil {
				return errSkip
			}
			r.Waiting = true
			return nil
		})
	}
}

// release gives up the lease of a step that did not end, so that the next
// run need not wait for it to run out, and records fault (when the run
// failed on this instance), so that another instance takes the step over.
func (m *Manager) release(ctx context.Context, id, runID string, fault *InstanceFault) {
	sctx, cancel := detached(ctx)
	defer cancel()
	rec, err := m.store.Update(sctx, id, func(r *Record) error {
		if r.Lease == nil || r.Lease.Runner != runID {
			return errSkip
		}
		// Touched, so that a record waiting for its next run is kept for
		// its TTL from now, not from its last step.
		r.Lease, r.UpdatedAt = nil, m.now()
		if fault != nil {
			runs := 1
			if r.Fault != nil {
				runs = r.Fault.Runs + 1
			}
			r.Fault = &StepFault{Instance: m.self, Cause: fault.Cause, Runs: runs}
		}
		return nil
	})
	switch {
	case err == nil && fault != nil:
		m.tel.transition(sctx, rec, "fault")
	case err != nil && !errors.Is(err, errSkip) && !errors.Is(err, ErrNotFound):
		m.log.Warn("tasks: releasing the lease of a stopped step failed; the next run waits for it to run out", "task", id, "error", err)
	}
}

// trackRun lets tasks/cancel on this instance end the run at once; the
// returned func forgets it.
func (m *Manager) trackRun(id, runID string, endLife context.CancelFunc) func() {
	m.mu.Lock()
	if m.runs[id] == nil {
		m.runs[id] = map[string]context.CancelFunc{}
	}
	m.runs[id][runID] = endLife
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.runs[id], runID)
		if len(m.runs[id]) == 0 {
			delete(m.runs, id)
		}
		m.mu.Unlock()
	}
}

// askedRequests checks an ask (of a step's end or of Run.Ask) and turns it
// into the record's Pending.
func askedRequests(reqs mcp.InputRequestMap) (map[string]json.RawMessage, error) {
	if len(reqs) == 0 || len(reqs) > maxInputRequestsPerRound {
		return nil, fmt.Errorf("tasks: an ask wants 1 to %d input requests, got %d", maxInputRequestsPerRound, len(reqs))
	}
	b, err := json.Marshal(reqs)
	if err != nil {
		return nil, err
	}
	var pending map[string]json.RawMessage
	if err := json.Unmarshal(b, &pending); err != nil {
		return nil, err
	}
	return pending, nil
}

func decodeAnswers(raw map[string]json.RawMessage) (mcp.InputResponseMap, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	out := make(mcp.InputResponseMap, len(raw))
	for key, r := range raw {
		v, err := decodeAnswer(key, r)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	return out, nil
}

func newRunID() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// lifeKey carries, in a step's context, the context that ends with the
// task (cancel, deadline) but not with the step.
type lifeKey struct{}

// EffectContext is the context an effect inside a step should run on. It
// carries ctx's values and is ended by tasks/cancel and by the task's
// deadline, but not by the executor stopping the step: an effect cut off
// half-way is worse than one that finishes, and the step runs again
// anyway (the effect's own record then decides whether it replays).
// Outside a step it is context.WithoutCancel(ctx).
func EffectContext(ctx context.Context) context.Context {
	life, _ := ctx.Value(lifeKey{}).(context.Context)
	if life == nil {
		return context.WithoutCancel(ctx)
	}
	return effectContext{values: context.WithoutCancel(ctx), life: life}
}

// effectContext has the values of one context and the lifetime of another.
type effectContext struct {
	values context.Context
	life   context.Context
}

func (c effectContext) Deadline() (time.Time, bool) { return c.life.Deadline() }
func (c effectContext) Done() <-chan struct{}       { return c.life.Done() }
func (c effectContext) Err() error                  { return c.life.Err() }
func (c effectContext) Value(key any) any           { return c.values.Value(key) }

package tasks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hashPrincipal is what a new task stores in place of its principal: an
// HMAC under the first principal key.
func (m *Manager) hashPrincipal(p string) string {
	return principalHash(m.cfg.PrincipalKeys[0], p)
}

func principalHash(key []byte, p string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(p))
	return hex.EncodeToString(mac.Sum(nil))
}

// owns reports whether principal created rec: its hash under any of the
// principal keys (a task created before a rotation) is the stored one.
func (m *Manager) owns(rec *Record, principal string) bool {
	owned := 0
	for _, k := range m.cfg.PrincipalKeys {
		owned |= subtle.ConstantTimeCompare([]byte(rec.Principal), []byte(principalHash(k, principal)))
	}
	return owned == 1
}

// lookup returns the record of id if the caller's principal owns it.
func (m *Manager) lookup(ctx context.Context, id string) (*Record, error) {
	principal, err := m.principal(ctx)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, &jsonrpc.Error{Code: codeInvalidParams, Message: "taskId is required"}
	}
	rec, err := m.store.Get(ctx, id)
	if errors.Is(err, ErrNotFound) || err == nil && !m.owns(rec, principal) {
		return nil, unknownTask()
	}
	if err != nil {
		m.log.ErrorContext(ctx, "tasks: reading a task failed", "error", err)
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task store unavailable"}
	}
	return rec, nil
}

func unknownTask() error {
	return &jsonrpc.Error{Code: codeInvalidParams, Message: "unknown taskId"}
}

func (m *Manager) principal(ctx context.Context) (string, error) {
	extra, _ := ctx.Value(extraKey{}).(*mcp.RequestExtra)
	p, err := m.cfg.Authenticate(ctx, extra)
	if err != nil {
		return "", &jsonrpc.Error{Code: codeInvalidParams, Message: "not authenticated"}
	}
	return p, nil
}

func (m *Manager) get(ctx context.Context, id string) (*DetailedTask, error) {
	rec, err := m.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	rec = m.pastDeadline(ctx, rec)
	m.resumeIfStranded(ctx, rec)
	return detailed(rec), nil
}

// pastDeadline fails a resumable task that waits for its answers past its
// deadline (the spec's timeout counts from its creation, waiting
// included): no step runs to notice it. It returns the record as it is
// now.
func (m *Manager) pastDeadline(ctx context.Context, rec *Record) *Record {
	now := m.now()
	if rec.Step == 0 || rec.Deadline.IsZero() || now.Before(rec.Deadline) || rec.Status != StatusInputRequired {
		return rec
	}
	done, err := m.store.Update(ctx, rec.ID, func(r *Record) error {
		if r.Status != StatusInputRequired || now.Before(r.Deadline) {
			return errSkip
		}
		r.settle(StatusFailed, now)
		r.Error = &WireError{Code: codeInternalError, Message: "task timed out"}
		return nil
	})
	if err != nil {
		if fresh, gerr := m.store.Get(ctx, rec.ID); gerr == nil {
			return fresh
		}
		return rec
	}
	m.tel.ended(ctx, done)
	return done
}

// resumeIfStranded enqueues the step of a resumable task that is working
// but that no run has held for a StepLease: one an executor in process
// gave back when its instance stopped (InProcess keeps nothing), or whose
// runner died where no executor rescues it. Clients poll tasks/get, not
// tasks/update, while a task works, so this is where such a task is found.
// A step that is queued or running is not enqueued again (River would
// turn the duplicate away anyway; RunStep is idempotent).
func (m *Manager) resumeIfStranded(ctx context.Context, rec *Record) {
	now := m.now()
	if rec.Step == 0 || rec.Status != StatusWorking || rec.leaseLive(now) {
		return
	}
	if rec.Fault != nil && rec.Fault.Instance != m.self && rec.Lease == nil {
		// Its last run failed on another instance (InstanceFault) and
		// let go of the step: this one tries now, without waiting for the
		// other's backoff.
		m.enqueueStranded(ctx, rec)
		return
	}
	quiet := rec.UpdatedAt
	if rec.Lease != nil && rec.Lease.Until.After(quiet) {
		quiet = rec.Lease.Until
	}
	if now.Sub(quiet) < m.cfg.StepLease {
		return
	}
	m.enqueueStranded(ctx, rec)
}

func (m *Manager) enqueueStranded(ctx context.Context, rec *Record) {
	if err := m.cfg.Executor.Enqueue(context.WithoutCancel(ctx), rec.ID, rec.Step); err != nil {
		m.log.WarnContext(ctx, "tasks: enqueueing a stranded step failed; the next tasks/get tries again", "task", rec.ID, "step", rec.Step, "error", err)
	}
}

func (m *Manager) update(ctx context.Context, p *UpdateParams) (*Ack, error) {
	rec, err := m.lookup(ctx, p.TaskID)
	if err != nil {
		return nil, err
	}
	if rec = m.pastDeadline(ctx, rec); rec.Status.Terminal() {
		return newAck(), nil // answers to an ended task are ignored, as unknown keys are
	}
	// Decode each answer to a pending key now: a malformed answer is a
	// JSON-RPC error, not a task that fails later. Unknown keys (never
	// asked, already answered, or of an earlier round) are ignored.
	var answered int
	rec, err = m.store.Update(ctx, p.TaskID, func(r *Record) error {
		answered = 0
		for key, raw := range p.InputResponses {
			if _, ok := r.Pending[key]; !ok {
				continue
			}
			if _, err := decodeAnswer(key, raw); err != nil {
				return &jsonrpc.Error{Code: codeInvalidParams, Message: err.Error()}
			}
			if r.Answers == nil {
				r.Answers = map[string]json.RawMessage{}
			}
			r.Answers[key] = raw
			delete(r.Pending, key)
			answered++
		}
		if answered > 0 {
			if len(r.Pending) == 0 && r.Status == StatusInputRequired {
				r.Status = StatusWorking
				r.Due = m.now()
			}
			r.UpdatedAt = m.now()
		}
		return nil
	})
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, err
		}
		if errors.Is(err, ErrNotFound) {
			return nil, unknownTask()
		}
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task store unavailable"}
	}
	if answered > 0 {
		m.tel.transition(ctx, rec, "update")
		m.wake(p.TaskID)
	}
	// A resumable task that is working but not running (its answers just
	// completed, or an earlier enqueue failed, or its runner died) gets
	// its step enqueued: so a client's retry of tasks/update recovers it.
	if rec.Step > 0 && rec.Status == StatusWorking && !rec.leaseLive(m.now()) {
		if err := m.cfg.Executor.Enqueue(context.WithoutCancel(ctx), rec.ID, rec.Step); err != nil {
			m.log.ErrorContext(ctx, "tasks: enqueueing a step failed", "task", rec.ID, "step", rec.Step, "error", err)
			return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task executor unavailable; retry tasks/update"}
		}
	}
	return newAck(), nil
}

func (m *Manager) cancel(ctx context.Context, id string) (*Ack, error) {
	rec, err := m.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	// Idempotent; but a retried cancel of a task whose runner died after
	// the first one (its lease ran out) settles it now.
	if rec.Status.Terminal() || rec.CancelRequested && rec.leaseLive(m.now()) {
		return newAck(), nil
	}
	var settled bool
	rec, err = m.store.Update(ctx, id, func(r *Record) error {
		settled = false
		if r.Status.Terminal() {
			return nil
		}
		now := m.now()
		r.CancelRequested = true
		r.UpdatedAt = now
		// A resumable task that no step runs (waiting for answers,
		// queued, or its runner's lease ran out) ends now; a running one
		// sees the flag (and a step that starts later does too).
		if r.Step > 0 && (r.Status == StatusInputRequired || !r.leaseLive(now)) {
			r.settle(StatusCancelled, now)
			settled = true
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return newAck(), nil
	}
	if err != nil {
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task store unavailable"}
	}
	if settled {
		m.tel.ended(ctx, rec)
	}
	m.mu.Lock()
	lt := m.local[id]
	var ends []context.CancelFunc
	for _, end := range m.runs[id] {
		ends = append(ends, end)
	}
	m.mu.Unlock()
	if lt != nil {
		lt.cancel()
	}
	for _, end := range ends {
		end()
	}
	return newAck(), nil
}

func (m *Manager) wake(id string) {
	m.mu.Lock()
	lt := m.local[id]
	m.mu.Unlock()
	if lt == nil {
		return
	}
	select {
	case lt.wake <- struct{}{}:
	default:
	}
}

// decodeAnswer checks that raw is an input response go-sdk can read.
func decodeAnswer(key string, raw json.RawMessage) (mcp.InputResponse, error) {
	b, err := json.Marshal(map[string]json.RawMessage{key: raw})
	if err != nil {
		return nil, err
	}
	var m mcp.InputResponseMap
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("inputResponses[%q]: not a valid input response", key)
	}
	return m[key], nil
}

package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/ticks"
)

// RunFunc is the long-running part of a task tool. It runs detached from
// the request that started it, with a context that ends on tasks/cancel
// (the task is then cancelled), on the tool's Timeout, or when the
// Manager closes. Its result is the task's: a result with IsError is a
// completed task carrying a tool error; an error (or a panic) is a failed
// task carrying a protocol error (a *jsonrpc.Error keeps its code).
type RunFunc func(ctx context.Context, r *Run) (*mcp.CallToolResult, error)

// ErrNotNegotiated is returned by Run.Ask in a tool that runs
// synchronously because the client did not declare the extension: the
// task's own input path does not exist then.
var ErrNotNegotiated = errors.New("tasks: the client did not declare the tasks extension; a synchronous run cannot ask through the task")

// Run is one execution of a task.
type Run struct {
	m  *Manager
	id string // "" when synchronous
	lt *localTask
}

// ID is the task id ("" in a synchronous run).
func (r *Run) ID() string { return r.id }

// Start hands the rest of a task tool's call to a task: called from the
// handler of a tool registered with Manager.AddTool, it creates the task
// (durably: the CreateTaskResult is sent only once the store holds it)
// and runs fn detached; the round is answered with the CreateTaskResult
// (the result Start returns is a placeholder the middleware replaces). A
// client that did not declare the extension, calling a tool whose support
// is Optional, gets fn's result synchronously instead.
func Start(ctx context.Context, fn RunFunc) (*mcp.CallToolResult, error) {
	slot, _ := ctx.Value(startKey{}).(*startSlot)
	if slot == nil {
		return nil, errors.New("tasks.Start: not in a round of a task tool (register it with Manager.AddTool)")
	}
	if slot.created != nil {
		return nil, errors.New("tasks.Start: called twice in one round")
	}
	m := slot.m
	if !slot.negotiated {
		return m.runSync(ctx, slot, fn)
	}
	rec, err := m.newRecord(slot)
	if err != nil {
		return nil, err
	}
	id := rec.ID
	if err := m.store.Create(ctx, rec); err != nil {
		m.log.ErrorContext(ctx, "tasks: creating a task failed", "tool", slot.tool, "error", err)
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task store unavailable"}
	}
	m.tel.created(ctx, rec)
	runCtx, cancel := context.WithCancel(m.base)
	if t := slot.entry.opts.Timeout; t > 0 {
		runCtx, cancel = withTimeout(runCtx, cancel, t)
	}
	lt := &localTask{cancel: cancel, wake: make(chan struct{}, 1)}
	m.mu.Lock()
	m.local[id] = lt
	m.wg.Add(1)
	m.mu.Unlock()
	go m.execute(runCtx, rec, lt, fn)
	slot.created = &CreateTaskResult{ResultType: resultTypeTask, Task: taskOf(rec)}
	return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
}

// newRecord is the record of a new task of slot's tool, working.
func (m *Manager) newRecord(slot *startSlot) (*Record, error) {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "server shutting down"}
	}
	id, err := newTaskID()
	if err != nil {
		return nil, err
	}
	ttl, poll := m.cfg.TTL, m.cfg.PollInterval
	if slot.entry.opts.TTL > 0 {
		ttl = slot.entry.opts.TTL
	}
	if slot.entry.opts.PollInterval > 0 {
		poll = slot.entry.opts.PollInterval
	}
	now := m.now()
	return &Record{
		ID: id, Tool: slot.tool, Principal: m.hashPrincipal(slot.principal), Status: StatusWorking,
		CreatedAt: now, UpdatedAt: now, TTL: ttl, PollInterval: poll, Owner: m.cfg.Instance,
	}, nil
}

func withTimeout(ctx context.Context, cancel context.CancelFunc, d time.Duration) (context.Context, context.CancelFunc) {
	tctx, tcancel := context.WithTimeout(ctx, d)
	return tctx, func() { tcancel(); cancel() }
}

// runSync runs fn in the request, for a client without the extension.
func (m *Manager) runSync(ctx context.Context, slot *startSlot, fn RunFunc) (res *mcp.CallToolResult, err error) {
	if t := slot.entry.opts.Timeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	defer func() {
		if p := recover(); p != nil {
			m.log.ErrorContext(ctx, "tasks: tool panicked", "tool", slot.tool, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, &jsonrpc.Error{Code: codeInternalError, Message: "internal error"}
		}
	}()
	res, err = fn(ctx, &Run{m: m})
	if err != nil {
		// The error a task would fail with, as the JSON-RPC error of the call.
		w := wireError(err)
		return nil, &jsonrpc.Error{Code: w.Code, Message: w.Message, Data: w.Data}
	}
	return res, nil
}

// execute runs a task to its end and records it.
func (m *Manager) execute(ctx context.Context, rec *Record, lt *localTask, fn RunFunc) {
	defer m.wg.Done()
	defer func() {
		lt.cancel()
		m.mu.Lock()
		delete(m.local, rec.ID)
		m.mu.Unlock()
	}()
	// Cancellation requested on another instance reaches this one
	// through the store.
	go m.watchCancel(ctx, rec.ID, rec.PollInterval, lt)

	res, err := m.call(ctx, rec, lt, fn)
	final := func(r *Record) error {
		if r.Status.Terminal() {
			return nil
		}
		r.UpdatedAt = m.now()
		r.Pending, r.Answers = nil, nil
		switch {
		case r.CancelRequested && (err != nil || ctx.Err() != nil):
			r.Status = StatusCancelled
		case err != nil && m.base.Err() != nil:
			r.Status = StatusFailed
			r.Error = &WireError{Code: codeInternalError, Message: "server shutting down"}
		case err != nil:
			r.Status = StatusFailed
			r.Error = wireError(err)
		default:
			b, merr := json.Marshal(res)
			if merr != nil {
				r.Status = StatusFailed
				r.Error = &WireError{Code: codeInternalError, Message: "result not serialisable"}
				break
			}
			r.Status = StatusCompleted
			r.Result = b
		}
		return nil
	}
	// Record the end even when ctx is done (shutdown): detached, bounded.
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done, uerr := m.store.Update(sctx, rec.ID, final)
	if uerr != nil {
		m.log.Error("tasks: recording the end of a task failed", "task", rec.ID, "tool", rec.Tool, "error", uerr)
		return
	}
	m.tel.ended(sctx, done)
}

func (m *Manager) call(ctx context.Context, rec *Record, lt *localTask, fn RunFunc) (res *mcp.CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			m.log.Error("tasks: task panicked", "task", rec.ID, "tool", rec.Tool, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, &jsonrpc.Error{Code: codeInternalError, Message: "internal error"}
		}
	}()
	res, err = fn(ctx, &Run{m: m, id: rec.ID, lt: lt})
	if err == nil && res == nil {
		err = errors.New("tool returned no result")
	}
	return res, err
}

func wireError(err error) *WireError {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return &WireError{Code: je.Code, Message: je.Message, Data: je.Data}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &WireError{Code: codeInternalError, Message: "task timed out"}
	}
	return &WireError{Code: codeInternalError, Message: err.Error()}
}

func (m *Manager) watchCancel(ctx context.Context, id string, every time.Duration, lt *localTask) {
	ticks.Every(ctx, every, func() bool {
		rec, err := m.store.Get(ctx, id)
		if err == nil && rec.CancelRequested || errors.Is(err, ErrNotFound) {
			lt.cancel()
			return false
		}
		return true
	})
}

// Ask asks the client for input through the task: the task turns
// input_required with reqs as its inputRequests (on tasks/get) until
// tasks/update answered every key (a client may answer them one at a
// time), then it is working again and Ask returns the answers. Keys are
// unique for the task's lifetime: a key asked before is ErrKeyReused.
// Ask returns ctx's error if the task is cancelled while it waits, and
// ErrNotNegotiated in a synchronous run.
func (r *Run) Ask(ctx context.Context, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	if r.id == "" {
		return nil, ErrNotNegotiated
	}
	pending, err := askedRequests(reqs)
	if err != nil {
		return nil, err
	}
	m := r.m
	rec, err := m.store.Update(ctx, r.id, func(t *Record) error {
		for key := range pending {
			if slices.Contains(t.UsedKeys, key) {
				return fmt.Errorf("%w: %q", ErrKeyReused, key)
			}
		}
		t.UsedKeys = slices.AppendSeq(t.UsedKeys, maps.Keys(pending))
		slices.Sort(t.UsedKeys)
		t.Pending, t.Answers = pending, nil
		t.Status = StatusInputRequired
		t.UpdatedAt = m.now()
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.tel.transition(ctx, rec, "ask")
	tick := time.NewTicker(rec.PollInterval)
	defer tick.Stop()
	for {
		rec, err := m.store.Get(ctx, r.id)
		if err != nil {
			return nil, err
		}
		if len(rec.Pending) == 0 {
			out := make(mcp.InputResponseMap, len(rec.Answers))
			for key, raw := range rec.Answers {
				if _, asked := pending[key]; !asked {
					continue
				}
				v, err := decodeAnswer(key, raw)
				if err != nil {
					return nil, err
				}
				out[key] = v
			}
			if _, err := m.store.Update(ctx, r.id, func(t *Record) error {
				t.Answers = nil
				if t.Status == StatusInputRequired {
					t.Status = StatusWorking
				}
				return nil
			}); err != nil {
				return nil, err
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-r.lt.wake:
		case <-tick.C:
		}
	}
}

// SetStatusMessage sets the statusMessage tasks/get shows (progress for
// people); no-op in a synchronous run.
func (r *Run) SetStatusMessage(ctx context.Context, msg string) error {
	if r.id == "" {
		return nil
	}
	_, err := r.m.store.Update(ctx, r.id, func(t *Record) error {
		t.StatusMessage = msg
		t.UpdatedAt = r.m.now()
		return nil
	})
	return err
}

// Negotiated reports whether ctx is a round of a task tool whose client
// declared the extension on protocol 2026-07-28 or later: Start would
// create a task.
func Negotiated(ctx context.Context) bool {
	slot, _ := ctx.Value(startKey{}).(*startSlot)
	return slot != nil && slot.negotiated
}

package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resumable tasks. A task of Start runs in one goroutine of the instance
// that created it, and dies with it. A resumable task is a sequence of
// steps between checkpoints kept in its record (see Executor): a step runs
// the tool from the last checkpoint until the task ends or must ask the
// client, and then returns; nothing runs and no worker is held while the
// task waits for its answers. Any instance that shares the Store, runs an
// Executor on the same queue and registered the tool runs any step.

// StepFunc runs one step of a resumable task. ctx ends when the task is
// cancelled (tasks/cancel, on any instance), at its deadline
// (ToolOptions.Timeout after its creation) or when the executor stops the
// step (shutdown, job timeout); effects should run on EffectContext(ctx),
// which the last of these does not end.
//
// An error (or a panic) fails the task with a protocol error (a
// *jsonrpc.Error keeps its code), unless the executor ended ctx, or the
// error is an InstanceFault or wraps ErrRunAgain: then the step runs again
// later, from the same checkpoint, on this instance or another. An error
// that belongs to the instance rather than to the request (its clock, its
// keys, its store) must be an InstanceFault, or the task fails for a
// reason another instance would not have had. So a step must be safe to run again: what it did before it was
// stopped is done again, or replayed by its own records (mrtr's effect
// claims).
type StepFunc func(ctx context.Context, in StepInput) (StepEnd, error)

// StepInput is what a step resumes from.
type StepInput struct {
	TaskID string
	// Step counts from 1 (the step StartResumable enqueues).
	Step int
	// Checkpoint is the one the previous step ended with (StartResumable's
	// for step 1).
	Checkpoint []byte
	// Answers are the client's answers to the previous step's Ask, by the
	// keys asked; nil for step 1.
	Answers mcp.InputResponseMap
	// Due is when the step became due (Record.Due): the task's creation
	// for step 1, the arrival of the last answer for a later one, on the
	// clock of the instance that recorded it. Whatever expired after Due
	// expired while the step waited to run, not while the client did.
	Due time.Time
}

// StepEnd is how a step ends: with the task's Result; with the input
// requests the task waits for (Ask) and the Checkpoint the next step
// resumes from once tasks/update answered every one of them; or waiting
// for something outside the protocol (Wait: an approval a person gives
// elsewhere), the next step resuming from Checkpoint once Manager.Resume
// is called for the task. Exactly one of Result, Ask and Wait is set.
type StepEnd struct {
	// Result completes the task (a result with IsError completes it
	// carrying a tool error).
	Result *mcp.CallToolResult
	// Ask are the input requests, by key; keys are unique for the task's
	// lifetime (a key asked before fails the task with ErrKeyReused).
	Ask mcp.InputRequestMap
	// Wait is the status message of a task that waits, working, for
	// Resume ("waiting for approval by …").
	Wait       string
	Checkpoint []byte
}

// AddResumableTool registers a resumable task tool on s (Install first):
// the handler runs every tools/call round as usual and calls
// StartResumable when the long-running part begins; step runs the task's
// steps. The step function is registered by tool name, for every server of
// the Manager: every instance must register the same tools, since any of
// them may run any step.
func (m *Manager) AddResumableTool(s *mcp.Server, t *mcp.Tool, support Support, opts ToolOptions, h ToolHandler, step StepFunc) {
	if step == nil {
		panic(fmt.Sprintf("tasks.AddResumableTool: %s: step is nil", t.Name))
	}
	m.mu.Lock()
	m.steps[t.Name] = step
	m.mu.Unlock()
	m.AddTool(s, t, support, opts, h)
}

func (m *Manager) stepFunc(tool string) StepFunc {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.steps[tool]
}

// StartResumable hands the rest of a resumable tool's call to a task:
// called from the handler of a tool registered with AddResumableTool, in a
// round whose client declared the extension (Negotiated), it creates the
// task's record (working, at step 1, with the checkpoint checkpoint
// returns for the new task's id) and enqueues step 1; the round is
// answered with the CreateTaskResult (the result StartResumable returns
// is a placeholder the middleware replaces). If the executor refuses the
// step the task is recorded failed and the call gets -32603.
func StartResumable(ctx context.Context, checkpoint func(taskID string) ([]byte, error)) (*mcp.CallToolResult, error) {
	slot, _ := ctx.Value(startKey{}).(*startSlot)
	if slot == nil || slot.m.stepFunc(slot.tool) == nil {
		return nil, errors.New("tasks.StartResumable: not in a round of a resumable task tool (register it with Manager.AddResumableTool)")
	}
	if slot.created != nil {
		return nil, errors.New("tasks.StartResumable: a task was already started in this round")
	}
	if !slot.negotiated {
		return nil, fmt.Errorf("tasks.StartResumable: %w", ErrNotNegotiated)
	}
	m := slot.m
	rec, err := m.newRecord(slot)
	if err != nil {
		return nil, err
	}
	if rec.Checkpoint, err = checkpoint(rec.ID); err != nil {
		return nil, fmt.Errorf("tasks.StartResumable: %s: building the checkpoint: %w", slot.tool, err)
	}
	rec.Step, rec.Due = 1, rec.CreatedAt
	if t := slot.entry.opts.Timeout; t > 0 {
		rec.Deadline = rec.CreatedAt.Add(t)
	}
	if err := m.store.Create(ctx, rec); err != nil {
		m.log.ErrorContext(ctx, "tasks: creating a task failed", "tool", slot.tool, "error", err)
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task store unavailable"}
	}
	m.tel.created(ctx, rec)
	// The step must be enqueued even if the client hangs up now: the
	// record exists, and a task nobody runs would stay working.
	if err := m.cfg.Executor.Enqueue(context.WithoutCancel(ctx), rec.ID, 1); err != nil {
		m.log.ErrorContext(ctx, "tasks: enqueueing the first step of a task failed", "task", rec.ID, "tool", slot.tool, "error", err)
		m.failUnqueued(ctx, rec.ID)
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task executor unavailable"}
	}
	slot.created = &CreateTaskResult{ResultType: resultTypeTask, Task: taskOf(rec)}
	return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
}

// failUnqueued settles a task whose first step no executor took. The
// client never learns its id, but a retry with the same operation must
// not find it working.
func (m *Manager) failUnqueued(ctx context.Context, id string) {
	sctx, cancel := detached(ctx)
	defer cancel()
	rec, err := m.store.Update(sctx, id, func(r *Record) error {
		if r.Status.Terminal() || r.Lease != nil {
			return nil // an executor took it after all
		}
		r.settle(StatusFailed, m.now())
		r.Error = &WireError{Code: codeInternalError, Message: "task executor unavailable"}
		return nil
	})
	if err != nil {
		m.log.ErrorContext(ctx, "tasks: recording an unqueued task as failed failed", "task", id, "error", err)
		return
	}
	if rec.Status.Terminal() {
		m.tel.ended(sctx, rec)
	}
}

// ErrNotWaiting is Resume's error for a task whose step is still running:
// the resume is kept (the wait the step ends with is over at once), and
// the caller should call Resume again a little later, in case recording
// that step's end fails to enqueue the next one.
var ErrNotWaiting = errors.New("tasks: the task is not waiting yet")

// Resume ends the wait of a resumable task whose step ended with
// StepEnd.Wait: its next step is enqueued, on any instance. For a task
// whose step is still running it keeps the resume and returns
// ErrNotWaiting; for a task that ended, expired or does not exist it does
// nothing. Calling it twice runs at most one extra step (which waits
// again when nothing changed).
func (m *Manager) Resume(ctx context.Context, id string) error {
	var enqueue, kept bool
	rec, err := m.store.Update(ctx, id, func(r *Record) error {
		enqueue, kept = false, false
		switch {
		case r.Status != StatusWorking || r.Step == 0:
			return errSkip
		case r.Waiting:
			r.Waiting, r.Due, r.StatusMessage, r.UpdatedAt = false, m.now(), "", m.now()
			enqueue = true
		default:
			r.Resumed, kept = true, true
		}
		return nil
	})
	switch {
	case errors.Is(err, errSkip) || errors.Is(err, ErrNotFound):
		return nil
	case err != nil:
		return err
	case kept:
		return ErrNotWaiting
	case !enqueue:
		return nil
	}
	if err := m.cfg.Executor.Enqueue(context.WithoutCancel(ctx), rec.ID, rec.Step); err != nil {
		_, _ = m.store.Update(context.WithoutCancel(ctx), id, func(r *Record) error {
			if r.Step != rec.Step || r.Status != StatusWorking || r.Lease != nil {
				return errSkip
			}
			r.Waiting = true
			return nil
		})
		return fmt.Errorf("tasks: enqueueing step %d of task %s: %w", rec.Step, id, err)
	}
	m.tel.transition(ctx, rec, "resume")
	return nil
}

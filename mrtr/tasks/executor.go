package tasks

import "context"

// Durable execution. A resumable task (Manager.AddResumableTool) is a
// sequence of steps between checkpoints kept in the task's record: step 1
// starts when the task is created, and each later step when tasks/update
// has answered every input request of the step before. A step is named by
// the task id and its number, and it is all an executor needs to know: the
// record holds the rest, so any instance that shares the Store can run any
// step, and an instance that dies mid-step loses nothing but the step's
// progress.
//
// An Executor schedules and runs steps; a Runner (the Manager) runs one.
// InProcess runs steps in goroutines of the instance that enqueued them
// (no rescue when it dies); package rivertasks runs them as River jobs on
// PostgreSQL or SQLite, so that a step whose instance died is rescued and
// run again elsewhere.

// Runner runs one step of a resumable task. *Manager implements it.
type Runner interface {
	// RunStep runs step of task taskID if the task's record still waits
	// for that step, and records its end. A duplicate, late or stale step
	// (the record has moved on, the task ended or expired) does nothing
	// and returns nil. A step another instance is running (its lease is
	// live) is not run either, but that is an error: the other run may be
	// on an instance that just died, and this one must come back later.
	//
	// nil means the step is settled: it must not be run again. An error
	// means it was not (the store failed, or ctx ended before the step
	// could record its end, as at a shutdown): the executor runs it again
	// later, on this instance or another. RunStep is safe to call again
	// for the same step at any time; what a repeated step does to the
	// effects it ran is decided by their claims (at least once, replayed
	// once their outcome is recorded).
	RunStep(ctx context.Context, taskID string, step int) error
}

// Executor schedules steps of resumable tasks and runs them, at least once
// each, on some instance that shares the task Store.
type Executor interface {
	// Start begins running the steps enqueued by any instance, calling
	// r.RunStep for each. It is called once, by Manager.
	Start(ctx context.Context, r Runner) error
	// Enqueue schedules step of taskID. It may be called more than once
	// for one step (a retried tasks/update, two instances racing): the
	// executor should run the step once, and must run it at least once
	// unless Enqueue returns an error.
	Enqueue(ctx context.Context, taskID string, step int) error
	// Stop stops taking steps, ends the context of the steps running on
	// this instance (they are run again later, elsewhere if another
	// instance runs an executor on the same queue) and waits for them
	// to return, or for ctx.
	Stop(ctx context.Context) error
}

// Abandoner is implemented by a Runner (*Manager does) whose tasks can be
// told that an executor gave up on one of their steps (it ran out of
// attempts): AbandonStep fails the task, if its record still waits for that
// step and no run holds it, so that a client polling it learns it failed
// instead of seeing it "working" until its TTL. An executor that retries
// without bound need not call it.
type Abandoner interface {
	AbandonStep(ctx context.Context, taskID string, step int, reason error) error
}

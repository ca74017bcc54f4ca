package rivertasks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Executor runs steps of resumable tasks as River jobs. It implements
// tasks.Executor; its methods are safe for concurrent use.
type Executor struct {
	opts    Options
	client  riverClient
	migrate func(context.Context) error

	mu      sync.Mutex // serializes Start and Stop
	started bool
	stopped bool

	// runner is set by Start before River starts working jobs, and only
	// read by jobs.
	runner tasks.Runner
	// stopping is set when Stop begins: a step whose context ends after
	// it was cut off by Stop, not by its timeout.
	stopping atomic.Bool
}

var _ tasks.Executor = (*Executor)(nil)

// riverClient is what the executor uses of a *river.Client, whatever the
// driver's transaction type.
type riverClient interface {
	Start(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// NewPostgres returns an executor whose jobs live in PostgreSQL, reached
// through pool (which needs at least two connections: Start holds one for
// the migrations' advisory lock while River migrates on another). River
// listens for new jobs with LISTEN/NOTIFY, so pool must not go through a
// pooler in transaction mode. The pool must outlive the executor.
func NewPostgres(pool *pgxpool.Pool, opts Options) (*Executor, error) {
	if pool == nil {
		return nil, errors.New("rivertasks: NewPostgres: nil pool")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	driver := riverpgxv5.New(pool)
	return newExecutor(driver, opts, func(ctx context.Context) error {
		return migratePostgres(ctx, pool, driver, opts)
	})
}

// NewSQLite returns an executor whose jobs live in the SQLite database db,
// opened with the modernc.org/sqlite driver as [OpenSQLite] does (one
// connection, busy timeout, immediate transactions). Every process that
// shares the file runs its own executor on its own db. The db must
// outlive the executor.
func NewSQLite(db *sql.DB, opts Options) (*Executor, error) {
	if db == nil {
		return nil, errors.New("rivertasks: NewSQLite: nil db")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.Schema != "" {
		return nil, errSQLiteSchema
	}
	driver := riversqlite.New(db)
	return newExecutor(driver, opts, func(ctx context.Context) error {
		return migrateSQLite(ctx, db, driver, opts)
	})
}

// newExecutor builds the River client of an executor; migrate readies the
// database for it.
func newExecutor[TTx any](driver riverdriver.Driver[TTx], opts Options, migrate func(context.Context) error) (*Executor, error) {
	e := &Executor{opts: opts, migrate: migrate}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &stepWorker{e: e}); err != nil {
		return nil, fmt.Errorf("rivertasks: registering the step worker: %w", err)
	}
	client, err := river.NewClient(driver, &river.Config{
		Queues:               map[string]river.QueueConfig{opts.Queue: {MaxWorkers: opts.Workers}},
		Workers:              workers,
		JobTimeout:           opts.JobTimeout,
		RescueStuckJobsAfter: opts.RescueAfter,
		MaxAttempts:          opts.MaxAttempts,
		RetryPolicy:          retryPolicy{},
		Logger:               opts.Logger,
		Schema:               opts.Schema,
	})
	if err != nil {
		return nil, fmt.Errorf("rivertasks: configuring River: %w", err)
	}
	e.client = client
	return e, nil
}

// Start migrates River's tables (idempotent, safe when several instances
// start at once) and begins working the steps of the queue, calling
// r.RunStep for each. ctx bounds the migrations; the steps run until Stop,
// with ctx's values but not its cancellation.
func (e *Executor) Start(ctx context.Context, r tasks.Runner) error {
	if r == nil {
		return errors.New("rivertasks: Start: nil Runner")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.stopped:
		return errors.New("rivertasks: Start after Stop")
	case e.started:
		return errors.New("rivertasks: Start called twice")
	}
	if err := e.migrate(ctx); err != nil {
		return fmt.Errorf("rivertasks: migrating River's tables: %w", err)
	}
	e.runner = r
	if err := e.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("rivertasks: starting River on queue %q: %w", e.opts.Queue, err)
	}
	e.started = true
	return nil
}

// Enqueue inserts the job of step of taskID, unless a job for that step is
// already waiting, running or completed (then it does nothing). It works
// before Start, once some instance's Start has migrated the tables.
func (e *Executor) Enqueue(ctx context.Context, taskID string, step int) error {
	if taskID == "" {
		return fmt.Errorf("rivertasks: Enqueue step %d: empty task id", step)
	}
	if step < 1 {
		return fmt.Errorf("rivertasks: Enqueue task %q: step %d, want 1 or more", taskID, step)
	}
	_, err := e.client.Insert(ctx, stepArgs{TaskID: taskID, Step: step}, &river.InsertOpts{
		Queue:      e.opts.Queue,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByQueue: true},
	})
	if err != nil {
		return fmt.Errorf("rivertasks: enqueueing step %d of task %q on queue %q: %w", step, taskID, e.opts.Queue, err)
	}
	return nil
}

// Stop stops fetching steps, ends the context of the steps running here
// and waits for them to return, or for ctx (Stop may then be called
// again). The steps it cut off go back to the queue at once, without
// counting as an attempt. Stop before Start does nothing.
func (e *Executor) Stop(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopped = true
	if !e.started {
		return nil
	}
	e.stopping.Store(true)
	if err := e.client.StopAndCancel(ctx); err != nil {
		return fmt.Errorf("rivertasks: stopping River on queue %q: %w", e.opts.Queue, err)
	}
	return nil
}

// stepKind is the River job kind of a step.
const stepKind = "mrtr_task_step"

// stepArgs are a step's job args: all River knows of it.
type stepArgs struct {
	TaskID string `json:"task_id"`
	Step   int    `json:"step"`
}

func (stepArgs) Kind() string { return stepKind }

// stepWorker runs a step's job. River recovers a panic in RunStep and
// treats it as an error.
type stepWorker struct {
	river.WorkerDefaults[stepArgs]
	e *Executor
}

// Work runs the step. nil completes the job; an error has River retry it
// (retryPolicy); a step cut off by Stop is snoozed for 0 s, which puts it
// back in the queue without counting an attempt. (River does so by itself
// for an error that is context.Canceled; a Runner cut off while writing to
// its store may return another.)
func (w *stepWorker) Work(ctx context.Context, job *river.Job[stepArgs]) error {
	id, step := job.Args.TaskID, job.Args.Step
	err := w.e.runner.RunStep(ctx, id, step)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil && w.e.stopping.Load() {
		w.e.opts.Logger.InfoContext(ctx, "rivertasks: step cut off by Stop; back to the queue",
			slog.String("task", id), slog.Int("step", step), slog.String("error", err.Error()))
		return river.JobSnooze(0)
	}
	err = fmt.Errorf("step %d of task %q: %w", step, id, err)
	if job.Attempt >= job.MaxAttempts {
		// River discards the job now: the task must not stay "working".
		if a, ok := w.e.runner.(tasks.Abandoner); ok {
			if aerr := a.AbandonStep(context.WithoutCancel(ctx), id, step, err); aerr != nil {
				w.e.opts.Logger.ErrorContext(ctx, "rivertasks: a discarded step's task could not be failed",
					slog.String("task", id), slog.Int("step", step), slog.String("error", aerr.Error()))
			}
		}
	}
	return err
}

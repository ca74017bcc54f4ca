package tasks

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrExecutorStopped is returned by Enqueue after Stop (or before Start).
var ErrExecutorStopped = errors.New("tasks: executor not running")

// Backoff between runs of a step that returned an error (store down, busy
// elsewhere), doubling from the first to the last.
const (
	retryFirst = 100 * time.Millisecond
	retryMax   = 10 * time.Second
	// maxAttempts bounds the runs of one step (about 16 minutes of
	// retries); then its task is failed through the Runner's AbandonStep,
	// which leaves alone a step another instance still holds.
	maxAttempts = 100
)

// InProcess is an Executor that runs each step in a goroutine of the
// process that enqueued it, retrying a step whose run returned an error
// (with backoff) until it is settled, the executor stops, or it ran
// maxAttempts times (its task then fails: Abandoner). At most one
// run of a given step is under way at once in the process. Nothing
// survives the process: a step it was running when it stopped or died
// runs again only when something enqueues it again (a client's retried
// tasks/update does, on any instance); use package rivertasks for steps
// that are rescued by another instance. The zero value is not usable: use
// NewInProcess.
type InProcess struct {
	mu      sync.Mutex
	r       Runner
	ctx     context.Context
	stop    context.CancelFunc
	running map[stepKey]bool
	wg      sync.WaitGroup
}

type stepKey struct {
	task string
	step int
}

// NewInProcess returns an InProcess executor, to be started by a Manager.
func NewInProcess() *InProcess {
	return &InProcess{running: map[stepKey]bool{}}
}

// Start implements Executor.
func (x *InProcess) Start(ctx context.Context, r Runner) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.r != nil {
		return errors.New("tasks: InProcess executor started twice")
	}
	x.r = r
	x.ctx, x.stop = context.WithCancel(ctx)
	return nil
}

// Enqueue implements Executor. A step already running in this process is
// not started twice: its run retries until it is settled.
func (x *InProcess) Enqueue(_ context.Context, taskID string, step int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ctx == nil || x.ctx.Err() != nil {
		return ErrExecutorStopped
	}
	k := stepKey{taskID, step}
	if x.running[k] {
		return nil
	}
	x.running[k] = true
	x.wg.Add(1)
	go x.run(k)
	return nil
}

func (x *InProcess) run(k stepKey) {
	defer x.wg.Done()
	defer func() {
		x.mu.Lock()
		delete(x.running, k)
		x.mu.Unlock()
	}()
	wait := retryFirst
	for attempt := 1; ; attempt++ {
		err := x.r.RunStep(x.ctx, k.task, k.step)
		if err == nil {
			return
		}
		if attempt == maxAttempts && x.ctx.Err() == nil {
			if a, ok := x.r.(Abandoner); ok {
				_ = a.AbandonStep(context.WithoutCancel(x.ctx), k.task, k.step, err)
			}
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-x.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
	}
}

// Stop implements Executor: the contexts of the running steps end, and
// Stop waits for them to return, or for ctx.
func (x *InProcess) Stop(ctx context.Context) error {
	x.mu.Lock()
	if x.stop != nil {
		x.stop()
	}
	x.mu.Unlock()
	done := make(chan struct{})
	go func() { x.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/headeruser"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// The leases of running steps, when the executor stops a step whose
// effect goes on, and when the runner dies (the review of the durable
// execution found each of these broken).

// idleExecutor is an Executor that runs nothing: the tests call RunStep
// themselves, as an executor on one instance or another would.
type idleExecutor struct{}

func (idleExecutor) Start(context.Context, tasks.Runner) error  { return nil }
func (idleExecutor) Enqueue(context.Context, string, int) error { return nil }
func (idleExecutor) Stop(context.Context) error                 { return nil }

type leaseInstance struct {
	m  *tasks.Manager
	cl *taskstest.Client
}

// newLeaseInstance is one instance on st with a short step lease, whose
// tool "deploy" runs step.
func newLeaseInstance(t *testing.T, st tasks.Store, step tasks.StepFunc) *leaseInstance {
	t.Helper()
	m, cl := serveDeploy(t, tasks.Config{Store: st, Executor: idleExecutor{}, PrincipalSalt: []byte("0123456789abcdef0123456789abcdef"),
		SweepInterval: -1, StepLease: 300 * time.Millisecond, PollInterval: 50 * time.Millisecond,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Authenticate: headeruser.Authenticate}, step)
	cl.Header.Set("X-User", "alice")
	return &leaseInstance{m: m, cl: cl}
}

// serveDeploy is a manager made of cfg, serving over stateless HTTP a
// resumable task tool "deploy" that runs step, and a client of it.
func serveDeploy(t *testing.T, cfg tasks.Config, step tasks.StepFunc) (*tasks.Manager, *taskstest.Client) {
	t.Helper()
	m, err := tasks.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	s := mcp.NewServer(&mcp.Implementation{Name: "lease", Version: "1"}, nil)
	if err := m.Install(s); err != nil {
		t.Fatal(err)
	}
	m.AddResumableTool(s, &mcp.Tool{Name: "deploy", InputSchema: map[string]any{"type": "object"}}, tasks.Required, tasks.ToolOptions{},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.StartResumable(ctx, func(string) ([]byte, error) { return []byte("checkpoint"), nil })
		}, step)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(srv.Close)
	return m, taskstest.NewClient(t, srv.URL)
}

func deployed(context.Context, tasks.StepInput) (tasks.StepEnd, error) {
	return tasks.StepEnd{Result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}}, nil
}

// The executor stops a step (River's JobTimeout, a shutdown) while its
// effect runs on: the effect goes on, and so does the step's lease. A
// tasks/cancel on another instance then only sets the flag, which the
// running step sees: the effect's context ends and the task is
// cancelled, rather than cancelled under an effect that never learns it.
func TestStoppedStepKeepsItsLease(t *testing.T) {
	st := tasks.NewMemoryStore(nil)
	effects := make(chan context.Context, 4)
	step := func(ctx context.Context, in tasks.StepInput) (tasks.StepEnd, error) {
		ectx := tasks.EffectContext(ctx)
		effects <- ectx
		<-ectx.Done() // a long deployment, cut off only by the task's end
		return deployed(ctx, in)
	}
	a, b := newLeaseInstance(t, st, step), newLeaseInstance(t, st, step)
	id := a.cl.Tool("deploy", map[string]any{})["taskId"].(string)
	jobCtx, stopJob := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.m.RunStep(jobCtx, id, 1) }()
	effect := <-effects
	stopJob()
	time.Sleep(600 * time.Millisecond) // twice the step lease
	if rec, err := st.Get(context.Background(), id); err != nil || rec.Lease == nil || !time.Now().Before(rec.Lease.Until) {
		t.Fatalf("the stopped step's lease lapsed while its effect ran: %+v %v", rec, err)
	}
	b.cl.OK(tasks.MethodCancel, map[string]any{"taskId": id})
	select {
	case <-effect.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("tasks/cancel on B never reached the effect running on A")
	}
	if err := <-done; err != nil {
		t.Errorf("A's run of the cancelled step: %v", err)
	}
	if got := b.cl.Until(id, 5*time.Second, tasks.StatusCancelled); got["status"] != string(tasks.StatusCancelled) {
		t.Errorf("task %v, want cancelled", got["status"])
	}
}

// While a stopped step's effect still runs, another run of the step (River
// rescuing a job it takes for stuck) is refused: one run at a time.
func TestStoppedStepIsNotRunTwiceAtOnce(t *testing.T) {
	st := tasks.NewMemoryStore(nil)
	var running, most atomic.Int64
	release := make(chan struct{})
	entered := make(chan struct{}, 4)
	step := func(ctx context.Context, in tasks.StepInput) (tasks.StepEnd, error) {
		n := running.Add(1)
		defer running.Add(-1)
		if n > most.Load() {
			most.Store(n)
		}
		entered <- struct{}{}
		<-release
		return deployed(ctx, in)
	}
	a, b := newLeaseInstance(t, st, step), newLeaseInstance(t, st, step)
	id := a.cl.Tool("deploy", map[string]any{})["taskId"].(string)
	jobCtx, stopJob := context.WithCancel(context.Background())
	doneA := make(chan error, 1)
	go func() { doneA <- a.m.RunStep(jobCtx, id, 1) }()
	<-entered
	stopJob()
	time.Sleep(600 * time.Millisecond)
	if err := b.m.RunStep(context.Background(), id, 1); err == nil {
		t.Error("B's run of the step was settled while A's still ran")
	}
	close(release)
	if err := <-doneA; err != nil {
		t.Errorf("A's run: %v", err)
	}
	if most.Load() != 1 {
		t.Errorf("%d runs of the step at once, want 1", most.Load())
	}
}

// The first tasks/cancel of a running task only sets its flag; if the
// runner then dies, its lease runs out, and a retried tasks/cancel settles
// the task instead of leaving it working.
func TestRetriedCancelAfterTheRunnerDied(t *testing.T) {
	st := tasks.NewMemoryStore(nil)
	a := newLeaseInstance(t, st, deployed)
	id := a.cl.Tool("deploy", map[string]any{})["taskId"].(string)
	// What claim writes for a runner on an instance that then dies.
	if _, err := st.Update(context.Background(), id, func(r *tasks.Record) error {
		r.Lease = &tasks.Lease{Runner: "dead", Until: time.Now().Add(200 * time.Millisecond)}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	a.cl.OK(tasks.MethodCancel, map[string]any{"taskId": id})
	if got := a.cl.Get(id); got["status"] != string(tasks.StatusWorking) {
		t.Fatalf("a cancel of a running task: %v, want working until the runner sees it", got["status"])
	}
	time.Sleep(300 * time.Millisecond) // the lease runs out
	a.cl.OK(tasks.MethodCancel, map[string]any{"taskId": id})
	if got := a.cl.Get(id); got["status"] != string(tasks.StatusCancelled) {
		t.Errorf("the retried cancel left the task %v, want cancelled", got["status"])
	}
}

// A working task whose step no run has held for a StepLease (given back by
// a stopped in-process executor, or its runner dead where nothing rescues
// it) is enqueued again by the tasks/get a polling client sends.
func TestGetResumesAStrandedStep(t *testing.T) {
	st := tasks.NewMemoryStore(nil)
	enq := &countingExecutor{}
	_, cl := serveDeploy(t, tasks.Config{Store: st, Executor: enq, PrincipalSalt: []byte("0123456789abcdef0123456789abcdef"),
		SweepInterval: -1, StepLease: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, deployed)
	id := cl.Tool("deploy", map[string]any{})["taskId"].(string)
	if n := enq.count.Load(); n != 1 {
		t.Fatalf("StartResumable enqueued %d times", n)
	}
	cl.Get(id)
	if n := enq.count.Load(); n != 1 {
		t.Errorf("a tasks/get right after the start enqueued the step again (%d)", n)
	}
	time.Sleep(250 * time.Millisecond) // nothing ran it for a StepLease
	cl.Get(id)
	if n := enq.count.Load(); n != 2 {
		t.Errorf("a tasks/get of a stranded step enqueued it %d times in all, want 2", n)
	}
}

type countingExecutor struct{ count atomic.Int64 }

func (*countingExecutor) Start(context.Context, tasks.Runner) error { return nil }
func (x *countingExecutor) Enqueue(context.Context, string, int) error {
	x.count.Add(1)
	return nil
}
func (*countingExecutor) Stop(context.Context) error { return nil }

// A step whose function says it did nothing (ErrRunAgain: its store
// failed before the round ran) is not settled: the task stays working at
// that step, with no lease, and the next run ends it.
func TestRunAgainLeavesTheStepToTheNextRun(t *testing.T) {
	st := tasks.NewMemoryStore(nil)
	var runs atomic.Int64
	a := newLeaseInstance(t, st, func(ctx context.Context, in tasks.StepInput) (tasks.StepEnd, error) {
		if runs.Add(1) == 1 {
			return tasks.StepEnd{}, fmt.Errorf("deploy: %w: the store is unavailable", tasks.ErrRunAgain)
		}
		return deployed(ctx, in)
	})
	id := a.cl.Tool("deploy", map[string]any{})["taskId"].(string)
	if err := a.m.RunStep(context.Background(), id, 1); !errors.Is(err, tasks.ErrRunAgain) {
		t.Fatalf("RunStep of a step that asks to run again: %v", err)
	}
	if rec, err := st.Get(context.Background(), id); err != nil || rec.Status != tasks.StatusWorking || rec.Step != 1 || rec.Lease != nil {
		t.Fatalf("after the first run: %+v %v, want working at step 1 with no lease", rec, err)
	}
	if err := a.m.RunStep(context.Background(), id, 1); err != nil {
		t.Fatal(err)
	}
	if got := a.cl.Get(id); got["status"] != string(tasks.StatusCompleted) || taskstest.ResultText(got) != "deployed" {
		t.Errorf("after the second run: %v", got)
	}
}

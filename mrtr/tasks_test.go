package mrtr_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/internal/taskpoll"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/taskrecording"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// asTask is a program whose descriptor makes it long-running from state
// start on (what the generator emits for a spec's task block).
type asTask[F any] struct {
	mrtr.Program[F]
	d *mrtrimpl.Descriptor
}

func (p asTask[F]) Descriptor() *mrtrimpl.Descriptor { return p.d }

func withTask[F any](t *testing.T, p mrtr.Program[F], start string, required bool) mrtr.Program[F] {
	d := *p.Descriptor()
	n, _ := d.StateNamed(start)
	if n == 0 {
		t.Fatalf("no state %s", start)
	}
	d.Task = &mrtrimpl.TaskInfo{Required: required, Start: n, PollInterval: 10 * time.Millisecond}
	return asTask[F]{Program: p, d: &d}
}

// taskClient is a stateless 2026-07-28 client of one server; tasksExt says
// whether a request declares the tasks extension.
type taskClient struct {
	t   *testing.T
	url string
}

func (c taskClient) call(method string, params map[string]any, tasksExt bool) (map[string]any, *taskstest.RPCError) {
	c.t.Helper()
	cl := taskstest.NewClient(c.t, c.url)
	cl.NoTasks = !tasksExt
	return cl.Call(method, params)
}

// serveDeploy serves the deploy tool on impl through e, as a task tool
// ("ship") of tm, over HTTP until the test ends, then closes tm.
func serveDeploy(t *testing.T, e *mrtr.Engine, tm *tasks.Manager, impl testprog.DeployHandler) taskClient {
	s := mcp.NewServer(&mcp.Implementation{Name: "tasks-test", Version: "test"}, nil)
	if err := tm.Install(s); err != nil {
		t.Fatal(err)
	}
	mrtr.AddTool(s, e, withTask(t, testprog.NewDeployProgram(impl), "ship", false))
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tm.Close(ctx)
	})
	return taskClient{t: t, url: ts.URL}
}

// A generated workflow declared long-running: its MRTR rounds run on
// tools/call, the round that reaches the start state is answered with a
// CreateTaskResult, and the effect runs inside the task, once, even when
// the client retries that round (a second task replays the effect's
// recorded outcome).
func TestWorkflowAsTask(t *testing.T) {
	clock := mrtrtest.NewClock()
	tm, err := tasks.New(tasks.Config{Logger: quiet, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "tasks-test", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet,
		Store: store.NewMemory(store.Options{Now: clock.Now}), Tasks: tm})
	if err != nil {
		t.Fatal(err)
	}
	impl := &testprog.DeployImpl{}
	c := serveDeploy(t, e, tm, impl)
	args := map[string]any{"env": "staging"}

	first, rerr := c.call("tools/call", map[string]any{"name": "deploy", "arguments": args}, true)
	if rerr != nil || first["resultType"] != "input_required" {
		t.Fatalf("round 1: %v %v", first, rerr)
	}
	if _, ok := first["taskId"]; ok {
		t.Fatal("an MRTR round carries a taskId")
	}
	answer := map[string]any{"pick": map[string]any{"action": "accept", "content": map[string]any{"services": []any{"billing"}}}}
	round2 := map[string]any{"name": "deploy", "arguments": args, "inputResponses": answer, "requestState": first["requestState"]}
	var ids []string
	for range 2 { // the client retries the round
		created, rerr := c.call("tools/call", round2, true)
		if rerr != nil || created["resultType"] != "task" {
			t.Fatalf("round 2: %v %v", created, rerr)
		}
		if _, ok := created["requestState"]; ok {
			t.Fatal("CreateTaskResult carries requestState")
		}
		ids = append(ids, created["taskId"].(string))
	}
	for _, id := range ids {
		deadline := time.Now().Add(5 * time.Second)
		for {
			got, rerr := c.call("tasks/get", map[string]any{"taskId": id}, true)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if got["status"] == "completed" {
				text := got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
				if text != "Deployed billing to staging." {
					t.Errorf("result %v", text)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("task %s: %v", id, got)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if got := impl.Deployments(); len(got) != 1 {
		t.Fatalf("deployed %d times: %v", len(got), got)
	}

	// Without the extension, an optional task tool runs in its rounds.
	plain, rerr := c.call("tools/call", map[string]any{"name": "deploy", "arguments": map[string]any{"env": "production"}}, false)
	if rerr != nil || plain["resultType"] != "input_required" {
		t.Fatalf("plain round 1: %v %v", plain, rerr)
	}
	done, rerr := c.call("tools/call", map[string]any{"name": "deploy", "arguments": map[string]any{"env": "production"}, "inputResponses": answer, "requestState": plain["requestState"]}, false)
	if rerr != nil || done["resultType"] != "complete" || done["isError"] == true {
		t.Fatalf("plain round 2: %v %v", done, rerr)
	}
	if got := impl.Deployments(); len(got) != 2 {
		t.Fatalf("deployments %v", got)
	}
}

// Two instances of one server: their engines share the record store and
// the keys, their task managers the task store.
type taskFleet struct {
	a, b   taskClient
	ma, mb *tasks.Manager
	impl   *slowDeploy
}

// slowDeploy deploys once its context ends or release is closed.
type slowDeploy struct {
	testprog.DeployImpl
	runs    atomic.Int64
	entered chan struct{}
	release chan struct{}
	ended   chan error
}

func (h *slowDeploy) DeployServices(ctx context.Context, f *testprog.DeployFlow) error {
	h.runs.Add(1)
	h.entered <- struct{}{}
	select {
	case <-ctx.Done():
		h.ended <- ctx.Err()
		return ctx.Err()
	case <-h.release:
	}
	h.ended <- nil
	return h.DeployImpl.DeployServices(ctx, f)
}

// brokenStore fails every Update once broken is set: an instance that
// lost its task store.
type brokenStore struct {
	tasks.Store
	broken atomic.Bool
}

func (s *brokenStore) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	if s.broken.Load() {
		return nil, errors.New("task store unreachable")
	}
	return s.Store.Update(ctx, id, fn)
}

func newTaskFleet(t *testing.T, storeA, shared tasks.Store, leaseA time.Duration) *taskFleet {
	return newSealedTaskFleet(t, storeA, shared, leaseA, false)
}

func newSealedTaskFleet(t *testing.T, storeA, shared tasks.Store, leaseA time.Duration, sealed bool) *taskFleet {
	clock := mrtrtest.NewClock()
	codec := mrtrtest.NewCodec(t, clock)
	records := store.NewMemory(store.Options{Now: clock.Now})
	fl := &taskFleet{impl: &slowDeploy{entered: make(chan struct{}, 4), release: make(chan struct{}), ended: make(chan error, 4)}}
	salt := []byte("fleet-salt-0123456789abcdef")
	instance := func(name string, st tasks.Store, lease time.Duration) (taskClient, *tasks.Manager) {
		var sealer tasks.Sealer
		if sealed {
			sealer = mrtr.TaskSealer(codec, "tasks-test")
		}
		tm, err := tasks.New(tasks.Config{Store: st, Instance: name, Logger: quiet, PollInterval: 10 * time.Millisecond, PrincipalSalt: salt, StepLease: lease, Sealer: sealer})
		if err != nil {
			t.Fatal(err)
		}
		e, err := mrtr.NewEngine(mrtr.Config{Audience: "tasks-test", Codec: codec, Logger: quiet, Store: records, Tasks: tm, Instance: name})
		if err != nil {
			t.Fatal(err)
		}
		return serveDeploy(t, e, tm, fl.impl), tm
	}
	fl.a, fl.ma = instance("a", storeA, leaseA)
	fl.b, fl.mb = instance("b", shared, 0)
	return fl
}

// start runs the MRTR round on A and returns the task its second round
// created there.
func (fl *taskFleet) start(t *testing.T) string {
	args := map[string]any{"env": "staging"}
	first, rerr := fl.a.call("tools/call", map[string]any{"name": "deploy", "arguments": args}, true)
	if rerr != nil || first["resultType"] != "input_required" {
		t.Fatalf("round 1: %v %v", first, rerr)
	}
	answer := map[string]any{"pick": map[string]any{"action": "accept", "content": map[string]any{"services": []any{"billing"}}}}
	created, rerr := fl.a.call("tools/call", map[string]any{"name": "deploy", "arguments": args, "inputResponses": answer, "requestState": first["requestState"]}, true)
	if rerr != nil || created["resultType"] != "task" {
		t.Fatalf("round 2: %v %v", created, rerr)
	}
	return created["taskId"].(string)
}

func waitTask(t *testing.T, c taskClient, id, want string) map[string]any {
	t.Helper()
	return taskpoll.Status(t, id, want, 5*time.Second, 10*time.Millisecond, func() map[string]any {
		got, rerr := c.call("tasks/get", map[string]any{"taskId": id}, true)
		if rerr != nil {
			t.Fatal(rerr)
		}
		return got
	})
}

// tasks/cancel on another instance reaches the effect running on A through
// its context (tasks.EffectContext), and the task ends cancelled without
// the workflow going on.
func TestTaskCancelReachesRunningEffect(t *testing.T) {
	shared := tasks.NewMemoryStore(nil)
	fl := newTaskFleet(t, shared, shared, 0)
	id := fl.start(t)
	<-fl.impl.entered
	if _, rerr := fl.b.call("tasks/cancel", map[string]any{"taskId": id}, true); rerr != nil {
		t.Fatal(rerr)
	}
	select {
	case err := <-fl.impl.ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the effect's context ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		close(fl.impl.release)
		t.Fatal("tasks/cancel on B did not reach the effect running on A")
	}
	waitTask(t, fl.a, id, "cancelled")
	if got := fl.impl.Deployments(); len(got) != 0 || fl.impl.runs.Load() != 1 {
		t.Fatalf("runs %d, deployed %v", fl.impl.runs.Load(), got)
	}
}

// A loses its task store right after the effect: its step cannot record
// its end. Once A's lease ran out, a retried tasks/update on B enqueues
// the step there; the step runs again on B and the effect replays its
// recorded outcome instead of running twice.
func TestTaskStepRunsAgainElsewhere(t *testing.T) {
	shared := tasks.NewMemoryStore(nil)
	a := &brokenStore{Store: shared}
	fl := newTaskFleet(t, a, shared, 100*time.Millisecond)
	id := fl.start(t)
	<-fl.impl.entered
	a.broken.Store(true)
	close(fl.impl.release)
	if err := <-fl.impl.ended; err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // A's lease runs out
	if got := waitTask(t, fl.b, id, "working"); got["result"] != nil {
		t.Fatalf("before the rerun: %v", got)
	}
	if _, rerr := fl.b.call("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}}, true); rerr != nil {
		t.Fatal(rerr)
	}
	got := waitTask(t, fl.b, id, "completed")
	if text := got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "Deployed billing to staging." {
		t.Errorf("result %v", text)
	}
	if n, d := fl.impl.runs.Load(), fl.impl.Deployments(); n != 1 || len(d) != 1 {
		t.Fatalf("effect ran %d times, deployed %v", n, d)
	}
}

// With mrtr.TaskSealer, no argument or answer of the workflow reaches the
// task store in clear (the result carries both); without it, they do.
func TestTaskSealerAtRest(t *testing.T) {
	for _, sealed := range []bool{true, false} {
		rec := &taskrecording.Store{Store: tasks.NewMemoryStore(nil)}
		fl := newSealedTaskFleet(t, rec, rec, 0, sealed)
		close(fl.impl.release)
		id := fl.start(t)
		waitTask(t, fl.b, id, "completed")
		var leaked []string
		for _, v := range []string{"staging", "billing"} {
			for _, raw := range rec.Records() {
				if strings.Contains(string(raw), v) || strings.Contains(string(raw), base64.StdEncoding.EncodeToString([]byte(v))) {
					leaked = append(leaked, v)
				}
			}
		}
		if sealed && len(leaked) > 0 {
			t.Errorf("sealed: stored records carry %q", leaked)
		}
		if !sealed && len(leaked) == 0 {
			t.Error("unsealed: no value found in the stored records: the check cannot fail")
		}
	}
	s := mrtr.TaskSealer(mrtrtest.NewCodec(t, mrtrtest.NewClock()), "tasks-test")
	b, err := s.Seal("task-1", time.Minute, []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Open("task-1", b); err != nil || string(got) != "secret" {
		t.Fatalf("Open: %q %v", got, err)
	}
	if _, err := s.Open("task-2", b); err == nil {
		t.Fatal("data sealed for one task opens as another's")
	}
}

// manualExecutor runs nothing by itself: the test runs each step with
// Manager.RunStep, as some instance's executor would.
type manualExecutor struct{}

func (manualExecutor) Start(context.Context, tasks.Runner) error  { return nil }
func (manualExecutor) Enqueue(context.Context, string, int) error { return nil }
func (manualExecutor) Stop(context.Context) error                 { return nil }

// The engine's store fails when a task's step begins its round, before any
// state ran: a client would send that round again, so the step runs again
// (tasks.ErrRunAgain) instead of ending the task with "try again later",
// which nobody could; the next run deploys, once.
func TestTaskStepRunsAgainAfterAStoreFailure(t *testing.T) {
	clock := mrtrtest.NewClock()
	fs := newFaultyStore(store.NewMemory(store.Options{Now: clock.Now}))
	tm, err := tasks.New(tasks.Config{Logger: quiet, Executor: manualExecutor{}, SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tm.Close(context.Background()) })
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "tasks-test", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet, Store: fs, Tasks: tm})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "tasks-test", Version: "test"}, nil)
	if err := tm.Install(s); err != nil {
		t.Fatal(err)
	}
	impl := &slowDeploy{entered: make(chan struct{}, 4), release: make(chan struct{}), ended: make(chan error, 4)}
	close(impl.release)
	mrtr.AddTool(s, e, withTask(t, testprog.NewDeployProgram(impl), "ship", false))
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(ts.Close)
	fl := &taskFleet{a: taskClient{t: t, url: ts.URL}}
	id := fl.start(t)

	fs.down.Store(true)
	if err := tm.RunStep(context.Background(), id, 1); !errors.Is(err, tasks.ErrRunAgain) {
		t.Fatalf("the step whose store failed: %v, want it to run again", err)
	}
	if got := waitTask(t, fl.a, id, "working"); got["status"] != "working" {
		t.Fatalf("the task ended on a store failure: %v", got)
	}
	fs.down.Store(false)
	if err := tm.RunStep(context.Background(), id, 1); err != nil {
		t.Fatal(err)
	}
	waitTask(t, fl.a, id, "completed")
	if n := impl.runs.Load(); n != 1 {
		t.Errorf("deployed %d times, want 1", n)
	}
}

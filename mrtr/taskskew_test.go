package mrtr_test

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/rivertasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/tasksopen"
	"github.com/mrtrgen/mrtrgen/mrtr/testclock"
)

// A task step on an instance whose clock is off (issue 27, item 5). Two
// instances share the record store, the task store and, where there is
// one, River's queue (tasksopen, as the example server opens them); their
// clocks differ by skew, well beyond the tolerated tasks.Config.ClockSkew
// and the deploy continuation's 10 minutes. The task is created on the
// healthy instance H while H's executor is held back, so its step lands
// on the skewed instance S first: S must not fail the task (before the
// fix it failed it for good with -32602, "invalid or expired
// requestState"), but record an instance fault and let the step run again;
// once S's executor stopped and H's runs, the step completes on H, the
// effect once.

// skewBackend is where a test's instances keep their tasks (and run
// River, where there is one) and their records: store URLs, fresh for
// each call.
type skewBackend struct{ name, tasksURL, recordsURL string }

func skewBackends() []struct {
	name string
	open func(t *testing.T) skewBackend
} {
	withPrefix := func(t *testing.T, u string) string {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		q := p.Query()
		q.Set(storeopen.PrefixParam, storetest.UniqueName()+"_")
		p.RawQuery = q.Encode()
		return p.String()
	}
	return []struct {
		name string
		open func(t *testing.T) skewBackend
	}{
		{"sqlite", func(t *testing.T) skewBackend {
			dir := t.TempDir()
			return skewBackend{"sqlite", "sqlite:" + filepath.Join(dir, "tasks.db"), "sqlite:" + filepath.Join(dir, "records.db")}
		}},
		{"postgres", func(t *testing.T) skewBackend {
			u := withPrefix(t, storetest.PostgresURL(t)) // fails under $CI when PostgreSQL is not there
			return skewBackend{"postgres", u, u}
		}},
		{"redis", func(t *testing.T) skewBackend {
			u := withPrefix(t, storetest.RedisURL(t))
			return skewBackend{"redis", u, u}
		}},
	}
}

// heldExecutor holds an executor back until run is called: Start is
// deferred; Enqueue goes to River's shared queue (which works before
// Start) or, for an in-process executor, which has no queue, is dropped
// (another instance takes the step over, as for a crashed instance).
type heldExecutor struct {
	inner   tasks.Executor
	durable bool
	mu      sync.Mutex
	runner  tasks.Runner
	ctx     context.Context
	started bool
}

func (x *heldExecutor) Start(ctx context.Context, r tasks.Runner) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.runner, x.ctx = r, context.WithoutCancel(ctx)
	return nil
}

func (x *heldExecutor) run(t *testing.T) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.inner.Start(x.ctx, x.runner); err != nil {
		t.Fatal(err)
	}
	x.started = true
}

func (x *heldExecutor) Enqueue(ctx context.Context, id string, step int) error {
	x.mu.Lock()
	started := x.started
	x.mu.Unlock()
	if !started && !x.durable {
		return nil
	}
	return x.inner.Enqueue(ctx, id, step)
}

func (x *heldExecutor) Stop(ctx context.Context) error { return x.inner.Stop(ctx) }

// placedDeploy records on which instance the deploy effect ran.
type placedDeploy struct {
	*testprog.DeployImpl
	name string
	ran  *placements
}

type placements struct {
	mu    sync.Mutex
	where []string
}

func (p *placements) add(name string) { p.mu.Lock(); p.where = append(p.where, name); p.mu.Unlock() }
func (p *placements) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.where...)
}

func (h placedDeploy) DeployServices(ctx context.Context, f *testprog.DeployFlow) error {
	h.ran.add(h.name)
	return h.DeployImpl.DeployServices(ctx, f)
}

// skewInstance is one instance of the test.
type skewInstance struct {
	c     taskClient
	m     *tasks.Manager
	tasks tasks.Store
	held  *heldExecutor
	exec  tasks.Executor
}

type skewOptions struct {
	tasksURL, recordsURL string
	name                 string
	clock                *testclock.Clock
	impl                 *testprog.DeployImpl
	ran                  *placements
	hold                 bool
	maxAttempts          int
}

func newSkewInstance(t *testing.T, o skewOptions) *skewInstance {
	t.Helper()
	ctx := context.Background()
	b, err := tasksopen.Open(ctx, o.tasksURL, tasksopen.Options{Now: o.clock.Now,
		River: rivertasks.Options{MaxAttempts: o.maxAttempts, Logger: quiet}})
	if err != nil {
		t.Fatal(err)
	}
	records, err := storeopen.OpenWithOptions(ctx, o.recordsURL, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var exec tasks.Executor = tasks.NewInProcess()
	if b.Executor != nil {
		exec = b.Executor
	}
	held := &heldExecutor{inner: exec, durable: b.Executor != nil}
	if !o.hold {
		held.started = true
		exec = held.inner
	} else {
		exec = held
	}
	codec := mrtrtest.NewCodec(t, o.clock)
	tm, err := tasks.New(tasks.Config{Store: b.Store, Executor: exec, Instance: o.name, Logger: quiet, Now: o.clock.Now,
		PollInterval: 20 * time.Millisecond, StepLease: time.Second, PrincipalSalt: []byte("skew-fleet-salt-0123456789"),
		Sealer: mrtr.TaskSealer(codec, "tasks-test")})
	if err != nil {
		t.Fatal(err)
	}
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "tasks-test", Codec: codec, Logger: quiet, Store: records, Tasks: tm, Instance: o.name})
	if err != nil {
		t.Fatal(err)
	}
	c := serveDeploy(t, e, tm, placedDeploy{DeployImpl: o.impl, name: o.name, ran: o.ran})
	t.Cleanup(func() { // after serveDeploy's cleanup, which closes tm
		_ = records.Close()
		_ = b.Close()
	})
	return &skewInstance{c: c, m: tm, tasks: b.Store, held: held, exec: exec}
}

// until polls tasks/get on c until the task is terminal or has status
// want, and returns it.
func until(t *testing.T, c taskClient, id, want string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got, rerr := c.call("tasks/get", map[string]any{"taskId": id}, true)
		if rerr != nil {
			t.Fatalf("tasks/get: %v", rerr)
		}
		if s, _ := got["status"].(string); s == want || tasks.Status(s).Terminal() {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s after %v: %v, want %s", id, within, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFault waits until the task's record shows a fault of instance.
func waitFault(t *testing.T, st tasks.Store, id, instance string) *tasks.StepFault {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rec, err := st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Fault != nil && rec.Fault.Instance == instance {
			return rec.Fault
		}
		if rec.Status.Terminal() || time.Now().After(deadline) {
			t.Fatalf("no fault of %s recorded: status %s, error %+v, fault %+v", instance, rec.Status, rec.Error, rec.Fault)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTaskStepOnASkewedInstance(t *testing.T) {
	const skew = 30 * time.Minute
	for _, backend := range skewBackends() {
		for _, dir := range []struct {
			name   string
			offset time.Duration
			cause  string
		}{{"ahead", skew, "looks expired"}, {"behind", -skew, "issued 30m0s in the future"}} {
			t.Run(backend.name+"/"+dir.name, func(t *testing.T) {
				t.Parallel()
				b := backend.open(t)
				impl, ran := &testprog.DeployImpl{}, &placements{}
				healthy, skewed := testclock.New(), testclock.New()
				skewed.Advance(dir.offset)
				o := skewOptions{tasksURL: b.tasksURL, recordsURL: b.recordsURL, impl: impl, ran: ran, maxAttempts: 100}
				so := o
				so.name, so.clock = "s-"+dir.name, skewed
				s := newSkewInstance(t, so)
				ho := o
				ho.name, ho.clock, ho.hold = "h-"+dir.name, healthy, true
				h := newSkewInstance(t, ho)

				fl := &taskFleet{a: h.c}
				id := fl.start(t)
				// Where the step is not on River's shared queue, the client's
				// retried tasks/update on S enqueues it there.
				if _, rerr := s.c.call("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}}, true); rerr != nil {
					t.Fatal(rerr)
				}
				fault := waitFault(t, h.tasks, id, "s-"+dir.name)
				if !strings.Contains(fault.Cause, "clock skew") || !strings.Contains(fault.Cause, dir.cause) {
					t.Errorf("fault cause %q, want clock skew, %q", fault.Cause, dir.cause)
				}
				if got := until(t, s.c, id, "working", time.Second); got["status"] != "working" {
					t.Fatalf("after the step failed on the skewed instance: %v", got)
				}

				// S's executor stops taking steps: which instance River hands
				// a retry to is River's choice (its leader, S here, tends to
				// fetch a rescheduled job first; rivertasks' tests cover
				// that), and the point here is that the retry completes on H.
				if err := s.exec.Stop(context.Background()); err != nil {
					t.Fatal(err)
				}
				h.held.run(t)
				got := until(t, h.c, id, "completed", 60*time.Second)
				if got["status"] != "completed" {
					t.Fatalf("task %v, want completed", got)
				}
				if text := got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]; text != "Deployed billing to staging." {
					t.Errorf("result %v", text)
				}
				if where := ran.list(); len(where) != 1 || where[0] != "h-"+dir.name {
					t.Errorf("the effect ran on %v, want once, on the healthy instance", where)
				}
			})
		}
	}
}

// When no instance can run the step (the only one that runs steps has a
// skewed clock), the task fails once the executor gives up on it, with an
// internal error that names the cause: never -32602, which would blame
// the client's params. River gives up after MaxAttempts (2 here);
// InProcess after 100 runs, which the test does not wait for: it has the
// Manager give up as InProcess would, and the cause comes from the record.
func TestTaskStepOnNoHealthyInstance(t *testing.T) {
	for _, backend := range skewBackends() {
		t.Run(backend.name, func(t *testing.T) {
			t.Parallel()
			b := backend.open(t)
			healthy, skewed := testclock.New(), testclock.New()
			skewed.Advance(30 * time.Minute)
			o := skewOptions{tasksURL: b.tasksURL, recordsURL: b.recordsURL, impl: &testprog.DeployImpl{}, ran: &placements{}, maxAttempts: 2}
			so := o
			so.name, so.clock = "s", skewed
			s := newSkewInstance(t, so)
			ho := o
			ho.name, ho.clock, ho.hold = "h", healthy, true // serves requests, never runs a step
			h := newSkewInstance(t, ho)

			id := (&taskFleet{a: h.c}).start(t)
			if _, rerr := s.c.call("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}}, true); rerr != nil {
				t.Fatal(rerr)
			}
			waitFault(t, h.tasks, id, "s")
			if !h.held.durable {
				time.Sleep(300 * time.Millisecond) // S retries, in vain
				if got, rerr := h.c.call("tasks/get", map[string]any{"taskId": id}, true); rerr != nil || got["status"] != "working" {
					t.Fatalf("before the executor gave up: %v %v", got, rerr)
				}
				// What InProcess does after its last attempt, with that
				// attempt's error (here one that carries no fault itself).
				abandon(t, s.m, h.tasks, id)
			}
			got := until(t, h.c, id, "failed", 30*time.Second)
			e, _ := got["error"].(map[string]any)
			msg, _ := e["message"].(string)
			if got["status"] != "failed" || e["code"] != float64(-32603) ||
				!strings.Contains(msg, "the task could not be run: clock skew") || !strings.Contains(msg, "looks expired") {
				t.Fatalf("task %v, want failed with -32603 naming the clock skew", got)
			}
			if n := len(o.ran.list()); n != 0 {
				t.Errorf("the effect ran %d times", n)
			}
		})
	}
}

// abandon has m give up on the task's step, as InProcess does after its
// last attempt, with that attempt's error (one that carries no fault
// itself): AbandonStep leaves alone a step a run holds, so it tries again
// until the task has failed.
func abandon(t *testing.T, m *tasks.Manager, st tasks.Store, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := m.AbandonStep(context.Background(), id, 1, errors.New("step still failing")); err != nil {
			t.Fatal(err)
		}
		rec, err := st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status.Terminal() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("AbandonStep did not fail the task: %s", rec.Status)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

package tasks_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/headeruser"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/taskrecording"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Durable execution: two instances (Managers) share one store and one
// queue of steps; the test decides which instance runs each step.

// queue is an executor shared by instances: Enqueue on any appends, and
// the test pops steps and runs them on the instance it chooses.
type queue struct {
	mu     sync.Mutex
	steps  []step
	refuse bool // Enqueue fails
}

type step struct {
	id string
	n  int
}

func (q *queue) pop(t *testing.T) step {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.steps) == 0 {
		t.Fatal("no step enqueued")
	}
	s := q.steps[0]
	q.steps = q.steps[1:]
	return s
}

func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.steps)
}

// worker is one instance's Executor on the shared queue.
type worker struct {
	q      *queue
	r      tasks.Runner
	ctx    context.Context
	cancel context.CancelFunc
}

func (w *worker) Start(ctx context.Context, r tasks.Runner) error {
	w.r = r
	w.ctx, w.cancel = context.WithCancel(ctx)
	return nil
}

func (w *worker) Enqueue(_ context.Context, id string, n int) error {
	w.q.mu.Lock()
	defer w.q.mu.Unlock()
	if w.q.refuse {
		return errors.New("queue down")
	}
	w.q.steps = append(w.q.steps, step{id, n})
	return nil
}

func (w *worker) Stop(context.Context) error { w.cancel(); return nil }

// run runs s on this instance, as an executor would.
func (w *worker) run(s step) error { return w.r.RunStep(w.ctx, s.id, s.n) }

// effects simulates an effect with a claim: it runs once per task, and
// later runs of the step replay its recorded outcome.
type effects struct {
	mu   sync.Mutex
	done map[string]bool
	runs atomic.Int64
	// hold, when set, makes the effect wait for it (or for its context);
	// entered receives the effect's context when it starts.
	hold    chan struct{}
	entered chan context.Context
	// ended receives the effect context's error when the effect ends.
	ended chan error
}

func (e *effects) do(ctx context.Context, id string) {
	e.mu.Lock()
	if e.done[id] {
		e.mu.Unlock()
		return // replayed
	}
	e.mu.Unlock()
	e.runs.Add(1)
	ectx := tasks.EffectContext(ctx)
	if e.hold != nil {
		e.entered <- ectx
		select {
		case <-e.hold:
		case <-ectx.Done():
		}
		e.ended <- ectx.Err()
	}
	e.mu.Lock()
	e.done[id] = true
	e.mu.Unlock()
}

type instance struct {
	*fixture
	m *tasks.Manager
	w *worker
}

type durable struct {
	t     *testing.T
	store tasks.Store
	q     *queue
	fx    *effects
	a, b  *instance
	// reuseKey makes step 2 ask again under step 1's key.
	reuseKey atomic.Bool
	// deaf makes step 1 ignore its context (and the effect its own).
	deaf bool
	// waitFirst makes step 1 end waiting for Resume instead of asking.
	waitFirst bool
}

// startHeld creates a task on A and runs its first step there in the
// background, its effect held until d.fx.hold closes. It returns once the
// effect is entered, with the task's id, the step, and where the run's
// error goes.
func (d *durable) startHeld(t *testing.T) (id string, s1 step, done <-chan error) {
	d.fx.hold, d.fx.entered, d.fx.ended = make(chan struct{}), make(chan context.Context, 1), make(chan error, 1)
	id = d.create(d.a, "x")
	s1 = d.q.pop(t)
	ran := make(chan error, 1)
	go func() { ran <- d.a.w.run(s1) }()
	<-d.fx.entered
	return id, s1, ran
}

var salt = []byte("0123456789abcdef0123456789abcdef")

func q(msg string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "string"}}}}
}

func newDurable(t *testing.T, store tasks.Store, sealer tasks.Sealer) *durable {
	t.Helper()
	d := &durable{t: t, store: store, q: &queue{}, fx: &effects{done: map[string]bool{}}}
	d.a, d.b = d.instance("a", sealer), d.instance("b", sealer)
	return d
}

func (d *durable) instance(name string, sealer tasks.Sealer) *instance {
	t := d.t
	w := &worker{q: d.q}
	m, err := tasks.New(tasks.Config{
		Store: d.store, Instance: name, Logger: quiet, PollInterval: 10 * time.Millisecond, PrincipalSalt: salt,
		Executor: w, Sealer: sealer, SweepInterval: -1,
		Authenticate: headeruser.Authenticate,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	if err := m.Install(s); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{"secret": map[string]any{"type": "string"}}}
	m.AddResumableTool(s, &mcp.Tool{Name: "deploy", InputSchema: schema}, tasks.Required, tasks.ToolOptions{},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.StartResumable(ctx, func(string) ([]byte, error) {
				return append([]byte("args:"), req.Params.Arguments...), nil
			})
		}, d.step)
	// bounded: its one step waits for its effect context to end.
	m.AddResumableTool(s, &mcp.Tool{Name: "bounded", InputSchema: schema}, tasks.Required, tasks.ToolOptions{Timeout: 50 * time.Millisecond},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.StartResumable(ctx, func(string) ([]byte, error) { return nil, nil })
		}, func(ctx context.Context, _ tasks.StepInput) (tasks.StepEnd, error) {
			<-tasks.EffectContext(ctx).Done()
			return tasks.StepEnd{}, tasks.EffectContext(ctx).Err()
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return &instance{fixture: &fixture{t: t, url: srv.URL}, m: m, w: w}
}

// step: step 1 runs the effect and asks "s1.ok"; step 2 ends with the
// answer and the checkpoint.
func (d *durable) step(ctx context.Context, in tasks.StepInput) (tasks.StepEnd, error) {
	switch in.Step {
	case 1:
		if d.deaf {
			ctx = context.Background()
		}
		d.fx.do(ctx, in.TaskID)
		if err := ctx.Err(); err != nil {
			return tasks.StepEnd{}, err
		}
		if d.waitFirst {
			return tasks.StepEnd{Wait: "waiting for approval", Checkpoint: append([]byte("after-1:"), in.Checkpoint...)}, nil
		}
		return tasks.StepEnd{Ask: mcp.InputRequestMap{"s1.ok": q("Promote?")}, Checkpoint: append([]byte("after-1:"), in.Checkpoint...)}, nil
	case 2:
		if d.reuseKey.Load() {
			return tasks.StepEnd{Ask: mcp.InputRequestMap{"s1.ok": q("Again?")}, Checkpoint: in.Checkpoint}, nil
		}
		if d.waitFirst {
			return tasks.StepEnd{Result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "resumed " + string(in.Checkpoint)}}}}, nil
		}
		ans, ok := in.Answers["s1.ok"].(*mcp.ElicitResult)
		if !ok {
			return tasks.StepEnd{}, fmt.Errorf("no answer: %v", in.Answers)
		}
		return tasks.StepEnd{Result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%v %s", ans.Content["ok"], in.Checkpoint)}}}}, nil
	}
	return tasks.StepEnd{}, fmt.Errorf("no step %d", in.Step)
}

func (d *durable) create(on *instance, secret string) string {
	d.t.Helper()
	res := on.ok(alice, "tools/call", map[string]any{"name": "deploy", "arguments": map[string]any{"secret": secret}})
	if res["resultType"] != "task" || res["status"] != "working" {
		d.t.Fatalf("tools/call: %v", res)
	}
	return res["taskId"].(string)
}

func (d *durable) get(on *instance, id string) map[string]any {
	d.t.Helper()
	return on.ok(alice, "tasks/get", map[string]any{"taskId": id})
}

func answer(value string) map[string]any {
	return map[string]any{"s1.ok": map[string]any{"action": "accept", "content": map[string]any{"ok": value}}}
}

func TestResumableAcrossInstances(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	id := d.create(d.a, "x")
	s1 := d.q.pop(t)
	if s1 != (step{id, 1}) {
		t.Fatalf("enqueued %v", s1)
	}
	if err := d.b.w.run(s1); err != nil {
		t.Fatal(err)
	}
	got := d.get(d.a, id)
	if got["status"] != "input_required" || got["inputRequests"].(map[string]any)["s1.ok"] == nil {
		t.Fatalf("after step 1: %v", got)
	}
	if d.q.len() != 0 {
		t.Fatal("a waiting task has a step enqueued")
	}
	// Duplicate and late runs of step 1 do nothing.
	for _, in := range []*instance{d.a, d.b} {
		if err := in.w.run(s1); err != nil {
			t.Fatalf("duplicate step: %v", err)
		}
	}
	d.b.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": answer("yes")})
	s2 := d.q.pop(t)
	if s2 != (step{id, 2}) {
		t.Fatalf("enqueued %v", s2)
	}
	if err := d.a.w.run(s2); err != nil {
		t.Fatal(err)
	}
	got = d.get(d.b, id)
	if got["status"] != "completed" {
		t.Fatalf("after step 2: %v", got)
	}
	text := got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
	if text != `yes after-1:args:{"secret":"x"}` {
		t.Fatalf("result %q", text)
	}
	if err := d.b.w.run(s2); err != nil {
		t.Fatalf("late step: %v", err)
	}
	if n := d.fx.runs.Load(); n != 1 {
		t.Fatalf("effect ran %d times", n)
	}
}

func TestStoppedStepRunsAgainElsewhere(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	id, s1, done := d.startHeld(t)

	// Busy: B may not run a step A holds.
	if err := d.b.w.run(s1); !errors.Is(err, tasks.ErrStepBusy) {
		t.Fatalf("busy step: %v", err)
	}
	// A shuts down mid-effect: the effect is not cut off.
	_ = d.a.w.Stop(context.Background())
	close(d.fx.hold)
	if err := <-d.fx.ended; err != nil {
		t.Fatalf("the executor's stop ended the effect's context: %v", err)
	}
	if err := <-done; err == nil {
		t.Fatal("a stopped step reported settled")
	}
	if got := d.get(d.b, id); got["status"] != "working" {
		t.Fatalf("after the stop: %v", got)
	}
	// B runs the step again at once (A released its lease): the effect
	// replays instead of running twice.
	d.fx.hold = nil
	if err := d.b.w.run(s1); err != nil {
		t.Fatal(err)
	}
	if got := d.get(d.a, id); got["status"] != "input_required" {
		t.Fatalf("after the rerun: %v", got)
	}
	if n := d.fx.runs.Load(); n != 1 {
		t.Fatalf("effect ran %d times", n)
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	id := d.create(d.a, "x")
	if err := d.a.w.run(d.q.pop(t)); err != nil {
		t.Fatal(err)
	}
	d.b.ok(alice, "tasks/cancel", map[string]any{"taskId": id})
	if got := d.get(d.a, id); got["status"] != "cancelled" || got["inputRequests"] != nil {
		t.Fatalf("after cancel: %v", got)
	}
	// A late answer does not revive it.
	d.b.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": answer("yes")})
	if d.q.len() != 0 {
		t.Fatal("an answer to a cancelled task enqueued a step")
	}
	if err := d.b.w.run(step{id, 2}); err != nil {
		t.Fatal(err)
	}
	if got := d.get(d.a, id); got["status"] != "cancelled" {
		t.Fatalf("after a late step: %v", got)
	}
}

// A cancel that lands while a step is ending with an ask leaves the task
// cancelled, not waiting with its cancel spent.
func TestCancelRacingAsk(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	d.deaf = true // the step ignores its context and ends with an ask
	id, _, done := d.startHeld(t)
	d.b.ok(alice, "tasks/cancel", map[string]any{"taskId": id})
	time.Sleep(30 * time.Millisecond) // a few polls: A has seen the flag
	close(d.fx.hold)
	if err := <-d.fx.ended; err != nil {
		t.Fatalf("a deaf effect's context ended: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := d.get(d.b, id); got["status"] != "cancelled" {
		t.Fatalf("after cancel and ask: %v", got)
	}
}

func TestCancelReachesRunningStep(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	id, _, done := d.startHeld(t)
	// Cancelled on the other instance: A sees the flag within a poll
	// interval and ends the effect's context.
	d.b.ok(alice, "tasks/cancel", map[string]any{"taskId": id})
	select {
	case err := <-d.fx.ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("effect context: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("tasks/cancel on B did not reach the effect running on A")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := d.get(d.a, id); got["status"] != "cancelled" {
		t.Fatalf("after cancel: %v", got)
	}
}

func TestResumableKeysUnique(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	d.reuseKey.Store(true)
	id := d.create(d.a, "x")
	if err := d.a.w.run(d.q.pop(t)); err != nil {
		t.Fatal(err)
	}
	d.b.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": answer("yes")})
	if err := d.b.w.run(d.q.pop(t)); err != nil {
		t.Fatal(err)
	}
	got := d.get(d.a, id)
	if got["status"] != "failed" || !strings.Contains(fmt.Sprint(got["error"]), "already used") {
		t.Fatalf("a reused key: %v", got)
	}
}

func TestEnqueueFailure(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	d.q.refuse = true
	d.a.fails(alice, "tools/call", map[string]any{"name": "deploy", "arguments": map[string]any{}}, -32603)

	d.q.refuse = false
	id := d.create(d.a, "x")
	if err := d.a.w.run(d.q.pop(t)); err != nil {
		t.Fatal(err)
	}
	d.q.refuse = true
	d.b.fails(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": answer("yes")}, -32603)
	// The answers are kept; the client's retry enqueues the step.
	d.q.refuse = false
	d.b.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": answer("yes")})
	if err := d.a.w.run(d.q.pop(t)); err != nil {
		t.Fatal(err)
	}
	if got := d.get(d.a, id); got["status"] != "completed" {
		t.Fatalf("after the retried update: %v", got)
	}
}

// gcmSealer seals with AES-GCM, the task id as associated data.
type gcmSealer struct{ aead cipher.AEAD }

func newGCMSealer(t *testing.T) gcmSealer {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return gcmSealer{aead}
}

func (s gcmSealer) Seal(id string, _ time.Duration, plain []byte) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return s.aead.Seal(nonce, nonce, plain, []byte(id)), nil
}

func (s gcmSealer) Open(id string, b []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(b) < n {
		return nil, errors.New("short")
	}
	return s.aead.Open(nil, b[:n], b[n:], []byte(id))
}

func TestSealerAtRest(t *testing.T) {
	const secret, answerValue = "hunter2-argument-value", "purple-answer-value"
	run := func(t *testing.T, sealer tasks.Sealer) (leaked []string) {
		rec := &taskrecording.Store{Store: tasks.NewMemoryStore(nil)}
		d := newDurable(t, rec, sealer)
		id := d.create(d.a, secret)
		if err := d.a.w.run(d.q.pop(t)); err != nil {
			t.Fatal(err)
		}
		d.b.ok(alice, "tasks/update", map[string]any{"taskId": id, "inputResponses": answer(answerValue)})
		if err := d.b.w.run(d.q.pop(t)); err != nil {
			t.Fatal(err)
		}
		got := d.get(d.a, id)
		if text := fmt.Sprint(got["result"]); got["status"] != "completed" || !strings.Contains(text, secret) || !strings.Contains(text, answerValue) {
			t.Fatalf("the task's result does not open: %v", got)
		}
		records := rec.Records()
		for _, v := range []string{secret, answerValue} {
			for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v))[:len(v)]} {
				for _, raw := range records {
					if strings.Contains(string(raw), form) || strings.Contains(base64Decoded(raw), v) {
						leaked = append(leaked, v)
					}
				}
			}
		}
		return leaked
	}
	t.Run("sealed", func(t *testing.T) {
		if leaked := run(t, newGCMSealer(t)); len(leaked) > 0 {
			t.Fatalf("stored records carry %q", leaked)
		}
	})
	t.Run("the check catches a store in clear", func(t *testing.T) {
		if leaked := run(t, nil); len(leaked) == 0 {
			t.Fatal("no value found in records stored in clear: the check cannot fail")
		}
	})
}

// base64Decoded decodes every JSON string of raw that is base64 (the
// checkpoint's []byte is), so a value hidden in it is found too.
func base64Decoded(raw []byte) string {
	var out strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			if b, err := base64.StdEncoding.DecodeString(v); err == nil {
				out.Write(b)
			}
		}
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	walk(v)
	return out.String()
}

func TestInProcessExecutor(t *testing.T) {
	m, err := tasks.New(tasks.Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	x := tasks.NewInProcess()
	if err := x.Enqueue(ctx, "t", 1); !errors.Is(err, tasks.ErrExecutorStopped) {
		t.Fatalf("Enqueue before Start: %v", err)
	}
	var runs atomic.Int64
	release := make(chan struct{})
	r := runnerFunc(func(ctx context.Context, _ string, _ int) error {
		runs.Add(1)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	if err := x.Start(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := x.Enqueue(ctx, "t", 1); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if n := runs.Load(); n != 1 {
		t.Fatalf("one step ran %d times at once", n)
	}
	if err := x.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := x.Enqueue(ctx, "t", 2); !errors.Is(err, tasks.ErrExecutorStopped) {
		t.Fatalf("Enqueue after Stop: %v", err)
	}
}

type runnerFunc func(ctx context.Context, id string, step int) error

func (f runnerFunc) RunStep(ctx context.Context, id string, step int) error { return f(ctx, id, step) }

// ToolOptions.Timeout is a deadline from the task's creation: it ends the
// effect's context and fails the task.
func TestResumableDeadline(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	res := d.a.ok(alice, "tools/call", map[string]any{"name": "bounded", "arguments": map[string]any{}})
	id := res["taskId"].(string)
	if err := d.b.w.run(d.q.pop(t)); err != nil {
		t.Fatal(err)
	}
	got := d.get(d.a, id)
	if got["status"] != "failed" || !strings.Contains(fmt.Sprint(got["error"]), "task timed out") {
		t.Fatalf("after the deadline: %v", got)
	}
}

// A running step's lease keeps its record alive past its TTL.
func TestLeaseKeepsRecordAlive(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := tasks.Record{UpdatedAt: t0, TTL: time.Minute}
	if got := r.ExpiresAt(); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("without a lease: %v", got)
	}
	r.Lease = &tasks.Lease{Runner: "x", Until: t0.Add(5 * time.Minute)}
	if got := r.ExpiresAt(); !got.Equal(t0.Add(6 * time.Minute)) {
		t.Fatalf("with a lease: %v", got)
	}
}

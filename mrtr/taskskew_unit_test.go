package mrtr_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/testclock"
)

// Whose fault a step's failure is, step by step: instances on shared
// memory stores whose steps the test runs itself (Manager.RunStep, as
// some instance's executor would), each on its own clock and key ring.

type stepFleet struct {
	t       *testing.T
	tasks   tasks.Store
	records store.Store
	impl    *testprog.DeployImpl
}

type stepInstance struct {
	c     taskClient
	m     *tasks.Manager
	clock *testclock.Clock
}

func newStepFleet(t *testing.T) *stepFleet {
	return &stepFleet{t: t, tasks: tasks.NewMemoryStore(testclock.New().Now), records: store.NewMemory(store.Options{}), impl: &testprog.DeployImpl{}}
}

// instance serves deploy as a task tool from state start, with codec (nil:
// mrtrtest's, on clock) and clock.
func (fl *stepFleet) instance(name string, clock *testclock.Clock, codec *seal.Codec, start string) *stepInstance {
	t := fl.t
	if codec == nil {
		codec = mrtrtest.NewCodec(t, clock)
	}
	tm, err := tasks.New(tasks.Config{Store: fl.tasks, Executor: manualExecutor{}, Instance: name, Logger: quiet, Now: clock.Now,
		SweepInterval: -1, PrincipalSalt: []byte("step-fleet-salt-0123456789")})
	if err != nil {
		t.Fatal(err)
	}
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "tasks-test", Codec: codec, Logger: quiet, Store: fl.records, Tasks: tm, Instance: name})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "tasks-test", Version: "test"}, nil)
	if err := tm.Install(s); err != nil {
		t.Fatal(err)
	}
	mrtr.AddTool(s, e, withTask(t, testprog.NewDeployProgram(fl.impl), start, false))
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(func() { ts.Close(); _ = tm.Close(context.Background()) })
	return &stepInstance{c: taskClient{t: t, url: ts.URL}, m: tm, clock: clock}
}

// status reads the task through in.
func (in *stepInstance) status(t *testing.T, id string) map[string]any {
	t.Helper()
	got, rerr := in.c.call("tasks/get", map[string]any{"taskId": id}, true)
	if rerr != nil {
		t.Fatal(rerr)
	}
	return got
}

// faulted runs step on in and wants an instance fault naming cause, the
// task still working.
func (in *stepInstance) faulted(t *testing.T, id string, step int, cause string) {
	t.Helper()
	err := in.m.RunStep(context.Background(), id, step)
	var f *tasks.InstanceFault
	if !errors.As(err, &f) || !strings.Contains(f.Cause, cause) {
		t.Fatalf("step %d: %v, want an instance fault naming %q", step, err, cause)
	}
	if got := in.status(t, id); got["status"] != "working" {
		t.Fatalf("after the fault: %v", got)
	}
}

func (in *stepInstance) runs(t *testing.T, id string, step int) {
	t.Helper()
	if err := in.m.RunStep(context.Background(), id, step); err != nil {
		t.Fatalf("step %d: %v", step, err)
	}
}

// The continuation of a step is judged with the tolerated clock skew (two
// minutes), not with the codec's 30 s: an instance a minute past its
// expiry runs it; three minutes past, it is this instance's fault (the
// client did nothing late: the step was due when the task was created).
func TestTaskStepToleratesClockSkew(t *testing.T) {
	fl := newStepFleet(t)
	h := fl.instance("h", testclock.New(), nil, "ship")
	id := (&taskFleet{a: h.c}).start(t)

	far := testclock.New()
	far.Advance(13 * time.Minute) // the continuation expires at +10m
	fl.instance("far", far, nil, "ship").faulted(t, id, 1, "looks expired 3m0s")

	near := testclock.New()
	near.Advance(11 * time.Minute)
	n := fl.instance("near", near, nil, "ship")
	n.runs(t, id, 1)
	if got := n.status(t, id); got["status"] != "completed" {
		t.Fatalf("within the tolerated skew: %v", got)
	}
}

// An instance whose key ring lacks the key the checkpoint was sealed with
// (a rotation not yet rolled out to it) leaves the step to the others.
func TestTaskStepOnAnInstanceWithoutTheKey(t *testing.T) {
	fl := newStepFleet(t)
	h := fl.instance("h", testclock.New(), nil, "ship")
	id := (&taskFleet{a: h.c}).start(t)
	ring, err := seal.NewRing(seal.Key{ID: 2, Secret: []byte("another key ring, another deployment")})
	if err != nil {
		t.Fatal(err)
	}
	clock := testclock.New()
	other := fl.instance("other", clock, seal.New(ring, seal.Options{Now: clock.Now}), "ship")
	other.faulted(t, id, 1, "the task's checkpoint is sealed under a key this instance's key ring lacks")
	h.runs(t, id, 1)
	if got := h.status(t, id); got["status"] != "completed" {
		t.Fatalf("on the instance with the key: %v", got)
	}
}

// A task that asks (it starts at the question): answers that came in time
// but whose step waited past the continuation's expiry are the server's
// problem; answers that came late are the client's, and the task fails
// with -32602 saying so.
func TestTaskStepLateAnswers(t *testing.T) {
	answer := map[string]any{"r1.pick": map[string]any{"action": "accept", "content": map[string]any{"services": []any{"billing"}}}}
	for _, tc := range []struct {
		name              string
		answerAt, stepAt  time.Duration // after the question, on the instance's clock
		wantFault, wantIn string
	}{
		{name: "in time, run late", answerAt: 9 * time.Minute, stepAt: 13 * time.Minute, wantFault: "the step was due 1m0s before it expired"},
		{name: "late", answerAt: 13 * time.Minute, stepAt: 13 * time.Minute, wantIn: "the answers came 3m0s after the task's question expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fl := newStepFleet(t)
			clock := testclock.New()
			h := fl.instance("h", clock, nil, "choose")
			created, rerr := h.c.call("tools/call", map[string]any{"name": "deploy", "arguments": map[string]any{"env": "staging"}}, true)
			if rerr != nil || created["resultType"] != "task" {
				t.Fatalf("tools/call: %v %v", created, rerr)
			}
			id := created["taskId"].(string)
			h.runs(t, id, 1)
			if got := h.status(t, id); got["status"] != "input_required" {
				t.Fatalf("after step 1: %v", got)
			}
			clock.Advance(tc.answerAt)
			if _, rerr := h.c.call("tasks/update", map[string]any{"taskId": id, "inputResponses": answer}, true); rerr != nil {
				t.Fatal(rerr)
			}
			clock.Advance(tc.stepAt - tc.answerAt)
			if tc.wantFault != "" {
				h.faulted(t, id, 2, tc.wantFault)
				return
			}
			h.runs(t, id, 2)
			got := h.status(t, id)
			e, _ := got["error"].(map[string]any)
			if msg, _ := e["message"].(string); got["status"] != "failed" || e["code"] != float64(-32602) || !strings.Contains(msg, tc.wantIn) {
				t.Fatalf("task %v, want failed with -32602 %q", got, tc.wantIn)
			}
			if d := fl.impl.Deployments(); len(d) != 0 {
				t.Errorf("deployed %v", d)
			}
		})
	}
}

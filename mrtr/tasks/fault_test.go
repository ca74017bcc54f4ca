package tasks_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// A step that fails because of its instance (InstanceFault) does not end
// the task: the fault is recorded with its instance, the lease released,
// RunStep returns an error (the executor runs the step again), a tasks/get
// on another instance enqueues the step there at once (not after a
// StepLease), and an executor that gives up fails the task with -32603
// naming the cause. The faulting instance's own tasks/get does not
// enqueue it again: its executor retries it with backoff.
func TestInstanceFaultHandsTheStepOver(t *testing.T) {
	st := tasks.NewMemoryStore(nil)
	cause := "clock skew: this instance's clock is behind"
	bad := func(context.Context, tasks.StepInput) (tasks.StepEnd, error) {
		return tasks.StepEnd{}, &tasks.InstanceFault{Cause: cause, Err: errors.New("checkpoint issued at 12:00, now 11:30")}
	}
	instance := func(name string, step tasks.StepFunc) (*tasks.Manager, *countingExecutor, func(string) map[string]any, func() string) {
		enq := &countingExecutor{}
		m, cl := serveDeploy(t, tasks.Config{Store: st, Executor: enq, Instance: name, PrincipalSalt: []byte("0123456789abcdef0123456789abcdef"),
			SweepInterval: -1, StepLease: time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, step)
		return m, enq, cl.Get, func() string { return cl.Tool("deploy", map[string]any{})["taskId"].(string) }
	}
	a, enqA, getA, create := instance("a", bad)
	_, enqB, getB, _ := instance("b", deployed)
	id := create()

	err := a.RunStep(context.Background(), id, 1)
	var f *tasks.InstanceFault
	if !errors.As(err, &f) || !errors.Is(err, tasks.ErrRunAgain) {
		t.Fatalf("RunStep of a faulted step: %v, want an error carrying the fault", err)
	}
	rec, err := st.Get(context.Background(), id)
	if err != nil || rec.Status != tasks.StatusWorking || rec.Lease != nil || rec.Fault == nil ||
		rec.Fault.Instance != "a" || rec.Fault.Cause != cause || rec.Fault.Runs != 1 {
		t.Fatalf("after the fault: %+v (fault %+v) %v", rec, rec.Fault, err)
	}
	if got := getA(id); got["status"] != string(tasks.StatusWorking) || enqA.count.Load() != 1 {
		t.Fatalf("tasks/get on the faulting instance: %v, enqueued %d times in all", got, enqA.count.Load())
	}
	getB(id)
	if n := enqB.count.Load(); n != 1 {
		t.Fatalf("tasks/get on another instance enqueued the faulted step %d times, want at once", n)
	}

	_ = a.RunStep(context.Background(), id, 1)
	if rec, _ := st.Get(context.Background(), id); rec.Fault == nil || rec.Fault.Runs != 2 {
		t.Fatalf("second fault: %+v", rec.Fault)
	}
	if err := a.AbandonStep(context.Background(), id, 1, errors.New("attempts exhausted")); err != nil {
		t.Fatal(err)
	}
	got := getB(id)
	e, _ := got["error"].(map[string]any)
	if msg, _ := e["message"].(string); got["status"] != string(tasks.StatusFailed) || e["code"] != float64(-32603) ||
		msg != "the task could not be run: "+cause {
		t.Fatalf("abandoned task: %v", got)
	}
	if rec, _ := st.Get(context.Background(), id); rec.Fault != nil {
		t.Errorf("a settled task keeps its fault: %+v", rec.Fault)
	}
	if !strings.Contains(f.Error(), "checkpoint issued at") {
		t.Errorf("the fault's error %q drops its detail", f.Error())
	}
}

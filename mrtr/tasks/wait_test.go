package tasks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// A step that ends with Wait leaves the task working, with nothing
// enqueued and nothing running, until Resume (on any instance).
func TestWaitUntilResume(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	d.waitFirst = true
	ctx := context.Background()
	id := d.create(d.a, "x")
	s1 := d.q.pop(t)
	if err := d.a.w.run(s1); err != nil {
		t.Fatal(err)
	}
	got := d.get(d.b, id)
	if got["status"] != "working" || got["statusMessage"] != "waiting for approval" || got["inputRequests"] != nil {
		t.Fatalf("waiting task: %v", got)
	}
	if d.q.len() != 0 {
		t.Fatal("a waiting task has a step enqueued")
	}
	// Neither a duplicate of step 1 nor a premature step 2 runs.
	if err := d.b.w.run(s1); err != nil {
		t.Fatal(err)
	}
	if err := d.b.w.run(step{id, 2}); err != nil {
		t.Fatal(err)
	}
	if got := d.get(d.a, id); got["status"] != "working" {
		t.Fatalf("a step ran before Resume: %v", got)
	}
	if err := d.b.m.Resume(ctx, id); err != nil {
		t.Fatal(err)
	}
	s2 := d.q.pop(t)
	if s2 != (step{id, 2}) {
		t.Fatalf("enqueued %v", s2)
	}
	if err := d.a.w.run(s2); err != nil {
		t.Fatal(err)
	}
	got = d.get(d.a, id)
	text := got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
	if got["status"] != "completed" || text != `resumed after-1:args:{"secret":"x"}` {
		t.Fatalf("after Resume: %v", got)
	}
	// Resuming an ended task, or one that does not exist, does nothing.
	if err := d.a.m.Resume(ctx, id); err != nil || d.q.len() != 0 {
		t.Fatalf("resume of an ended task: %v, %d enqueued", err, d.q.len())
	}
	if err := d.a.m.Resume(ctx, "nope"); err != nil {
		t.Fatal(err)
	}
}

// A Resume that comes while the step that will wait is still running is
// kept: the wait is over as soon as it begins.
func TestResumeBeforeTheWaitIsKept(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	d.waitFirst = true
	id, _, done := d.startHeld(t)
	if err := d.b.m.Resume(context.Background(), id); !errors.Is(err, tasks.ErrNotWaiting) {
		t.Fatalf("resume during the step: %v", err)
	}
	close(d.fx.hold)
	if err := <-d.fx.ended; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s2 := d.q.pop(t); s2 != (step{id, 2}) {
		t.Fatalf("enqueued %v", s2)
	}
}

func TestCancelWhileWaitingForResume(t *testing.T) {
	d := newDurable(t, tasks.NewMemoryStore(nil), nil)
	d.waitFirst = true
	id := d.create(d.a, "x")
	if err := d.a.w.run(d.q.pop(t)); err != nil {
		t.Fatal(err)
	}
	d.b.ok(alice, "tasks/cancel", map[string]any{"taskId": id})
	if got := d.get(d.a, id); got["status"] != "cancelled" {
		t.Fatalf("cancelled while waiting: %v", got)
	}
	if err := d.a.m.Resume(context.Background(), id); err != nil || d.q.len() != 0 {
		t.Fatalf("resume of a cancelled task: %v", err)
	}
}

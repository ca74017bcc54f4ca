// Package taskpoll is how the tests of task tools (mrtr, mrtr/tasks'
// taskstest, the example server) wait for a task: they poll tasks/get
// until it has the status they want.
package taskpoll

import (
	"testing"
	"time"
)

// Status calls get (one tasks/get of task id, failing t itself on an
// error) every interval until the task it returns has status want, and
// returns that task; after within it fails t.
func Status(t testing.TB, id, want string, within, every time.Duration, get func() map[string]any) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := get()
		if got["status"] == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: status %v, want %s (%v)", id, got["status"], want, got)
		}
		time.Sleep(every)
	}
}

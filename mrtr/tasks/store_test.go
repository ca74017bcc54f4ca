package tasks_test

import (
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

func TestMemoryStoreConformance(t *testing.T) {
	taskstest.Run(t, func(_ *testing.T, now func() time.Time) tasks.Store {
		return tasks.NewMemoryStore(now)
	}, taskstest.Options{})
}

func BenchmarkMemoryStore(b *testing.B) { taskstest.Bench(b, tasks.NewMemoryStore(nil)) }

// TestInstancesShareMemoryStore: instances of one process that share a
// MemoryStore answer for each other's tasks.
func TestInstancesShareMemoryStore(t *testing.T) {
	shared := tasks.NewMemoryStore(nil)
	taskstest.RunInstances(t, func(*testing.T) tasks.Store { return shared })
}

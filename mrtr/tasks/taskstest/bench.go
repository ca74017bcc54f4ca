package taskstest

import (
	"context"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Bench measures Get and Update (one status message, as Run.SetStatusMessage
// writes) of one live record of s, serially, each as a sub-benchmark.
func Bench(b *testing.B, s tasks.Store) {
	ctx := context.Background()
	rec := record("bench", time.Now(), time.Hour)
	if err := s.Create(ctx, rec); err != nil {
		b.Fatal(err)
	}
	b.Run("Get", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Get(ctx, "bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Update", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Update(ctx, "bench", func(r *tasks.Record) error {
				r.StatusMessage = "step"
				r.UpdatedAt = time.Now()
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

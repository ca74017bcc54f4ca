package store_test

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		s := store.NewMemory(store.Options{Now: clock.Now})
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func BenchmarkClaimComplete(b *testing.B) {
	b.Run("serial", func(b *testing.B) { storetest.BenchClaimComplete(b, store.NewMemory(store.Options{})) })
	b.Run("parallel", func(b *testing.B) { storetest.BenchClaimCompleteParallel(b, store.NewMemory(store.Options{})) })
}

func TestMemoryApprovalConformance(t *testing.T) {
	storetest.RunApprovals(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		s := store.NewMemory(store.Options{Now: clock.Now})
		t.Cleanup(func() { s.Close() })
		return s
	})
}

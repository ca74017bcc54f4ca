package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/benchround"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// BenchFinalRounds runs BenchClaimComplete ("serial") and
// BenchClaimCompleteParallel ("parallel") on s; with w (the store's
// connections counted by it) the serial one reports the round trips a
// final round takes (roundtrips/op).
func BenchFinalRounds(b *testing.B, s store.Store, w *Wire) {
	b.Run("serial", func(b *testing.B) {
		if w == nil {
			BenchClaimComplete(b, s)
			return
		}
		w.Reset()
		BenchClaimComplete(b, s)
		b.ReportMetric(float64(w.Writes.Load())/float64(b.N), "roundtrips/op")
	})
	b.Run("parallel", func(b *testing.B) { BenchClaimCompleteParallel(b, s) })
}

// BenchClaimComplete measures one final round's store cost: Claim of a fresh
// key (Acquired) followed by Complete with a 256-byte result.
func BenchClaimComplete(b *testing.B, s store.Store) {
	ctx := context.Background()
	prefix := UniqueName()
	result := make([]byte, 256)
	fp := []byte("0123456789abcdef0123456789abcdef")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		key := fmt.Sprintf("%s/op-%d", prefix, i)
		r, err := s.Claim(ctx, store.ClaimRequest{Key: key, Fingerprint: fp, Owner: "bench", Lease: time.Minute})
		if err != nil || r.Status != store.Acquired {
			b.Fatalf("Claim = %v, %v", r.Status, err)
		}
		if err := s.Complete(ctx, key, "bench", result, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchClaimCompleteParallel is BenchClaimComplete from GOMAXPROCS
// goroutines (b.RunParallel) on distinct keys: throughput of final rounds.
func BenchClaimCompleteParallel(b *testing.B, s store.Store) {
	ctx := context.Background()
	prefix := UniqueName()
	result := make([]byte, 256)
	fp := []byte("0123456789abcdef0123456789abcdef")
	var worker atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := worker.Add(1)
		owner := fmt.Sprintf("bench-%d", w)
		for i := 0; pb.Next(); i++ {
			key := fmt.Sprintf("%s/%d/op-%d", prefix, w, i)
			if err := benchround.Final(ctx, s, key, owner, fp, result); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

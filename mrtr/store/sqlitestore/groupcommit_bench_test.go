package sqlitestore

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/benchround"
)

// BenchmarkConcurrentClaimComplete is a final round's store work (Claim of
// a fresh key, then Complete with a 256-byte result) from many goroutines
// at once on one database file: the load under which writers queue behind
// the single write connection. It reports the p50 and p99 of one
// claim+complete pair besides the throughput (ns/op is per pair), with
// group commit (grouped) and with a commit per write (maxGroup 1, the
// store before group commit) in the same run.
func BenchmarkConcurrentClaimComplete(b *testing.B) {
	for _, writers := range []int{1, 8, 32} {
		for _, mode := range []struct {
			name     string
			maxGroup int
		}{{"grouped", maxGroup}, {"commit-per-write", 1}} {
			b.Run(fmt.Sprintf("writers=%d/%s", writers, mode.name), func(b *testing.B) {
				benchConcurrentClaimComplete(b, writers, mode.maxGroup)
			})
		}
	}
}

func benchConcurrentClaimComplete(b *testing.B, writers, groupLimit int) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.maxGroup = groupLimit // before the first write: the writer reads it after receiving one
	result := make([]byte, 256)
	fp := []byte("0123456789abcdef0123456789abcdef")
	var (
		next      atomic.Int64
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, b.N)
		wg        sync.WaitGroup
	)
	b.ReportAllocs()
	b.ResetTimer()
	for w := range writers {
		owner := fmt.Sprintf("bench-%d", w)
		wg.Go(func() {
			var mine []time.Duration
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				start := time.Now()
				key := fmt.Sprintf("op-%d", i)
				if err := benchround.Final(ctx, s, key, owner, fp, result); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	b.StopTimer()
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds()), "p99-µs")
}

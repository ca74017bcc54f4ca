package storetest

import (
	"context"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Wire counts what goes over the wire to a store's server: Calls, the
// queries or commands, and Writes, the flushes of a request from client to
// server (each is one round trip). It is a pgx tracer (set
// ConnConfig.Tracer to it and ConnConfig.DialFunc to its Dial) and a
// go-redis hook (Client.AddHook).
type Wire struct{ Calls, Writes atomic.Int64 }

// Reset sets both counts to zero.
func (w *Wire) Reset() { w.Calls.Store(0); w.Writes.Store(0) }

// TraceQueryStart counts a pgx query.
func (w *Wire) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	w.Calls.Add(1)
	return ctx
}

// TraceQueryEnd is part of pgx.QueryTracer.
func (w *Wire) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// Dial dials a TCP connection whose writes count (a pgx DialFunc).
func (w *Wire) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return w.DialHook((&net.Dialer{}).DialContext)(ctx, network, addr)
}

// DialHook makes the connections go-redis dials count their writes.
func (w *Wire) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{conn, w}, nil
	}
}

// ProcessHook counts a go-redis command.
func (w *Wire) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		w.Calls.Add(1)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook counts the commands of a go-redis pipeline.
func (w *Wire) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		w.Calls.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

type countingConn struct {
	net.Conn
	w *Wire
}

func (c countingConn) Write(b []byte) (int, error) {
	c.w.Writes.Add(1)
	return c.Conn.Write(b)
}

// RoundTrip is one path of a store and the most calls and round trips it
// may cost. Setup runs before, uncounted.
type RoundTrip struct {
	What  string
	Max   int64
	Setup func(t testing.TB, s store.Store)
	Run   func(t testing.TB, s store.Store)
}

// ClaimRoundTrips are the paths of Claim, Complete and Release whose cost
// the runtime reports: a final round (Claim+Complete) costs ≤ 2 round
// trips, and every other path one.
func ClaimRoundTrips() []RoundTrip {
	claimIs := func(key, fp, owner string, want store.ClaimStatus) func(testing.TB, store.Store) {
		return func(t testing.TB, s store.Store) {
			t.Helper()
			if st := claim(t, s, key, fp, owner); st != want {
				t.Fatalf("claim = %v, want %v", st, want)
			}
		}
	}
	return []RoundTrip{
		{What: "final round (Claim+Complete)", Max: 2, Run: func(t testing.TB, s store.Store) {
			claimIs("op", "fp", "a", store.Acquired)(t, s)
			if err := s.Complete(context.Background(), "op", "a", make([]byte, 1024), time.Hour); err != nil {
				t.Fatal(err)
			}
		}},
		{What: "Claim → replayed", Max: 1, Run: claimIs("op", "fp", "b", store.Replayed)},
		{What: "Claim → mismatch", Max: 1, Run: claimIs("op", "other", "b", store.Mismatch)},
		{What: "Claim → in-flight", Max: 1,
			Setup: func(t testing.TB, s store.Store) { claim(t, s, "pending", "fp", "a") },
			Run:   claimIs("pending", "fp", "b", store.InFlight)},
		{What: "Release", Max: 1, Run: func(t testing.TB, s store.Store) {
			if err := s.Release(context.Background(), "pending", "a"); err != nil {
				t.Fatal(err)
			}
		}},
	}
}

// CheckRoundTrips runs paths on s in order, counting with w, and fails
// each that costs more than its Max calls or round trips; calls names
// what w.Calls counts ("queries", "commands").
func CheckRoundTrips(t *testing.T, s store.Store, w *Wire, calls string, paths ...[]RoundTrip) {
	t.Helper()
	for _, p := range slices.Concat(paths...) {
		if p.Setup != nil {
			p.Setup(t, s)
		}
		w.Reset()
		p.Run(t, s)
		n, trips := w.Calls.Load(), w.Writes.Load()
		t.Logf("%-32s %s=%d round trips=%d", p.What, calls, n, trips)
		if n > p.Max || trips > p.Max {
			t.Errorf("%s: %d %s, %d round trips; want ≤ %d", p.What, n, calls, trips, p.Max)
		}
	}
}

// claim claims key for owner with a minute's lease and returns the status.
func claim(t testing.TB, s store.Store, key, fp, owner string) store.ClaimStatus {
	t.Helper()
	r, err := s.Claim(context.Background(), store.ClaimRequest{Key: key, Fingerprint: []byte(fp), Owner: owner, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return r.Status
}

package pgstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// testPool returns a pool on the test database (or skips/fails, see
// storetest.PostgresURL), counting traffic into c when c is non-nil.
func testPool(t testing.TB, maxConns int32, c *storetest.Wire, runtimeParams ...map[string]string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = maxConns
	for _, m := range runtimeParams {
		for k, v := range m {
			cfg.ConnConfig.RuntimeParams[k] = v
		}
	}
	if c != nil {
		cfg.ConnConfig.Tracer = c
		cfg.ConnConfig.DialFunc = c.Dial
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newTestStore returns a Store on its own, unique tables, dropped at the
// end of the test.
func newTestStore(t testing.TB, pool *pgxpool.Pool, now func() time.Time) *Store {
	t.Helper()
	prefix := storetest.UniqueName() + "_"
	s, err := New(context.Background(), pool, Options{Options: store.Options{Now: now}, TablePrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		if err := DropTables(context.Background(), pool, prefix); err != nil {
			t.Errorf("drop tables %s*: %v", prefix, err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.PostgresURL(t) // skip (or fail under $CI) once, not per case
	storetest.Run(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		return newTestStore(t, testPool(t, 4, nil), clock.Now)
	})
}

// TestRoundTrips checks the promise the runtime reports: after warm-up
// (pgx caches prepared statements per connection), Claim and Complete are
// one round trip each, so a final round costs ≤ 2.
func TestRoundTrips(t *testing.T) {
	var c storetest.Wire
	pool := testPool(t, 1, &c)
	s := newTestStore(t, pool, nil)
	ctx := context.Background()
	// Warm up: prepare the statements on the single connection (the first
	// use of each costs one extra round trip per connection).
	if _, err := s.Claim(ctx, store.ClaimRequest{Key: "warm", Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, "warm", "a", []byte("r"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, "warm", "a"); err != nil {
		t.Fatal(err)
	}
	storetest.CheckRoundTrips(t, s, &c, "queries", storetest.ClaimRoundTrips())
}

// TestInstancesRace races several Store instances (own pools, as separate
// server processes would have) over one operation on shared tables.
func TestInstancesRace(t *testing.T) {
	const instances, perInstance = 3, 10
	prefix := storetest.UniqueName() + "_"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stores := make([]*Store, instances)
	var wg sync.WaitGroup
	errs := make([]error, instances)
	for i := range instances {
		pool := testPool(t, 4, nil)
		wg.Go(func() { // concurrent schema creation
			stores[i], errs[i] = New(ctx, pool, Options{TablePrefix: prefix})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if err := DropTables(context.Background(), stores[0].Pool(), prefix); err != nil {
			t.Logf("cleanup: %v", err)
		}
	})
	storetest.RaceInstances(t, ctx, stores, perInstance)
}

func TestOpenAndPrefix(t *testing.T) {
	url := storetest.PostgresURL(t)
	ctx := context.Background()
	prefix := storetest.UniqueName() + "_"
	s, err := Open(ctx, url, Options{TablePrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := DropTables(ctx, s.Pool(), prefix); err != nil {
			t.Logf("cleanup: %v", err)
		}
		s.Close()
	}()
	if s.TablePrefix() != prefix {
		t.Fatalf("TablePrefix() = %q", s.TablePrefix())
	}
	// Schema creation is idempotent.
	s2, err := New(ctx, s.Pool(), Options{TablePrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if err := s.Pool().Ping(ctx); err != nil {
		t.Fatalf("closing a store made with New closed the caller's pool: %v", err)
	}
	for _, bad := range []string{"Upper_", "x-y", "x; drop table y", "1x", "x\"y"} {
		if _, err := New(ctx, s.Pool(), Options{TablePrefix: bad}); err == nil {
			t.Errorf("prefix %q accepted", bad)
		}
	}
	if _, err := Open(ctx, "postgres://127.0.0.1:1/none?connect_timeout=1&sslmode=disable", Options{}); err == nil {
		t.Error("Open of an unreachable server succeeded")
	}
}

// BenchmarkClaimComplete measures a final round's store cost. "durable" is
// the default configuration (each commit waits for the WAL flush, so on
// this kind of host the fsync dominates); "async_commit" sets
// synchronous_commit=off on the connections to show the cost without the
// flush wait (not recommended for the store: a database crash could forget
// a completed effect).
func BenchmarkClaimComplete(b *testing.B) {
	for _, c := range []struct {
		name   string
		params map[string]string
	}{
		{"durable", nil},
		{"async_commit", map[string]string{"synchronous_commit": "off"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var cnt storetest.Wire
			pool := testPool(b, 8, &cnt, c.params)
			storetest.BenchFinalRounds(b, newTestStore(b, pool, nil), &cnt)
		})
	}
}

// TestContextWhileLocked: a Claim waiting on a row lock held by another
// transaction gives up when its context ends, and the pool stays usable.
func TestContextWhileLocked(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t, 2, nil)
	s := newTestStore(t, pool, nil)
	req := store.ClaimRequest{Key: "k", Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute}
	if _, err := s.Claim(ctx, req); err != nil {
		t.Fatal(err)
	}
	locker, err := pgx.Connect(ctx, storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM `+s.TablePrefix()+`ops WHERE op_key = 'k' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}

	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	req.Owner = "b"
	_, err = s.Claim(cctx, req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Claim on a locked row = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Claim returned after %v, want soon after the 200ms deadline", d)
	}
	tx.Rollback(ctx)
	if r, err := s.Claim(ctx, req); err != nil || r.Status != store.InFlight {
		t.Fatalf("Claim after the lock was released = %+v, %v; want in-flight", r, err)
	}
}

func TestApprovalConformance(t *testing.T) {
	storetest.PostgresURL(t) // skip (or fail under $CI) once, not per case
	storetest.RunApprovals(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		return newTestStore(t, testPool(t, 8, nil), clock.Now)
	})
}

// TestNewAddsApprovalsToOlderTables starts on tables made before the
// approvals table existed: New creates it, the old records stay.
func TestNewAddsApprovalsToOlderTables(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t, 2, nil)
	s1 := newTestStore(t, pool, nil)
	rec := store.StateRecord{Ref: "r", Workflow: "w", Data: []byte("d")}
	if err := s1.PutState(ctx, rec, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `DROP TABLE `+s1.TablePrefix()+`approvals`); err != nil { // as before approvals
		t.Fatal(err)
	}
	s2, err := New(ctx, pool, Options{TablePrefix: s1.TablePrefix()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.GetState(ctx, "r"); err != nil {
		t.Fatalf("GetState after upgrade: %v", err)
	}
	row := store.ApprovalRow{ID: "a", Digest: "d", Open: true, Data: []byte("x")}
	if err := s2.InsertApproval(ctx, row); err != nil {
		t.Fatal(err)
	}
	if got, err := s2.LoadApproval(ctx, "a"); err != nil || got.Version != 1 || string(got.Data) != "x" {
		t.Fatalf("LoadApproval = %+v, %v", got, err)
	}
}

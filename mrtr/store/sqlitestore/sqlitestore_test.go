package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// newStore opens the conformance suites' stores: each a private in-memory
// database, or (file) a fresh file of its own.
func newStore(file bool) storetest.NewStoreFunc {
	return func(t *testing.T, clock *storetest.Clock) store.Store {
		path := MemoryPath
		if file {
			path = filepath.Join(t.TempDir(), "mrtr.db")
		}
		s, err := Open(context.Background(), path, Options{Options: store.Options{Now: clock.Now}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

func TestConformanceMemory(t *testing.T) { storetest.Run(t, newStore(false)) }
func TestConformanceFile(t *testing.T)   { storetest.Run(t, newStore(true)) }

func TestApprovalConformanceMemory(t *testing.T) { storetest.RunApprovals(t, newStore(false)) }
func TestApprovalConformanceFile(t *testing.T)   { storetest.RunApprovals(t, newStore(true)) }

// reopen closes s and opens its file, path, again (with the default
// options), closing the new store at the end of the test.
func reopen(t *testing.T, s *Store, path string) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenIdempotentSchemaAndPersistence(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	s1, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	req := store.ClaimRequest{Key: "k", Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute}
	if r, err := s1.Claim(ctx, req); err != nil || r.Status != store.Acquired {
		t.Fatalf("Claim = %v, %v", r, err)
	}
	if err := s1.Complete(ctx, "k", "a", []byte("res"), time.Hour); err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := s1.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	// Reopen: the schema exists already, the record survived.
	s2 := reopen(t, s1, path)
	req.Owner = "b"
	if r, err := s2.Claim(ctx, req); err != nil || r.Status != store.Replayed || string(r.Result) != "res" {
		t.Fatalf("after reopen Claim = %+v, %v; want replay of %q", r, err, "res")
	}
	// Another prefix in the same file is a separate namespace.
	s3, err := Open(ctx, path, Options{TablePrefix: "other_"})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if r, err := s3.Claim(ctx, req); err != nil || r.Status != store.Acquired {
		t.Fatalf("other prefix Claim = %+v, %v; want acquired", r, err)
	}
}

func TestInMemoryStoresAreIndependent(t *testing.T) {
	ctx := context.Background()
	a, err := Open(ctx, MemoryPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, MemoryPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	req := store.ClaimRequest{Key: "k", Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute}
	for _, s := range []*Store{a, b} {
		if r, err := s.Claim(ctx, req); err != nil || r.Status != store.Acquired {
			t.Fatalf("Claim = %+v, %v", r, err)
		}
	}
}

func TestOpenRejects(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		path   string
		prefix string
	}{
		{"", ""},
		{"x.db?mode=ro", ""},
		{"file:x.db", ""},
		{MemoryPath, "bad-prefix"},
		{MemoryPath, "x; DROP TABLE y"},
		{MemoryPath, "1abc"},
	} {
		if s, err := Open(ctx, c.path, Options{TablePrefix: c.prefix}); err == nil {
			s.Close()
			t.Errorf("Open(%q, prefix %q) succeeded", c.path, c.prefix)
		}
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "no", "such", "dir", "x.db"), Options{}); err == nil {
		t.Error("Open in a missing directory succeeded")
	}
}

func BenchmarkClaimComplete(b *testing.B) {
	for _, c := range []struct{ name, path string }{
		{"memory", MemoryPath},
		{"file", filepath.Join(b.TempDir(), "bench.db")},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			s, err := Open(ctx, c.path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchFinalRounds(b, s, nil)
		})
	}
}

// TestContextWhileLocked: a Claim waiting for another process's write
// lock gives up when its context ends, not after the busy timeout.
func TestContextWhileLocked(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "locked.db")
	s, err := Open(ctx, path, Options{BusyTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := sql.Open("sqlite", path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.BeginTx(ctx, nil) // holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = s.Claim(cctx, store.ClaimRequest{Key: "k", Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Claim while another connection held the write lock = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Claim returned after %v (%v), want soon after the 200ms deadline", d, err)
	}
	t.Logf("blocked Claim returned after %v: %v", time.Since(start).Round(time.Millisecond), err)
	tx.Rollback()
	// The store still works afterwards.
	if r, err := s.Claim(ctx, store.ClaimRequest{Key: "k", Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute}); err != nil || r.Status != store.Acquired {
		t.Fatalf("Claim after the lock was released = %+v, %v", r, err)
	}
}

// Processes and goroutines that open one new database file at once race
// to create it and switch it to WAL; every Open must succeed.
func TestConcurrentOpensOfANewFile(t *testing.T) {
	for i := range 20 {
		path := filepath.Join(t.TempDir(), "new.db")
		errs := make([]error, 8)
		stores := make([]*Store, 8)
		var wg sync.WaitGroup
		for j := range 8 {
			wg.Go(func() { stores[j], errs[j] = Open(context.Background(), path, Options{}) })
		}
		wg.Wait()
		for j, err := range errs {
			if err != nil {
				t.Fatalf("attempt %d, opener %d: %v", i, j, err)
			}
			stores[j].Close()
		}
	}
}

// TestOpenAddsApprovalsToAnOlderDatabase opens a database made before the
// approvals table existed: Open creates it, the old records stay.
func TestOpenAddsApprovalsToAnOlderDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	s1, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := store.StateRecord{Ref: "r", Workflow: "w", Data: []byte("d")}
	if err := s1.PutState(ctx, rec, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := s1.w.ExecContext(ctx, `DROP TABLE mrtr_approvals`); err != nil { // as before approvals
		t.Fatal(err)
	}
	s2 := reopen(t, s1, path)
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

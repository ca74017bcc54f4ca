package domainopen

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// backend is one implementation of domain.Store.
type backend struct {
	name string
	// service returns the URL of the server to test against (skipping or
	// failing the test when it is unreachable); nil for in-process stores.
	service func(t testing.TB) string
	// location returns the store URL of a fresh, isolated location on it.
	location func(t *testing.T, base string) string
}

func backends() []backend {
	return []backend{
		{name: "memory"},
		{name: "sqlite", location: func(t *testing.T, _ string) string {
			return "sqlite:" + filepath.Join(t.TempDir(), "domain.db")
		}},
		{name: "postgres", service: storetest.PostgresURL, location: func(t *testing.T, base string) string {
			prefix := storetest.UniqueName() + "_"
			t.Cleanup(func() { dropPostgres(t, base, prefix+PostgresTable) })
			return withPrefix(t, base, prefix)
		}},
		{name: "redis", service: storetest.RedisURL, location: func(t *testing.T, base string) string {
			prefix := storetest.UniqueName() + ":"
			t.Cleanup(func() { dropRedis(t, base, prefix) })
			return withPrefix(t, base, prefix)
		}},
	}
}

func withPrefix(t *testing.T, u, prefix string) string {
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	q.Set(PrefixParam, prefix)
	p.RawQuery = q.Encode()
	return p.String()
}

func dropPostgres(t *testing.T, u, table string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Logf("cleanup: %v", err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DROP TABLE IF EXISTS `+table); err != nil {
		t.Logf("cleanup: %v", err)
	}
}

func dropRedis(t *testing.T, u, prefix string) {
	ctx := context.Background()
	opts, err := redis.ParseURL(u)
	if err != nil {
		return
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	iter := rdb.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		rdb.Del(ctx, iter.Val())
	}
}

// opener returns a function opening stores on one fresh location of b:
// all of them see the same data.
func (b backend) opener(t *testing.T, base string) func() domain.Store {
	if b.location == nil {
		m := domain.NewMemory() // one in-process location: share the instance
		return func() domain.Store { return m }
	}
	u := b.location(t, base)
	return func() domain.Store {
		s, err := Open(context.Background(), u)
		if err != nil {
			t.Fatalf("Open(%s): %v", storetest.Redact(u), err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

func TestStores(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			var base string
			if b.service != nil {
				base = b.service(t) // skips (or fails under CI) once per backend
			}
			open := func(t *testing.T) func() domain.Store { return b.opener(t, base) }
			t.Run("get put", func(t *testing.T) { testGetPut(t, open(t)()) })
			t.Run("swap", func(t *testing.T) { testSwap(t, open(t)()) })
			t.Run("incr", func(t *testing.T) { testIncr(t, open(t)()) })
			t.Run("racing swaps", func(t *testing.T) { testRacingSwaps(t, open(t)()) })
			t.Run("concurrent updates", func(t *testing.T) {
				o := open(t)
				testConcurrentUpdates(t, o(), o())
			})
			t.Run("seed", func(t *testing.T) {
				o := open(t)
				testSeed(t, o(), o())
			})
		})
	}
}

func testGetPut(t *testing.T, s domain.Store) {
	ctx := context.Background()
	if _, ok, err := s.Get(ctx, "nothing"); err != nil || ok {
		t.Fatalf("Get of a missing key: ok=%v err=%v", ok, err)
	}
	if err := s.Put(ctx, "k", "v1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "k", "v2"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Get(ctx, "k"); err != nil || !ok || v != "v2" {
		t.Fatalf("Get = %q, %v, %v; want v2", v, ok, err)
	}
	for _, kv := range [][2]string{{"", "v"}, {"k", ""}} {
		if err := s.Put(ctx, kv[0], kv[1]); !errors.Is(err, domain.ErrEmpty) {
			t.Fatalf("Put(%q, %q) = %v, want domain.ErrEmpty", kv[0], kv[1], err)
		}
	}
}

func testSwap(t *testing.T, s domain.Store) {
	ctx := context.Background()
	swap := func(old, value, counter string, want bool) {
		t.Helper()
		got, err := s.Swap(ctx, "rec", old, value, counter)
		if err != nil || got != want {
			t.Fatalf("Swap(%q → %q) = %v, %v; want %v", old, value, got, err, want)
		}
	}
	swap("", "a", "", true)      // insert if absent
	swap("", "b", "cnt", false)  // present: no insert, no count
	swap("x", "b", "cnt", false) // wrong old value
	swap("a", "b", "cnt", true)  // the change, counted
	swap("b", "c", "", true)     // uncounted change
	swap("a", "d", "cnt", false) // stale old value
	if v, _, _ := s.Get(ctx, "rec"); v != "c" {
		t.Fatalf("value %q, want c", v)
	}
	if n, err := domain.Count(ctx, s, "cnt"); err != nil || n != 1 {
		t.Fatalf("counter %d, %v; want 1", n, err)
	}
}

func testIncr(t *testing.T, s domain.Store) {
	ctx := context.Background()
	if n, err := s.Incr(ctx, "c", 5); err != nil || n != 5 {
		t.Fatalf("Incr = %d, %v; want 5", n, err)
	}
	if n, err := s.Incr(ctx, "c", -2); err != nil || n != 3 {
		t.Fatalf("Incr = %d, %v; want 3", n, err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 25 {
				if _, err := s.Incr(ctx, "c", 1); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n, err := domain.Count(ctx, s, "c"); err != nil || n != 203 {
		t.Fatalf("after 200 concurrent increments: %d, %v; want 203", n, err)
	}
}

// testRacingSwaps: of many swaps from the same old value, exactly one wins
// and is counted once.
func testRacingSwaps(t *testing.T, s domain.Store) {
	ctx := context.Background()
	if err := s.Put(ctx, "r", "start"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 12 {
		wg.Go(func() {
			ok, err := s.Swap(ctx, "r", "start", fmt.Sprintf("by-%d", i), "won")
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if n, _ := domain.Count(ctx, s, "won"); wins != 1 || n != 1 {
		t.Fatalf("%d swaps won, counter %d; want exactly 1", wins, n)
	}
}

// testConcurrentUpdates runs read-modify-write updates from two stores on
// the same location: none is lost, each is counted once.
func testConcurrentUpdates(t *testing.T, a, b domain.Store) {
	ctx := context.Background()
	type rec struct{ N int }
	if err := domain.Save(ctx, a, "shared", rec{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 6 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for range 10 {
				if err := domain.Update(ctx, s, "shared", "updates", func(r *rec) error { r.N++; return nil }); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, ok, err := domain.Load[rec](ctx, b, "shared")
	if err != nil || !ok || got.N != 60 {
		t.Fatalf("after 60 updates: %+v, %v, %v", got, ok, err)
	}
	if n, _ := domain.Count(ctx, a, "updates"); n != 60 {
		t.Fatalf("counter %d, want 60", n)
	}
	// An update that refuses, or finds nothing to do, changes nothing.
	refuse := errors.New("no")
	if err := domain.Update(ctx, a, "shared", "updates", func(r *rec) error { r.N = -1; return refuse }); !errors.Is(err, refuse) {
		t.Fatalf("refused update: %v", err)
	}
	if err := domain.Update(ctx, a, "shared", "updates", func(r *rec) error { r.N = -1; return domain.ErrUnchanged }); err != nil {
		t.Fatalf("unchanged update: %v", err)
	}
	if err := domain.Update(ctx, a, "missing", "", func(r *rec) error { return nil }); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("update of a missing record: %v", err)
	}
	if got, _, _ := domain.Load[rec](ctx, a, "shared"); got.N != 60 {
		t.Fatalf("refused updates changed the record: %+v", got)
	}
	if n, _ := domain.Count(ctx, a, "updates"); n != 60 {
		t.Fatalf("refused updates were counted: %d", n)
	}
}

// testSeed: seeding twice (two instances starting) keeps changes made in
// between.
func testSeed(t *testing.T, a, b domain.Store) {
	ctx := context.Background()
	if err := domain.Seed(ctx, a); err != nil {
		t.Fatal(err)
	}
	err := domain.Update(ctx, a, domain.TicketKey("12345"), domain.EffectKey("close_support_ticket", "12345"), func(tk *domain.Ticket) error {
		tk.Status = "closed"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := domain.Seed(ctx, b); err != nil {
		t.Fatal(err)
	}
	tk, ok, err := domain.Load[domain.Ticket](ctx, b, domain.TicketKey("12345"))
	if err != nil || !ok || tk.Status != "closed" || tk.Subject == "" {
		t.Fatalf("ticket after a second seed: %+v, %v, %v", tk, ok, err)
	}
	if n, _ := domain.Effects(ctx, b, "close_support_ticket", "12345"); n != 1 {
		t.Fatalf("effects %d, want 1", n)
	}
	for _, key := range []string{domain.CustomerKey("cus_acme01"), domain.InvoiceKey("inv_1001"), domain.TeamKey("demo-team")} {
		if _, ok, err := b.Get(ctx, key); err != nil || !ok {
			t.Fatalf("%s not seeded: %v", key, err)
		}
	}
}

// TestSQLiteBesideMRTRStore: the domain table lives in the mrtr store's
// SQLite file, both written at once.
func TestSQLiteBesideMRTRStore(t *testing.T) {
	ctx := context.Background()
	u := "sqlite:" + filepath.Join(t.TempDir(), "both.db")
	ms, err := storeopen.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	ds, err := Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 50 {
			key := fmt.Sprintf("op-%d", i)
			if _, err := ms.Claim(ctx, store.ClaimRequest{Key: key, Fingerprint: []byte{1}, Owner: "o", Lease: time.Minute}); err != nil {
				t.Error(err)
				return
			}
			if err := ms.Complete(ctx, key, "o", []byte("ok"), time.Hour); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() {
		for range 50 {
			if _, err := ds.Incr(ctx, "n", 1); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	if n, _ := domain.Count(ctx, ds, "n"); n != 50 {
		t.Fatalf("counter %d, want 50", n)
	}
}

func TestOpenURLs(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []string{"nothing", "memory:x", "sqlite:", "ftp://host", "sqlite:a.db?mode=ro"} {
		if s, err := Open(ctx, bad); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
	s, err := Open(ctx, "sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testGetPut(t, s)
	if _, err := OpenPostgres(ctx, "postgres://127.0.0.1:1/x", "Bad-Prefix"); err == nil {
		t.Error("OpenPostgres accepted an invalid table prefix")
	}
}

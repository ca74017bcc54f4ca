package redistasks_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/closetest"
	"github.com/mrtrgen/mrtrgen/mrtr/store/redisstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/redistasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// client returns a client of the test Redis, counting into w if it is not
// nil.
func client(t testing.TB, w *storetest.Wire) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(storetest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	if w != nil {
		rdb.AddHook(w)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// uniquePrefix returns a fresh key prefix whose keys are deleted at the end
// of the test.
func uniquePrefix(t testing.TB, rdb *redis.Client) string {
	prefix := "mrtrtest:" + storetest.UniqueName() + ":"
	t.Cleanup(func() {
		if _, err := redisstore.DeleteKeys(context.Background(), rdb, prefix); err != nil {
			t.Errorf("delete keys %s*: %v", prefix, err)
		}
	})
	return prefix
}

func newStore(t testing.TB, rdb *redis.Client, now func() time.Time) *redistasks.Store {
	t.Helper()
	s, err := redistasks.New(context.Background(), rdb, redistasks.Options{KeyPrefix: uniquePrefix(t, rdb), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	rdb := client(t, nil)
	taskstest.Run(t, func(t *testing.T, now func() time.Time) tasks.Store {
		return newStore(t, rdb, now)
	}, taskstest.Options{ExpiresItself: true})
}

// TestKeyExpiresAtExpiresAt: Redis drops a task's key at its ExpiresAt
// (by the store's clock), so nothing needs sweeping.
func TestKeyExpiresAtExpiresAt(t *testing.T) {
	rdb := client(t, nil)
	clock := storetest.NewClock() // far from the wall clock: the TTL is relative
	prefix := uniquePrefix(t, rdb)
	ctx := context.Background()
	s, err := redistasks.New(ctx, rdb, redistasks.Options{KeyPrefix: prefix, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	rec := &tasks.Record{ID: "ttl", UpdatedAt: clock.Now(), TTL: time.Hour}
	if err := s.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	check := func(want time.Duration) {
		t.Helper()
		got, err := rdb.PTTL(ctx, prefix+"task:ttl").Result()
		if err != nil || got > want || got < want-5*time.Second {
			t.Fatalf("key's TTL %v, %v; want about %v", got, err, want)
		}
	}
	check(time.Hour)
	clock.Advance(30 * time.Minute)
	if _, err := s.Update(ctx, "ttl", func(r *tasks.Record) error { r.UpdatedAt = clock.Now().Add(time.Hour); return nil }); err != nil {
		t.Fatal(err)
	}
	check(2 * time.Hour)
}

// TestRoundTrips pins the per-call costs the package doc states.
func TestRoundTrips(t *testing.T) {
	var w storetest.Wire
	rdb := client(t, &w)
	s := newStore(t, rdb, nil)
	ctx := context.Background()
	rec := &tasks.Record{ID: "rt", UpdatedAt: time.Now(), TTL: time.Hour}
	ops := []struct {
		name string
		want int64 // round trips
		run  func() error
	}{
		{"Create", 1, func() error { return s.Create(ctx, rec) }},
		{"Get", 1, func() error { _, err := s.Get(ctx, "rt"); return err }},
		{"Update", 2, func() error { _, err := s.Update(ctx, "rt", func(*tasks.Record) error { return nil }); return err }},
		{"Sweep", 0, func() error { _, err := s.Sweep(ctx, time.Now()); return err }},
	}
	for _, op := range ops {
		w.Reset()
		if err := op.run(); err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		if got := w.Writes.Load(); got != op.want {
			t.Errorf("%s took %d round trips, want %d", op.name, got, op.want)
		}
	}
}

// TestContention: an Update whose record changes between its read and its
// write tries again on the newer record, and one that runs out of
// attempts returns ErrContention and changes nothing.
func TestContention(t *testing.T) {
	rdb := client(t, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		attempts int
		wantErr  error
		want     []string // the record's keys afterwards
	}{
		{1, redistasks.ErrContention, []string{"meanwhile"}},
		{2, nil, []string{"meanwhile", "mine"}},
	} {
		s, err := redistasks.New(ctx, rdb, redistasks.Options{KeyPrefix: uniquePrefix(t, rdb), MaxAttempts: tc.attempts})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Create(ctx, &tasks.Record{ID: "c", UpdatedAt: time.Now(), TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
		runs := 0
		_, err = s.Update(ctx, "c", func(r *tasks.Record) error {
			runs++
			if runs == 1 { // another instance writes between our read and write
				if _, err := s.Update(ctx, "c", func(r *tasks.Record) error {
					r.UsedKeys = append(r.UsedKeys, "meanwhile")
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			r.UsedKeys = append(r.UsedKeys, "mine")
			return nil
		})
		if !errors.Is(err, tc.wantErr) {
			t.Fatalf("MaxAttempts %d: err %v, want %v", tc.attempts, err, tc.wantErr)
		}
		rec, err := s.Get(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rec.UsedKeys, tc.want) {
			t.Fatalf("MaxAttempts %d: keys %v, want %v", tc.attempts, rec.UsedKeys, tc.want)
		}
	}
}

func BenchmarkStore(b *testing.B) {
	taskstest.Bench(b, newStore(b, client(b, nil), nil))
}

// TestInstances: servers with a client each on one key prefix answer for
// each other's tasks.
func TestInstances(t *testing.T) {
	prefix := uniquePrefix(t, client(t, nil))
	taskstest.RunInstances(t, func(t *testing.T) tasks.Store {
		s, err := redistasks.Open(context.Background(), storetest.RedisURL(t), redistasks.Options{KeyPrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		closetest.AtEnd(t, s)
		return s
	})
}

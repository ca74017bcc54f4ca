package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// testClient returns a client of the test Redis (or skips/fails, see
// storetest.RedisURL), counting into c when c is non-nil.
func testClient(t testing.TB, c *storetest.Wire) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(storetest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	opts.PoolSize = 8
	rdb := redis.NewClient(opts)
	if c != nil {
		rdb.AddHook(c)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// newTestStore returns a Store under a unique key prefix whose keys are
// deleted at the end of the test.
func newTestStore(t testing.TB, rdb *redis.Client, now func() time.Time) *Store {
	t.Helper()
	prefix := "mrtrtest:" + storetest.UniqueName() + ":"
	s, err := New(context.Background(), rdb, Options{Options: store.Options{Now: now}, KeyPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		if _, err := DeleteKeys(context.Background(), rdb, prefix); err != nil {
			t.Errorf("delete keys %s*: %v", prefix, err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.RedisURL(t) // skip (or fail under $CI) once, not per case
	storetest.Run(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		return newTestStore(t, testClient(t, nil), clock.Now)
	})
}

// TestRoundTrips checks that Claim and Complete are one round trip each,
// so a final round costs ≤ 2, and that every other path is one too.
func TestRoundTrips(t *testing.T) {
	var c storetest.Wire
	rdb := testClient(t, &c)
	s := newTestStore(t, rdb, nil)
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil { // dial and handshake now
		t.Fatal(err)
	}
	rec := store.StateRecord{Ref: "r", Workflow: "w", Data: []byte("d")}
	states := []storetest.RoundTrip{
		{What: "PutState", Max: 1, Run: func(t testing.TB, s store.Store) {
			if err := s.PutState(ctx, rec, time.Hour); err != nil {
				t.Fatal(err)
			}
		}},
		{What: "GetState", Max: 1, Run: func(t testing.TB, s store.Store) {
			if _, err := s.GetState(ctx, "r"); err != nil {
				t.Fatal(err)
			}
		}},
		{What: "DeleteWorkflowStates", Max: 1, Run: func(t testing.TB, s store.Store) {
			if err := s.DeleteWorkflowStates(ctx, "w"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	storetest.CheckRoundTrips(t, s, &c, "commands", storetest.ClaimRoundTrips(), states)
}

// TestKeysHaveBackstopTTL checks that every key Redis holds for the store
// expires on its own (no record is kept forever even without sweeping).
func TestKeysHaveBackstopTTL(t *testing.T) {
	rdb := testClient(t, nil)
	s := newTestStore(t, rdb, nil)
	ctx := context.Background()
	if _, err := s.Claim(ctx, store.ClaimRequest{Key: "pending", Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, store.ClaimRequest{Key: "done", Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, "done", "a", []byte("x"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.PutState(ctx, store.StateRecord{Ref: "r", Workflow: "w"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	for key, max := range map[string]time.Duration{
		s.opKey("pending"): time.Minute + store.DefaultAbandonAfter + time.Hour,
		s.opKey("done"):    time.Hour + time.Hour,
		s.stateKey("r"):    time.Minute + time.Hour,
		s.workflowKey("w"): time.Minute + time.Hour,
	} {
		ttl, err := rdb.PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if ttl <= 0 || ttl > max {
			t.Errorf("PTTL(%s) = %v, want in (0, %v]", key, ttl, max)
		}
	}
}

// TestInstancesRace races several Store instances (own clients, as
// separate server processes would have) over one operation.
func TestInstancesRace(t *testing.T) {
	const instances, perInstance = 3, 10
	prefix := "mrtrtest:" + storetest.UniqueName() + ":"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stores := make([]*Store, instances)
	for i := range instances {
		var err error
		stores[i], err = New(ctx, testClient(t, nil), Options{KeyPrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if _, err := DeleteKeys(context.Background(), stores[0].Client(), prefix); err != nil {
			t.Logf("cleanup: %v", err)
		}
	})
	storetest.RaceInstances(t, ctx, stores, perInstance)
}

func TestDeleteKeysEscapesPattern(t *testing.T) {
	rdb := testClient(t, nil)
	ctx := context.Background()
	base := "mrtrtest:" + storetest.UniqueName()
	for _, k := range []string{base + ":a*:1", base + ":ab:1", base + ":a?:1"} {
		if err := rdb.Set(ctx, k, "v", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if _, err := DeleteKeys(ctx, rdb, base+":"); err != nil {
			t.Logf("cleanup: %v", err)
		}
	})
	n, err := DeleteKeys(ctx, rdb, base+":a*")
	if err != nil || n != 1 {
		t.Fatalf("DeleteKeys(%q) = %d, %v; want 1 (only the literal match)", base+":a*", n, err)
	}
	if _, err := DeleteKeys(ctx, rdb, ""); err == nil {
		t.Fatal("DeleteKeys with an empty prefix succeeded")
	}
}

func BenchmarkClaimComplete(b *testing.B) {
	var c storetest.Wire
	rdb := testClient(b, &c)
	storetest.BenchFinalRounds(b, newTestStore(b, rdb, nil), &c)
}

func TestApprovalConformance(t *testing.T) {
	storetest.RedisURL(t) // skip (or fail under $CI) once, not per case
	storetest.RunApprovals(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		return newTestStore(t, testClient(t, nil), clock.Now)
	})
}

// TestApprovalKeys checks the keys of approval records: a record with a
// KeepUntil and its digest pointer expire on their own (the backstop past
// KeepUntil), a record without one never does, and Sweep leaves no index
// entry of a record it deleted behind.
func TestApprovalKeys(t *testing.T) {
	rdb := testClient(t, nil)
	clock := storetest.NewClock()
	s := newTestStore(t, rdb, clock.Now)
	ctx := context.Background()
	ttl := func(key string) time.Duration {
		t.Helper()
		d, err := rdb.PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	kept := store.ApprovalRow{ID: "kept", Digest: "d1", Open: true, Due: clock.Now().Add(time.Minute),
		KeepUntil: clock.Now().Add(time.Hour), Data: []byte("x")}
	if err := s.InsertApproval(ctx, kept); err != nil {
		t.Fatal(err)
	}
	forever := store.ApprovalRow{ID: "forever", Digest: "d2", Open: true, Data: []byte("y")}
	if err := s.InsertApproval(ctx, forever); err != nil {
		t.Fatal(err)
	}
	maxTTL := time.Hour + time.Hour // KeepUntil - now + Backstop
	for _, key := range []string{s.approvalKey("kept"), s.digestKey("d1")} {
		if d := ttl(key); d <= 0 || d > maxTTL {
			t.Errorf("PTTL(%s) = %v, want in (0, %v]", key, d, maxTTL)
		}
	}
	for _, key := range []string{s.approvalKey("forever"), s.digestKey("d2")} {
		if d := ttl(key); d != -1 {
			t.Errorf("PTTL(%s) = %v, want -1 (no TTL)", key, d)
		}
	}
	// A replace moves the TTL with KeepUntil, or removes it.
	forever.Version, forever.KeepUntil = 1, clock.Now().Add(2*time.Hour)
	if _, err := s.ReplaceApproval(ctx, forever); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{s.approvalKey("forever"), s.digestKey("d2")} {
		if d := ttl(key); d <= time.Hour || d > 3*time.Hour {
			t.Errorf("after replace PTTL(%s) = %v, want in (1h, 3h]", key, d)
		}
	}
	forever.Version, forever.KeepUntil = 2, time.Time{}
	if _, err := s.ReplaceApproval(ctx, forever); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{s.approvalKey("forever"), s.digestKey("d2")} {
		if d := ttl(key); d != -1 {
			t.Errorf("after replace PTTL(%s) = %v, want -1", key, d)
		}
	}

	clock.Advance(time.Hour)
	if n, err := s.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	for _, key := range []string{s.approvalKey("kept"), s.digestKey("d1")} {
		if n, err := rdb.Exists(ctx, key).Result(); err != nil || n != 0 {
			t.Errorf("after Sweep EXISTS %s = %d, %v; want 0", key, n, err)
		}
	}
	if n, err := rdb.ZScore(ctx, s.dueKey(), "kept").Result(); err == nil {
		t.Errorf("after Sweep apdue still holds kept (score %v)", n)
	}
	// The pointer of a digest whose latest record is another is left alone.
	old := store.ApprovalRow{ID: "old", Digest: "d3", KeepUntil: clock.Now().Add(time.Minute)}
	newer := store.ApprovalRow{ID: "newer", Digest: "d3", Open: true}
	for _, r := range []store.ApprovalRow{old, newer} {
		if err := s.InsertApproval(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Minute)
	if n, err := s.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	if got, err := s.LatestApproval(ctx, "d3"); err != nil || got.ID != "newer" {
		t.Fatalf("LatestApproval(d3) = %+v, %v; want newer", got, err)
	}
}

// TestApprovalRoundTrips: every approval call is one round trip.
func TestApprovalRoundTrips(t *testing.T) {
	var c storetest.Wire
	rdb := testClient(t, &c)
	s := newTestStore(t, rdb, nil)
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	row := store.ApprovalRow{ID: "a", Digest: "d", Open: true, Due: time.Now(), Data: []byte("x")}
	one := func(what string, run func() error) storetest.RoundTrip {
		return storetest.RoundTrip{What: what, Max: 1, Run: func(t testing.TB, _ store.Store) {
			if err := run(); err != nil {
				t.Fatal(err)
			}
		}}
	}
	storetest.CheckRoundTrips(t, s, &c, "commands", []storetest.RoundTrip{
		one("InsertApproval", func() error { return s.InsertApproval(ctx, row) }),
		one("LoadApproval", func() error { _, err := s.LoadApproval(ctx, "a"); return err }),
		one("LatestApproval", func() error { _, err := s.LatestApproval(ctx, "d"); return err }),
		one("ReplaceApproval", func() error { row.Version = 1; _, err := s.ReplaceApproval(ctx, row); return err }),
		one("DueApprovals", func() error { _, err := s.DueApprovals(ctx, time.Now(), 10); return err }),
	})
}

package pgtasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/pgtasks"
)

// TestRoundTrips pins the per-call costs the package doc states, on one
// connection whose statements are already prepared.
func TestRoundTrips(t *testing.T) {
	cfg, err := pgxpool.ParseConfig(storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	var w storetest.Wire // counts the client's writes: one a round trip
	cfg.ConnConfig.DialFunc = w.Dial
	cfg.MaxConns = 1
	ctx := context.Background()
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close) // after the table is dropped
	s, err := pgtasks.New(ctx, p, pgtasks.Options{TablePrefix: uniquePrefix(t, p)})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(id string) *tasks.Record { return &tasks.Record{ID: id, UpdatedAt: time.Now(), TTL: time.Hour} }
	noop := func(*tasks.Record) error { return nil }
	ops := []struct {
		name string
		want int64 // round trips
		run  func(i int) error
	}{
		{"Create", 1, func(i int) error { return s.Create(ctx, rec(string(rune('a'+i)))) }},
		{"Get", 1, func(int) error { _, err := s.Get(ctx, "a"); return err }},
		{"Update", 2, func(int) error { _, err := s.Update(ctx, "a", noop); return err }},
	}
	for _, op := range ops {
		if err := op.run(0); err != nil { // prepares the statements
			t.Fatalf("%s: %v", op.name, err)
		}
		w.Reset()
		if err := op.run(1); err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		if got := w.Writes.Load(); got != op.want {
			t.Errorf("%s took %d round trips, want %d", op.name, got, op.want)
		}
	}
}

package pgtasks_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/pgtasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// pool returns a pool on the test database, closed at the end of the test.
func pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(context.Background(), storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// uniquePrefix returns a fresh table prefix whose table is dropped at the
// end of the test.
func uniquePrefix(t testing.TB, p *pgxpool.Pool) string {
	prefix := storetest.UniqueName() + "_"
	t.Cleanup(func() {
		if _, err := p.Exec(context.Background(), `DROP TABLE IF EXISTS `+prefix+`tasks`); err != nil {
			t.Errorf("drop %stasks: %v", prefix, err)
		}
	})
	return prefix
}

func TestConformance(t *testing.T) {
	p := pool(t)
	taskstest.Run(t, func(t *testing.T, now func() time.Time) tasks.Store {
		s, err := pgtasks.New(context.Background(), p, pgtasks.Options{TablePrefix: uniquePrefix(t, p), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, taskstest.Options{})
}

// TestConcurrentOpen: instances that start together create the table once
// and none fails.
func TestConcurrentOpen(t *testing.T) {
	p := pool(t)
	prefix := uniquePrefix(t, p)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, errs[i] = pgtasks.New(context.Background(), p, pgtasks.Options{TablePrefix: prefix}) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestInvalidPrefix(t *testing.T) {
	for _, prefix := range []string{"Upper_", "semi;colon", "1digit", strings.Repeat("a", 42)} {
		if _, err := pgtasks.New(context.Background(), nil, pgtasks.Options{TablePrefix: prefix}); err == nil ||
			!strings.Contains(err.Error(), "invalid table prefix") {
			t.Errorf("prefix %q: err %v, want invalid table prefix", prefix, err)
		}
	}
}

func BenchmarkStore(b *testing.B) {
	p := pool(b)
	s, err := pgtasks.New(context.Background(), p, pgtasks.Options{TablePrefix: uniquePrefix(b, p)})
	if err != nil {
		b.Fatal(err)
	}
	taskstest.Bench(b, s)
}

// TestInstances: servers with a pool each on one table answer for each
// other's tasks.
func TestInstances(t *testing.T) {
	u := storetest.PostgresURL(t)
	prefix := uniquePrefix(t, pool(t))
	taskstest.RunInstances(t, func(t *testing.T) tasks.Store {
		s, err := pgtasks.Open(context.Background(), u, pgtasks.Options{TablePrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	})
}

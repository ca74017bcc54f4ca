package sqlitetasks_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/closetest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/sqlitestore"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/sqlitetasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

func open(t testing.TB, path string, now func() time.Time) *sqlitetasks.Store {
	t.Helper()
	s, err := sqlitetasks.Open(context.Background(), path, sqlitetasks.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	closetest.AtEnd(t, s)
	return s
}

func TestConformanceFile(t *testing.T) {
	taskstest.Run(t, func(t *testing.T, now func() time.Time) tasks.Store {
		return open(t, filepath.Join(t.TempDir(), "tasks.db"), now)
	}, taskstest.Options{})
}

func TestConformanceMemory(t *testing.T) {
	taskstest.Run(t, func(t *testing.T, now func() time.Time) tasks.Store {
		return open(t, sqlitetasks.MemoryPath, now)
	}, taskstest.Options{})
}

// TestConformanceNew runs the suite on a database the caller opened with
// the driver's defaults (DEFERRED transactions) and a pool of connections:
// Update must still be atomic.
func TestConformanceNew(t *testing.T) {
	taskstest.Run(t, func(t *testing.T, now func() time.Time) tasks.Store {
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "shared.db")+
			"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := sqlitetasks.New(context.Background(), db, sqlitetasks.Options{Now: now, TablePrefix: "app_"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}, taskstest.Options{})
}

// TestProcessesShareTasks: two Stores on one file stand for two processes
// (each has its own write connection); their concurrent Updates of one
// task lose none, and a task outlives the Store that created it.
func TestProcessesShareTasks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	ctx := context.Background()
	a, b := open(t, path, nil), open(t, path, nil)
	if err := a.Create(ctx, &tasks.Record{ID: "shared", UpdatedAt: time.Now(), TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	const n = 80
	var want []string
	var wg sync.WaitGroup
	errs := make([]error, 2*n)
	for i := range 2 * n {
		s := a
		if i%2 == 1 {
			s = b
		}
		key := fmt.Sprintf("k%03d", i)
		want = append(want, key)
		wg.Go(func() {
			_, errs[i] = s.Update(ctx, "shared", func(r *tasks.Record) error {
				r.UsedKeys = append(r.UsedKeys, key)
				return nil
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := b.Get(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rec.UsedKeys)
	if !slices.Equal(rec.UsedKeys, want) {
		t.Fatalf("lost %d of %d updates", len(want)-len(rec.UsedKeys), len(want))
	}
}

func TestInvalidOptions(t *testing.T) {
	ctx := context.Background()
	for _, prefix := range []string{"semi;colon", "1digit", "with space", strings.Repeat("a", 42)} {
		if _, err := sqlitetasks.Open(ctx, sqlitetasks.MemoryPath, sqlitetasks.Options{TablePrefix: prefix}); err == nil ||
			!strings.Contains(err.Error(), "invalid table prefix") {
			t.Errorf("prefix %q: err %v, want invalid table prefix", prefix, err)
		}
	}
	for _, path := range []string{"", "x.db?mode=ro", "file:x.db"} {
		if _, err := sqlitetasks.Open(ctx, path, sqlitetasks.Options{}); err == nil {
			t.Errorf("Open(%q) succeeded", path)
		}
	}
}

func BenchmarkStore(b *testing.B) {
	for _, path := range []string{sqlitetasks.MemoryPath, filepath.Join(b.TempDir(), "tasks.db")} {
		b.Run(filepath.Base(path), func(b *testing.B) {
			taskstest.Bench(b, open(b, path, nil))
		})
	}
}

// TestInstances: servers that open one file answer for each other's tasks.
func TestInstances(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	taskstest.RunInstances(t, func(t *testing.T) tasks.Store { return open(t, path, nil) })
}

// TestOneFileWithSqlitestore: the mrtr store and the tasks live in one
// file, each in its own tables, through the caller's *sql.DB for the tasks.
func TestOneFileWithSqlitestore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "app.db")
	st, err := sqlitestore.Open(ctx, path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ts, err := sqlitetasks.New(ctx, db, sqlitetasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	ref := strings.Repeat("r", 22)
	if err := st.PutState(ctx, store.StateRecord{Ref: ref, Workflow: "w", Data: []byte("d")}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := ts.Create(ctx, &tasks.Record{ID: "t", UpdatedAt: time.Now(), TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetState(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Get(ctx, "t"); err != nil {
		t.Fatal(err)
	}
}

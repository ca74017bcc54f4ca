package backends_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/examples/server/backends"
)

// TestEmbeddedRefusesFleetStores: the quick-start build names the command
// that opens a PostgreSQL or Redis URL, and never repeats the URL's
// password.
func TestEmbeddedRefusesFleetStores(t *testing.T) {
	ctx := context.Background()
	set := backends.Embedded
	for _, u := range []string{"postgres://app:s3cret@db:5432/app", "redis://:s3cret@127.0.0.1:6379/0", "ftp://x:s3cret@h"} {
		errs := map[string]error{}
		if _, err := set.Store(ctx, u); err != nil {
			errs["store"] = err
		}
		if _, err := set.Data(ctx, u); err != nil {
			errs["data"] = err
		}
		if _, err := set.Tasks(ctx, u, backends.TaskOptions{}); err != nil {
			errs["tasks"] = err
		}
		for _, what := range []string{"store", "data", "tasks"} {
			err := errs[what]
			switch {
			case err == nil:
				t.Errorf("%s %s: opened", what, u)
			case strings.Contains(err.Error(), "s3cret"):
				t.Errorf("%s %s: the error repeats the password: %v", what, u, err)
			case !strings.HasPrefix(u, "ftp") && !strings.Contains(err.Error(), backends.FleetCommand):
				t.Errorf("%s %s: the error does not name the fleet build: %v", what, u, err)
			}
		}
	}
}

// TestEmbeddedOnSQLite: one SQLite file holds the mrtr store, the business
// data and the tasks; the tasks' steps run in process (no River linked).
func TestEmbeddedOnSQLite(t *testing.T) {
	ctx := context.Background()
	u := "sqlite:" + filepath.Join(t.TempDir(), "quick.db")
	set := backends.Embedded
	st, err := set.Store(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	data, err := set.Data(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	if err := data.Put(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := data.Get(ctx, "k"); err != nil || !ok || v != "v" {
		t.Fatalf("Get = %q, %v, %v", v, ok, err)
	}
	tb, err := set.Tasks(ctx, u, backends.TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if tb.Name != "sqlite" || tb.Store == nil || tb.Durable() {
		t.Fatalf("tasks on a SQLite file: %q, store %v, durable %v; want sqlite, a store, in process", tb.Name, tb.Store, tb.Durable())
	}
	mem, err := set.Tasks(ctx, "memory:", backends.TaskOptions{})
	if err != nil || mem.Name != "memory" || mem.Store != nil || mem.Close() != nil {
		t.Fatalf("tasks on memory: %+v, %v", mem, err)
	}
}

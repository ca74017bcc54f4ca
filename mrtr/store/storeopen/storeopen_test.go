package storeopen

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/pgstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/redisstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/sqlitestore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// smoke runs one final round and a replay on s.
func smoke(t *testing.T, s store.Store) {
	t.Helper()
	ctx := context.Background()
	req := store.ClaimRequest{Key: "smoke", Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute}
	if r, err := s.Claim(ctx, req); err != nil || r.Status != store.Acquired {
		t.Fatalf("Claim = %+v, %v", r, err)
	}
	if err := s.Complete(ctx, "smoke", "a", []byte("ok"), time.Minute); err != nil {
		t.Fatal(err)
	}
	req.Owner = "b"
	if r, err := s.Claim(ctx, req); err != nil || r.Status != store.Replayed || string(r.Result) != "ok" {
		t.Fatalf("replay Claim = %+v, %v", r, err)
	}
	// Open returns the backend's own type: it keeps approvals too.
	as, ok := s.(store.ApprovalStore)
	if !ok {
		t.Fatalf("%T is not a store.ApprovalStore", s)
	}
	row := store.ApprovalRow{ID: "smoke", Digest: "smoke", Open: true, Data: []byte("x")}
	if err := as.InsertApproval(ctx, row); err != nil {
		t.Fatal(err)
	}
	if got, err := as.LoadApproval(ctx, "smoke"); err != nil || got.Version != 1 || string(got.Data) != "x" {
		t.Fatalf("LoadApproval = %+v, %v", got, err)
	}
}

func open(t *testing.T, u string) store.Store {
	t.Helper()
	s, err := Open(context.Background(), u)
	if err != nil {
		t.Fatalf("Open(%q): %v", storetest.Redact(u), err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenEmbedded(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		url  string
		want any
	}{
		{"memory:", &store.Memory{}},
		{"sqlite::memory:", &sqlitestore.Store{}},
		{"sqlite:" + filepath.Join(dir, "a.db"), &sqlitestore.Store{}},
		{"sqlite://" + filepath.Join(dir, "b.db"), &sqlitestore.Store{}},
	} {
		t.Run(c.url, func(t *testing.T) {
			s := open(t, c.url)
			if got, want := typeName(s), typeName(c.want); got != want {
				t.Fatalf("Open(%q) is a %s, want %s", c.url, got, want)
			}
			smoke(t, s)
		})
	}
	// The file was created where the URL said.
	s := open(t, "sqlite:"+filepath.Join(dir, "a.db"))
	r, err := s.Claim(context.Background(), store.ClaimRequest{Key: "smoke", Fingerprint: []byte("fp"), Owner: "c", Lease: time.Minute})
	if err != nil || r.Status != store.Replayed {
		t.Fatalf("reopened file: Claim = %+v, %v", r, err)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *store.Memory:
		return "memory"
	case *sqlitestore.Store:
		return "sqlite"
	case *pgstore.Store:
		return "postgres"
	case *redisstore.Store:
		return "redis"
	}
	return "unknown"
}

func TestOpenPostgres(t *testing.T) {
	base := storetest.PostgresURL(t)
	prefix := storetest.UniqueName() + "_"
	for _, u := range []string{
		withParam(base, PrefixParam+"="+prefix),
		strings.Replace(withParam(base, PrefixParam+"="+prefix), "postgres://", "postgresql://", 1),
	} {
		s := open(t, u)
		ps, ok := s.(*pgstore.Store)
		if !ok {
			t.Fatalf("Open(postgres) is a %s", typeName(s))
		}
		if ps.TablePrefix() != prefix {
			t.Fatalf("table prefix %q, want %q", ps.TablePrefix(), prefix)
		}
		t.Cleanup(func() {
			if err := pgstore.DropTables(context.Background(), ps.Pool(), prefix); err != nil {
				t.Logf("cleanup: %v", err)
			}
		})
		if u == withParam(base, PrefixParam+"="+prefix) {
			smoke(t, s)
		}
	}
}

func TestOpenRedis(t *testing.T) {
	base := storetest.RedisURL(t)
	prefix := "mrtrtest:" + storetest.UniqueName() + ":"
	s := open(t, withParam(base, PrefixParam+"="+prefix))
	rs, ok := s.(*redisstore.Store)
	if !ok {
		t.Fatalf("Open(redis) is a %s", typeName(s))
	}
	if rs.KeyPrefix() != prefix {
		t.Fatalf("key prefix %q, want %q", rs.KeyPrefix(), prefix)
	}
	t.Cleanup(func() {
		if _, err := redisstore.DeleteKeys(context.Background(), rs.Client(), prefix); err != nil {
			t.Logf("cleanup: %v", err)
		}
	})
	smoke(t, s)
}

func withParam(u, kv string) string {
	if strings.Contains(u, "?") {
		return u + "&" + kv
	}
	return u + "?" + kv
}

func TestOpenRejects(t *testing.T) {
	for _, u := range []string{
		"",
		"memory",
		"memory:extra",
		"mysql://root:hunter2@db/x",
		"file:/tmp/x.db",
		"sqlite:",
		"/tmp/store.db",
		"postgres://u:hunter2@127.0.0.1:5432/x?" + PrefixParam + "=",
		"postgres://u:hunter2@127.0.0.1:5432/x?" + PrefixParam + "=Bad-Prefix",
		"postgres://u:hunter2@[::1/x",
	} {
		s, err := Open(context.Background(), u)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", u)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q) error leaks the password: %v", u, err)
		}
		if errors.Is(err, context.Canceled) {
			t.Errorf("Open(%q): %v", u, err)
		}
	}
	_, err := Open(context.Background(), "mysql://root:hunter2@db/x")
	for _, form := range []string{"memory:", "sqlite:PATH", "sqlite::memory:", "postgres://", "postgresql://", "redis://"} {
		if !strings.Contains(err.Error(), form) {
			t.Errorf("error %q does not name the accepted form %s", err, form)
		}
	}
	if !strings.Contains(err.Error(), `"mysql"`) {
		t.Errorf("error %q does not name the rejected scheme", err)
	}
}

package mrtr_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/pgstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/redisstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/sqlitestore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// Sensitive data at rest: a sensitive continuation value lives in the
// store while its workflow waits (by reference, never in a token) and
// nowhere once the workflow ended — not in round or effect records (which
// outlive it by their retention), not in continuation records, logs or
// spans. The test runs a workflow whose effect has a business operation
// id (its record is kept) on each shared store and searches every row,
// every key and every log line for the value.
//
// What this checks is the stores' logical content. Physically, deleted
// rows stay in PostgreSQL's pages until VACUUM and in SQLite's free pages
// and WAL until they are reused; the Redis keys are gone.
//
// One function: the backends table (whose search closures read the paths
// their open closures set) and the one workflow every backend runs read
// best side by side.
func TestSensitiveValuesDoNotOutliveTheWorkflow(t *testing.T) {
	type backend struct {
		name   string
		open   func(t *testing.T) store.Store
		search func(t *testing.T, marker string) []string // where marker was found
	}
	var sqlitePath, pgPrefix, redisPrefix string
	backends := []backend{{
		name: "sqlite",
		open: func(t *testing.T) store.Store {
			sqlitePath = filepath.Join(t.TempDir(), "mrtr.db")
			s, err := sqlitestore.Open(context.Background(), sqlitePath, sqlitestore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		search: func(t *testing.T, marker string) []string { return searchSQLite(t, sqlitePath, marker) },
	}, {
		name: "postgres",
		open: func(t *testing.T) store.Store {
			pgPrefix = storetest.UniqueName() + "_"
			s, err := pgstore.Open(context.Background(), storetest.PostgresURL(t), pgstore.Options{TablePrefix: pgPrefix})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		search: func(t *testing.T, marker string) []string { return searchPostgres(t, pgPrefix, marker) },
	}, {
		name: "redis",
		open: func(t *testing.T) store.Store {
			redisPrefix = storetest.UniqueName() + ":"
			s, err := redisstore.Open(context.Background(), storetest.RedisURL(t), redisstore.Options{KeyPrefix: redisPrefix})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		search: func(t *testing.T, marker string) []string { return searchRedis(t, redisPrefix, marker) },
	}}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.open(t)
			defer st.Close()
			var logs bytes.Buffer
			spans := tracetest.NewSpanRecorder()
			clock := mrtrtest.NewClock()
			e, err := mrtr.NewEngine(mrtr.Config{Audience: "at-rest", Codec: mrtrtest.NewCodec(t, clock), Store: st,
				Logger:         slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
				TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))})
			if err != nil {
				t.Fatal(err)
			}
			impl := &testprog.VaultImpl{}
			h := &mrtrtest.Harness[*testprog.VaultFlow]{Program: testprog.NewVaultProgram(impl), Engine: e, Store: st,
				Clock: clock, Principal: "alice", Capabilities: mrtrtest.AllCapabilities()}
			var id [3]byte
			_, _ = rand.Read(id[:])
			vault := "v-" + hex.EncodeToString(id[:])
			marker := "owner-of-" + vault // what VaultImpl stores in the sensitive field
			args := map[string]any{"vaultId": vault}

			ask := call(t, h, args, "", nil)
			if strings.Contains(ask.RequestState, marker) {
				t.Fatal("the sensitive value travels in the token")
			}
			if found := b.search(t, marker); len(found) == 0 {
				t.Fatal("the waiting workflow's sensitive value is not in the store: is the search blind?")
			}
			// A sensitive answer (a one-time code) follows the same rules.
			otp := "otp-marker-" + vault
			wrong := mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "12x4", "otp": otp})}
			again := call(t, h, args, ask.RequestState, wrong) // asked again, the valid fields kept...
			if q, _ := json.Marshal(again.InputRequests); !again.NeedsInput() || strings.Contains(string(q), otp) || strings.Contains(again.RequestState, otp) {
				t.Fatalf("...but not the sensitive one: %s", q) // a default is sent to the client and kept in the round record
			}
			ask = again
			pin := mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "1234", "otp": otp})}
			done := call(t, h, args, ask.RequestState, pin)
			if done.Final == nil || done.Final.Outcome != mrtr.OutcomeSuccess || impl.Opened != 1 {
				t.Fatalf("workflow: %+v", done.Final)
			}
			// A retry replays from the records alone.
			if again := call(t, h, args, ask.RequestState, pin); again.Final.Text != done.Final.Text || impl.Opened != 1 {
				t.Fatalf("retry: %+v, opened %d", again.Final, impl.Opened)
			}
			for _, m := range []string{marker, otp} {
				if found := b.search(t, m); len(found) > 0 {
					t.Fatalf("the sensitive value %q outlived its workflow in: %s", m, strings.Join(found, ", "))
				}
				if strings.Contains(logs.String(), m) {
					t.Fatalf("the sensitive value %q is in the logs:\n%s", m, logs.String())
				}
				for _, s := range spans.Ended() {
					for _, a := range s.Attributes() {
						if strings.Contains(a.Value.String(), m) {
							t.Fatalf("the sensitive value %q is in span %s attribute %s", m, s.Name(), a.Key)
						}
					}
				}
			}
		})
	}
}

func searchSQLite(t *testing.T, path, marker string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		if err := tables.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	tables.Close()
	var found []string
	for _, n := range names {
		rows, err := db.Query(`SELECT * FROM "` + n + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if containsMarker(v, marker) {
					found = append(found, "sqlite "+n+"."+cols[i])
				}
			}
		}
		rows.Close()
	}
	return found
}

func containsMarker(v any, marker string) bool {
	switch x := v.(type) {
	case []byte:
		return bytes.Contains(x, []byte(marker))
	case string:
		return strings.Contains(x, marker)
	}
	return false
}

func searchPostgres(t *testing.T, prefix, marker string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var found []string
	for _, q := range []struct{ table, cond string }{
		{"ops", "strpos(op_key || owner, $1) > 0 OR position(convert_to($1, 'UTF8') in fingerprint) > 0 OR position(convert_to($1, 'UTF8') in coalesce(result, ''::bytea)) > 0"},
		{"states", "strpos(ref || workflow || subject || principal, $1) > 0 OR position(convert_to($1, 'UTF8') in data) > 0"},
	} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+prefix+q.table+` WHERE `+q.cond, marker).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			found = append(found, "postgres "+prefix+q.table)
		}
	}
	return found
}

func searchRedis(t *testing.T, prefix, marker string) []string {
	t.Helper()
	ctx := context.Background()
	opts, err := redis.ParseURL(storetest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	var found []string
	iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		var vals []string
		switch typ := c.Type(ctx, k).Val(); typ {
		case "string":
			vals = []string{c.Get(ctx, k).Val()}
		case "hash":
			for f, v := range c.HGetAll(ctx, k).Val() {
				vals = append(vals, f, v)
			}
		case "set":
			vals = c.SMembers(ctx, k).Val()
		case "zset":
			vals = c.ZRange(ctx, k, 0, -1).Val()
		default:
			t.Fatalf("redis key %s of type %s: the search does not know it", k, typ)
		}
		for _, v := range append(vals, k) {
			if strings.Contains(v, marker) {
				found = append(found, "redis "+k)
				break
			}
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return found
}

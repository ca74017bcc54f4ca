package mrtr_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
// store while its workflow waits (by reference, never in a token), sealed
// under the engine's key ring (recordatrest.go), and nowhere once the workflow
// ended — not in round or effect records (which outlive it by their
// retention), not in continuation records, logs or spans. The test starts
// workflows that wait with sensitive values (one asked again after an
// answer with a one-time code) on every store and searches every table,
// row, key and field, the SQLite files byte by byte, and the logs and
// spans, while they wait and after one of them ended through an effect
// with a business operation id (its record is kept).
//
// Nothing sensitive is ever written in plaintext, so the physical remains
// of deleted rows (PostgreSQL's pages until VACUUM, SQLite's free pages and
// WAL until reused) hold ciphertext only; the SQLite files are searched as
// bytes to show it.
//
// One function: the backends table (whose search closures read the paths
// their open closures set) and the workflows every backend runs read best
// side by side.
func TestSensitiveValuesAreNeverReadableAtRest(t *testing.T) {
	type backend struct {
		name   string
		open   func(t *testing.T) store.Store
		search func(t *testing.T, marker string) []string // where marker was found
	}
	var mem *store.Memory
	var sqlitePath, pgPrefix, redisPrefix string
	backends := []backend{{
		name: "memory",
		open: func(t *testing.T) store.Store {
			mem = store.NewMemory(store.Options{})
			return mem
		},
		search: func(t *testing.T, marker string) []string { return searchMemory(mem, marker) },
	}, {
		name: "sqlite",
		open: func(t *testing.T) store.Store {
			sqlitePath = filepath.Join(t.TempDir(), "mrtr.db")
			s, err := sqlitestore.Open(context.Background(), sqlitePath, sqlitestore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		search: func(t *testing.T, marker string) []string {
			return append(searchSQLite(t, sqlitePath, marker), searchFiles(t, marker, sqlitePath+"*")...)
		},
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
			// The search is not blind: a plaintext record put in the store
			// directly is found, in its data and in its ids.
			control := "control-marker-" + b.name
			ctl := store.StateRecord{Ref: "ctl-ref", Workflow: "ctl-" + control, Subject: "tools/call:vault", Principal: "p", Data: []byte("x" + control + "x")}
			if err := st.PutState(context.Background(), ctl, time.Hour); err != nil {
				t.Fatal(err)
			}
			if found := b.search(t, "x"+control+"x"); len(found) == 0 {
				t.Fatal("a plaintext record is not found: the search is blind")
			}
			if found := b.search(t, "ctl-"+control); len(found) == 0 {
				t.Fatal("a record's workflow id is not found: the search is blind")
			}
			if err := st.DeleteWorkflowStates(context.Background(), ctl.Workflow); err != nil {
				t.Fatal(err)
			}

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
			var markers []string
			nowhere := func(when string) {
				t.Helper()
				for _, m := range markers {
					if found := b.search(t, m); len(found) > 0 {
						t.Fatalf("%s, the sensitive value %q is readable in: %s", when, m, strings.Join(found, ", "))
					}
					if where := inTelemetry(logs.String(), spans.Ended(), m); where != "" {
						t.Fatalf("%s, the sensitive value %q is in %s", when, m, where)
					}
				}
			}

			// Three workflows wait: two as they started, one asked again
			// after an answer that carried a one-time code.
			var id [3]byte
			_, _ = rand.Read(id[:])
			vault := func(i int) string { return fmt.Sprintf("v%d-%s", i, hex.EncodeToString(id[:])) }
			for i := range 2 {
				ask := call(t, h, map[string]any{"vaultId": vault(i)}, "", nil)
				markers = append(markers, "owner-of-"+vault(i)) // what VaultImpl keeps in the sensitive field
				if strings.Contains(ask.RequestState, markers[i]) {
					t.Fatal("the sensitive value travels in the token")
				}
			}
			args := map[string]any{"vaultId": vault(2)}
			ask := call(t, h, args, "", nil)
			otp := "otp-marker-" + vault(2)
			markers = append(markers, "owner-of-"+vault(2), otp)
			wrong := mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "12x4", "otp": otp})}
			again := call(t, h, args, ask.RequestState, wrong) // asked again, the valid fields kept...
			if q, _ := json.Marshal(again.InputRequests); !again.NeedsInput() || strings.Contains(string(q), otp) || strings.Contains(again.RequestState, otp) {
				t.Fatalf("...but not the sensitive one: %s", q) // a default is sent to the client and kept in the round record
			}
			nowhere("while the workflows wait")

			// The third ends; a retry replays from the records alone.
			pin := mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "1234", "otp": otp})}
			done := call(t, h, args, again.RequestState, pin)
			if done.Final == nil || done.Final.Outcome != mrtr.OutcomeSuccess || impl.Opened != 1 {
				t.Fatalf("workflow: %+v", done.Final)
			}
			if retry := call(t, h, args, again.RequestState, pin); retry.Final.Text != done.Final.Text || impl.Opened != 1 {
				t.Fatalf("retry: %+v, opened %d", retry.Final, impl.Opened)
			}
			nowhere("after one workflow ended")
		})
	}
}

// inTelemetry says where in the logs or the spans (names, status,
// attributes, events) marker is, or "".
func inTelemetry(logs string, spans []sdktrace.ReadOnlySpan, marker string) string {
	if strings.Contains(logs, marker) {
		return "the logs:\n" + logs
	}
	for _, s := range spans {
		if strings.Contains(s.Name(), marker) || strings.Contains(s.Status().Description, marker) {
			return "span " + s.Name()
		}
		attrs := s.Attributes()
		for _, ev := range s.Events() {
			attrs = append(attrs, ev.Attributes...)
		}
		for _, a := range attrs {
			if strings.Contains(a.Value.String(), marker) {
				return "span " + s.Name() + " attribute " + string(a.Key)
			}
		}
	}
	return ""
}

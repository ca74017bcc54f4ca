package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/generated/customers"
	"github.com/mrtrgen/mrtrgen/examples/generated/onboarding"
	"github.com/mrtrgen/mrtrgen/examples/generated/tickets"
	"github.com/mrtrgen/mrtrgen/examples/internal/benchtickets"
	"github.com/mrtrgen/mrtrgen/examples/internal/handtickets"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/pgstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/redisstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// BenchmarkRound measures one MRTR round of close_support_ticket over the
// wire: a go-sdk client (automatic multi-round handling disabled) calls an
// httptest server serving stateless streamable HTTP. The same tool is
// served three ways:
//
//   - generated-memory-store: the generated program on mrtr.Run with a
//     memory store (round records, the effect's operation record);
//   - generated-no-store: the same without a store (what the hand-written
//     handler does: no retry protection);
//   - baseline-handwritten-gosdk: a hand-written go-sdk tool handler doing
//     the same work: the same argument and answer validation, the same
//     elicitation request, the same state sealed and opened with the same
//     seal.Codec and binding, the same business calls.
//
// The first round ends in input_required; the final round answers it and
// closes the ticket. After the variants of a round kind ran, the ratio
// generated/hand-written is logged (target ≤ 1.10).
//
//	go test ./examples/server -run '^$' -bench BenchmarkRound -benchtime 2000x -count 6
func BenchmarkRound(b *testing.B) {
	variants := []struct {
		name  string
		serve func(*benchtickets.Business) *mcp.Server
	}{
		{"baseline-handwritten-gosdk", handWrittenServer},
		// The same hand-written tool with the records the engine keeps
		// (handtickets' Store): the baseline of the generated round with
		// a store, the same work on both sides.
		{"baseline-handwritten-gosdk-store", func(d *benchtickets.Business) *mcp.Server {
			return handWrittenStoreServer(d, store.NewMemory(store.Options{}))
		}},
		{"generated-memory-store", func(d *benchtickets.Business) *mcp.Server {
			return generatedServer(d, store.NewMemory(store.Options{}))
		}},
		{"generated-no-store", func(d *benchtickets.Business) *mcp.Server { return generatedServer(d, nil) }},
	}
	for _, kind := range []string{"first", "final"} {
		nsop := map[string]float64{}
		for _, v := range variants {
			b.Run(kind+"/"+v.name, func(b *testing.B) {
				d := &benchtickets.Business{}
				cs := benchClient(b, v.serve(d))
				if kind == "first" {
					benchFirstRound(b, cs)
				} else {
					benchFinalRound(b, cs, d)
				}
				nsop[v.name] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			})
		}
		if base, withStore := nsop["baseline-handwritten-gosdk"], nsop["baseline-handwritten-gosdk-store"]; base > 0 && withStore > 0 {
			b.Logf("%s round: generated-memory-store/hand-written-store = %.3f, generated-no-store/hand-written = %.3f (%.0f / %.0f / %.0f / %.0f ns/op)",
				kind, nsop["generated-memory-store"]/withStore, nsop["generated-no-store"]/base,
				nsop["generated-memory-store"], withStore, nsop["generated-no-store"], base)
		}
		// The ratio proper: the three variants called in turn, round by
		// round (rotating who goes first), so that the machine's load
		// drifts the same for all of them.
		b.Run(kind+"/interleaved", func(b *testing.B) {
			calls := make([]func(i int), len(variants))
			spent := make([]time.Duration, len(variants))
			for v := range variants {
				d := &benchtickets.Business{}
				cs := benchClient(b, variants[v].serve(d))
				ctx := context.Background()
				if kind == "first" {
					calls[v] = func(int) {
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: benchArgs})
						if err != nil || !res.NeedsInput() {
							b.Fatalf("first round: %+v, %v", res, err)
						}
					}
					continue
				}
				finals := firstRounds(b, cs, b.N)
				calls[v] = func(i int) {
					res, err := cs.CallTool(ctx, finals[i])
					if err != nil || res.NeedsInput() || res.IsError {
						b.Fatalf("final round: %+v, %v", res, err)
					}
				}
			}
			// Each round's time too: the median round is what a round
			// costs when no other process on the machine cuts in, which
			// the means (the load's spikes included) are not.
			each := make([][]time.Duration, len(variants))
			for v := range each {
				each[v] = make([]time.Duration, 0, b.N)
			}
			b.ResetTimer()
			for i := range b.N {
				for k := range variants {
					v := (i + k) % len(variants)
					began := time.Now()
					calls[v](i)
					took := time.Since(began)
					spent[v] += took
					each[v] = append(each[v], took)
				}
			}
			b.StopTimer()
			p50 := make([]float64, len(variants))
			for v := range each {
				slices.Sort(each[v])
				p50[v] = float64(each[v][len(each[v])/2])
			}
			b.ReportMetric(p50[2]/p50[1], "p50-generated/handwritten-store")
			b.ReportMetric(p50[3]/p50[0], "p50-nostore/handwritten")
			// In the order of variants: hand-written without and with
			// records, generated with and without a store.
			hand, handStore := float64(spent[0]), float64(spent[1])
			b.ReportMetric(hand/float64(b.N), "handwritten-ns/round")
			b.ReportMetric(handStore/float64(b.N), "handwritten-store-ns/round")
			b.ReportMetric(float64(spent[2])/float64(b.N), "generated-ns/round")
			b.ReportMetric(float64(spent[3])/float64(b.N), "nostore-ns/round")
			b.ReportMetric(float64(spent[2])/handStore, "generated/handwritten-store")
			b.ReportMetric(float64(spent[2])/hand, "generated/handwritten")
			b.ReportMetric(float64(spent[3])/hand, "nostore/handwritten")
		})
	}
}

// firstRounds runs n first rounds, each on a ticket of its own (the effect
// runs once per ticket), and returns the final rounds that answer them.
func firstRounds(b *testing.B, cs *mcp.ClientSession, n int) []*mcp.CallToolParams {
	ctx := context.Background()
	finals := make([]*mcp.CallToolParams, n)
	for i := range finals {
		args := map[string]any{"ticketId": strconv.FormatInt(100000+ticketSeq.Add(1), 10)}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: args})
		if err != nil || !res.NeedsInput() {
			b.Fatalf("first round: %+v, %v", res, err)
		}
		finals[i] = &mcp.CallToolParams{Name: "close_support_ticket", Arguments: args, InputResponses: benchAnswer, RequestState: res.RequestState}
	}
	return finals
}

var (
	benchArgs   = map[string]any{"ticketId": "12345"}
	benchAnswer = mcp.InputResponseMap{"reason": &mcp.ElicitResult{Action: "accept",
		Content: map[string]any{"closeReason": "resolved", "comment": "Replaced the toner cartridge."}}}
	ticketSeq atomic.Int64
)

func benchFirstRound(b *testing.B, cs *mcp.ClientSession) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: benchArgs})
		if err != nil || !res.NeedsInput() || res.RequestState == "" {
			b.Fatalf("first round: %+v, %v", res, err)
		}
	}
}

// benchFinalRound answers b.N first rounds (each on a ticket of its own,
// since the effect runs once per ticket), untimed, then times the final
// rounds.
func benchFinalRound(b *testing.B, cs *mcp.ClientSession, d *benchtickets.Business) {
	ctx := context.Background()
	finals := firstRounds(b, cs, b.N)
	before := d.Closed.Load()
	b.ReportAllocs()
	b.ResetTimer()
	for _, p := range finals {
		res, err := cs.CallTool(ctx, p)
		if err != nil || res.NeedsInput() || res.IsError {
			b.Fatalf("final round: %+v, %v", res, err)
		}
	}
	b.StopTimer()
	if n := d.Closed.Load() - before; n != int64(b.N) {
		b.Fatalf("%d tickets closed in %d final rounds", n, b.N)
	}
}

// benchClient serves s statelessly on an httptest server and connects a
// 2026-07-28 client with automatic multi-round handling disabled.
func benchClient(b *testing.B, s *mcp.Server) *mcp.ClientSession {
	b.Helper()
	get := func(*http.Request) *mcp.Server { return s }
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true}))
	b.Cleanup(srv.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "test"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("asked over the session")
		},
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// benchAudience is the audience both tools bind their requestState to.
const benchAudience = "mrtrgen-bench"

// benchCodec is the one codec both tools seal and open with.
func benchCodec() *seal.Codec {
	ring, err := seal.NewRing(seal.Key{ID: 1, Secret: bytes.Repeat([]byte{0x5a}, 32)})
	if err != nil {
		panic(err)
	}
	return seal.New(ring, seal.Options{})
}

// ---------------------------------------------------------------------------
// The generated tool, on the business side both tools call (package
// benchtickets, shared with examples/loadtest)

func generatedServer(d *benchtickets.Business, st store.Store) *mcp.Server {
	e, err := mrtr.NewEngine(mrtr.Config{Audience: benchAudience, Codec: benchCodec(), Store: st, Logger: quietLogger()})
	if err != nil {
		panic(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-generated", Version: "test"}, nil)
	tickets.RegisterCloseSupportTicket(s, e, benchtickets.Generated{D: d})
	return s
}

// ---------------------------------------------------------------------------
// The hand-written baseline: what a careful developer writes on the go-sdk
// alone for the same tool (package handtickets, shared with
// examples/loadtest).

func handWrittenServer(d *benchtickets.Business) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-handwritten", Version: "test"}, nil)
	newHand(d).AddTo(s)
	return s
}

// handWrittenStoreServer is the hand-written tool keeping the engine's
// round and effect records in st (handtickets' Store), as examples/loadtest
// runs it.
func handWrittenStoreServer(d *benchtickets.Business, st store.Store) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-handwritten-store", Version: "test"}, nil)
	h := newHand(d)
	h.Store, h.Log = st, quietLogger()
	h.AddTo(s)
	return s
}

// newHand is the hand-written tool on d, without records (see package
// handtickets).
func newHand(d *benchtickets.Business) *handtickets.Server {
	return &handtickets.Server{Audience: benchAudience, Codec: benchCodec(), Business: d, NoSecrets: benchtickets.NoSecrets}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// ---------------------------------------------------------------------------
// Store round trips per round, through the engine

// wire counts what goes over the wire to a store: commands or queries, and
// client→server writes (each flushed request is one round trip).
type wire = storetest.Wire

// countedStore opens the engine's store on PostgreSQL or Redis (skipping,
// or failing under $CI, when it is not reachable) with every round trip
// counted in w, on tables or keys of its own.
func countedStore(tb testing.TB, kind string, w *wire) store.Store {
	tb.Helper()
	ctx := context.Background()
	switch kind {
	case "postgres":
		cfg, err := pgxpool.ParseConfig(storetest.PostgresURL(tb))
		if err != nil {
			tb.Fatal(err)
		}
		// One connection: pgx prepares each statement once per connection,
		// so after a warm-up every query is one round trip.
		cfg.MaxConns = 1
		cfg.ConnConfig.Tracer = w
		cfg.ConnConfig.DialFunc = w.Dial
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			tb.Fatal(err)
		}
		prefix := storetest.UniqueName() + "_"
		s, err := pgstore.New(ctx, pool, pgstore.Options{TablePrefix: prefix})
		if err != nil {
			pool.Close()
			tb.Fatal(err)
		}
		tb.Cleanup(func() {
			s.Close()
			if err := pgstore.DropTables(context.Background(), pool, prefix); err != nil {
				tb.Logf("cleanup: %v", err)
			}
			pool.Close()
		})
		return s
	case "redis":
		opts, err := redis.ParseURL(storetest.RedisURL(tb))
		if err != nil {
			tb.Fatal(err)
		}
		rdb := redis.NewClient(opts)
		rdb.AddHook(w)
		prefix := "mrtrbench:" + storetest.UniqueName() + ":"
		s, err := redisstore.New(ctx, rdb, redisstore.Options{KeyPrefix: prefix})
		if err != nil {
			rdb.Close()
			tb.Fatal(err)
		}
		tb.Cleanup(func() {
			s.Close()
			if _, err := redisstore.DeleteKeys(context.Background(), rdb, prefix); err != nil {
				tb.Logf("cleanup: %v", err)
			}
			rdb.Close()
		})
		return s
	}
	tb.Fatalf("unknown store %q", kind)
	return nil
}

// answer answers any question of the example tools.
func answer(key string) mcp.InputResponse {
	switch key {
	case "reason":
		return mrtrtest.Accept(map[string]any{"closeReason": "resolved"})
	case "plan":
		return mrtrtest.Accept(map[string]any{"tier": "business", "seats": 4})
	case "placement":
		return mrtrtest.Accept(map[string]any{"regions": []any{"eu-west"}})
	case "welcome":
		return mrtrtest.Text("Welcome!")
	case "projects":
		return mrtrtest.RootsOf("file:///src/app")
	}
	return mrtrtest.Accept(map[string]any{"confirm": true}) // confirmation gates
}

// workflowTrips runs a workflow to its end through mrtr.Run and returns
// the store round trips of each of its rounds.
func workflowTrips[F any](tb testing.TB, e *mrtr.Engine, p mrtr.Program[F], args map[string]any, w *wire) []int64 {
	tb.Helper()
	return workflowTripsWith(tb, e, p, args, w, func(_ int, key string) mcp.InputResponse { return answer(key) })
}

// workflowTripsWith is workflowTrips with the answers answerOf gives in
// each round (from 2).
func workflowTripsWith[F any](tb testing.TB, e *mrtr.Engine, p mrtr.Program[F], args map[string]any, w *wire, answerOf func(round int, key string) mcp.InputResponse) []int64 {
	tb.Helper()
	ctx := context.Background()
	raw, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	req := mrtr.Request{Arguments: raw, Capabilities: mrtrtest.AllCapabilities()}
	var trips []int64
	for range 8 {
		w.Reset()
		reply, err := mrtr.Run(ctx, e, p, req)
		trips = append(trips, w.Writes.Load())
		if err != nil {
			tb.Fatalf("%s round %d: %v", p.Descriptor().Name, len(trips), err)
		}
		if !reply.NeedsInput() {
			if reply.Final.Outcome != mrtr.OutcomeSuccess {
				tb.Fatalf("%s: %+v", p.Descriptor().Name, reply.Final)
			}
			return trips
		}
		responses := mcp.InputResponseMap{}
		for key := range reply.InputRequests {
			responses[key] = answerOf(len(trips)+1, key)
		}
		req.InputResponses, req.RequestState = responses, reply.RequestState
	}
	tb.Fatalf("%s did not end in 8 rounds", p.Descriptor().Name)
	return nil
}

// roundTripCase is a workflow whose rounds' store round trips are counted.
type roundTripCase struct {
	name string
	// run seeds the records of workflow i and runs it, returning the round
	// trips of each round.
	run func(tb testing.TB, e *mrtr.Engine, w *wire, i int) []int64
	// want are the round trips of each round.
	want []int64
}

func roundTripCases(data domain.Store) []roundTripCase {
	ctx := context.Background()
	return []roundTripCase{{
		// close_support_ticket: sealed continuation, effect with the
		// business operation id close-{ticketId}.
		name: "operation-id",
		run: func(tb testing.TB, e *mrtr.Engine, w *wire, i int) []int64 {
			return workflowTrips(tb, e, tickets.NewCloseSupportTicketProgram(benchtickets.Generated{D: &benchtickets.Business{}}),
				map[string]any{"ticketId": strconv.FormatInt(200000+ticketSeq.Add(1), 10)}, w)
		},
		// Round 2 claims the round record and the effect record in one
		// batch, and records the effect's outcome and the round's reply in
		// another.
		want: []int64{0, 2},
	}, {
		// provision_workspace: four rounds, sealed continuation, an effect
		// scoped to the workflow (no business operation id: it still holds
		// an effect record of its own, which a retry of a round whose reply
		// was not recorded replays).
		name: "workflow-effect",
		run: func(tb testing.TB, e *mrtr.Engine, w *wire, i int) []int64 {
			team := fmt.Sprintf("rt-team-%d", ticketSeq.Add(1))
			if err := domain.Save(ctx, data, domain.TeamKey(team), domain.Team{Slug: team, MaxSeats: 10}); err != nil {
				tb.Fatal(err)
			}
			return workflowTrips(tb, e, onboarding.NewProvisionWorkspaceProgram(&onboarding.ProvisionWorkspaceImpl{Data: data}),
				map[string]any{"team": team}, w)
		},
		// A middle round claims its record with its reply: one batch.
		want: []int64{0, 1, 1, 2},
	}, {
		// delete_customer: a sensitive field keeps the continuation in the
		// store (by reference), and the effect has the operation id
		// delete-{customerId}.
		name: "reference-operation-id",
		run: func(tb testing.TB, e *mrtr.Engine, w *wire, i int) []int64 {
			id := fmt.Sprintf("cus_rt%06d", ticketSeq.Add(1))
			if err := domain.Save(ctx, data, domain.CustomerKey(id), domain.Customer{ID: id, Name: "Round Trip", Email: "rt@example.com"}); err != nil {
				tb.Fatal(err)
			}
			return workflowTrips(tb, e, customers.NewDeleteCustomerProgram(&customers.DeleteCustomerImpl{Data: data}),
				map[string]any{"customerId": id}, w)
		},
		// Round 1 stores the continuation. Round 2: the round record
		// claimed with the read of the continuation; the effect record
		// claimed (its operation id comes from the continuation, so it
		// cannot be claimed earlier); then one batch with the effect's
		// continuation (a record of the workflow, never the effect record),
		// its outcome, the round's reply and the deletion of the workflow's
		// continuations.
		want: []int64{1, 3},
	}, {
		// delete_customer again, its gate answered without a yes or no
		// first: a middle round by reference (the read with the claim, then
		// the next continuation with the reply).
		name: "reference-asked-again",
		run: func(tb testing.TB, e *mrtr.Engine, w *wire, i int) []int64 {
			id := fmt.Sprintf("cus_rt%06d", ticketSeq.Add(1))
			if err := domain.Save(ctx, data, domain.CustomerKey(id), domain.Customer{ID: id, Name: "Round Trip", Email: "rt@example.com"}); err != nil {
				tb.Fatal(err)
			}
			return workflowTripsWith(tb, e, customers.NewDeleteCustomerProgram(&customers.DeleteCustomerImpl{Data: data}),
				map[string]any{"customerId": id}, w, func(round int, key string) mcp.InputResponse {
					if round == 2 {
						return mrtrtest.Accept(map[string]any{}) // neither yes nor no: asked again
					}
					return answer(key)
				})
		},
		want: []int64{1, 2, 3},
	}}
}

// TestEngineStoreRoundTrips counts the round trips to PostgreSQL and Redis
// that the engine makes in each round of four workflows (after a warm-up
// that prepares pgx's statements), and checks them. A round sends its
// record operations in batches (store.Apply, one round trip each): a
// sealed round claims its record with its first effect's (one batch) and
// records the effect's outcome with its reply (one batch), or, without an
// effect, claims its record with its reply (one batch); a round kept by
// reference reads its continuation with the claim of its record, and
// claims its effect's record on its own (the operation id comes from the
// continuation), so its final round takes three.
//
//	go test ./examples/server -run TestEngineStoreRoundTrips -v
func TestEngineStoreRoundTrips(t *testing.T) {
	for _, kind := range []string{"postgres", "redis"} {
		t.Run(kind, func(t *testing.T) {
			w := &wire{}
			st := countedStore(t, kind, w)
			e, err := mrtr.NewEngine(mrtr.Config{Audience: benchAudience, Codec: benchCodec(), Store: st, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			data := domain.NewMemory()
			for _, c := range roundTripCases(data) {
				c.run(t, e, w, 0) // warm-up
				for i := 1; i <= 3; i++ {
					if got := c.run(t, e, w, i); !slices.Equal(got, c.want) {
						t.Errorf("%s %s: round trips per round %v, want %v", kind, c.name, got, c.want)
					}
				}
				t.Logf("%s %-22s store round trips per round %v (final round: %d)", kind, c.name, c.want, c.want[len(c.want)-1])
			}
		})
	}
}

// untilFinal runs a workflow up to its last round and returns that
// round's request.
func untilFinal[F any](tb testing.TB, e *mrtr.Engine, p mrtr.Program[F], args map[string]any, rounds int) mrtr.Request {
	tb.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	req := mrtr.Request{Arguments: raw, Capabilities: mrtrtest.AllCapabilities()}
	for k := 1; k < rounds; k++ {
		reply, err := mrtr.Run(context.Background(), e, p, req)
		if err != nil || !reply.NeedsInput() {
			tb.Fatalf("%s round %d: %+v, %v", p.Descriptor().Name, k, reply, err)
		}
		responses := mcp.InputResponseMap{}
		for key := range reply.InputRequests {
			responses[key] = answer(key)
		}
		req.InputResponses, req.RequestState = responses, reply.RequestState
	}
	return req
}

// benchFinal times final rounds prepared by untilFinal and reports the
// store round trips each made.
func benchFinal[F any](b *testing.B, e *mrtr.Engine, p mrtr.Program[F], w *wire, args func() map[string]any, rounds int) {
	finals := make([]mrtr.Request, b.N)
	for i := range finals {
		finals[i] = untilFinal(b, e, p, args(), rounds)
	}
	ctx := context.Background()
	w.Reset()
	b.ReportAllocs()
	b.ResetTimer()
	for _, req := range finals {
		reply, err := mrtr.Run(ctx, e, p, req)
		if err != nil || reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeSuccess {
			b.Fatalf("final round: %+v, %v", reply, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(w.Writes.Load())/float64(b.N), "roundtrips/op")
}

// BenchmarkFinalRoundStore times one final round in-process (mrtr.Run, no
// transport) on each shared store: close_support_ticket (effect with an
// operation id) and provision_workspace (effect scoped to the workflow).
//
//	go test ./examples/server -run '^$' -bench BenchmarkFinalRoundStore -benchtime 500x
func BenchmarkFinalRoundStore(b *testing.B) {
	for _, kind := range []string{"memory", "postgres", "redis"} {
		b.Run(kind, func(b *testing.B) {
			w := &wire{}
			var st store.Store = store.NewMemory(store.Options{})
			if kind != "memory" {
				st = countedStore(b, kind, w)
			}
			e, err := mrtr.NewEngine(mrtr.Config{Audience: benchAudience, Codec: benchCodec(), Store: st, Logger: quietLogger()})
			if err != nil {
				b.Fatal(err)
			}
			data := domain.NewMemory()
			b.Run("operation-id", func(b *testing.B) {
				benchFinal(b, e, tickets.NewCloseSupportTicketProgram(benchtickets.Generated{D: &benchtickets.Business{}}), w, func() map[string]any {
					return map[string]any{"ticketId": strconv.FormatInt(300000+ticketSeq.Add(1), 10)}
				}, 2)
			})
			b.Run("workflow-effect", func(b *testing.B) {
				benchFinal(b, e, onboarding.NewProvisionWorkspaceProgram(&onboarding.ProvisionWorkspaceImpl{Data: data}), w, func() map[string]any {
					team := fmt.Sprintf("bench-team-%d", ticketSeq.Add(1))
					if err := domain.Save(context.Background(), data, domain.TeamKey(team), domain.Team{Slug: team, MaxSeats: 10}); err != nil {
						b.Fatal(err)
					}
					return map[string]any{"team": team}
				}, 4)
			})
		})
	}
}

// BenchmarkRoundInProcess is BenchmarkRound without the transport: the
// generated tool's round (mrtr.Run, and the result the wire adapter builds
// from its reply) against the hand-written handler called directly. It is
// what the generated tool adds per round, without the SDK's JSON-RPC and
// HTTP work that dominates BenchmarkRound.
//
// final-cold is the final round with the CPU caches emptied before each
// round (untimed): what a round costs when the code and data it runs are
// not in the cache, as over HTTP, where the transport, the JSON-RPC layer
// and the client run between two rounds of the tool. The generated round
// runs more code than the hand-written one (every step of the trust
// boundary), and a cold round pays for each cache line of it: the gap of
// final-cold, not of final, is the gap BenchmarkRound measures.
// bench/coldmisses.sh counts its cache misses by package with cachegrind.
//
//	go test ./examples/server -run '^$' -bench BenchmarkRoundInProcess -benchmem
//	go test ./examples/server -run '^$' -bench 'BenchmarkRoundInProcess/final-cold' -benchtime 2000x
func BenchmarkRoundInProcess(b *testing.B) {
	ctx := context.Background()
	meta := mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}
	args := func(id string) json.RawMessage { return json.RawMessage(`{"ticketId":"` + id + `"}`) }
	type round func(id, state string) (*mcp.CallToolResult, error)

	generated := func(st store.Store) round {
		e, err := mrtr.NewEngine(mrtr.Config{Audience: benchAudience, Codec: benchCodec(), Store: st, Logger: quietLogger()})
		if err != nil {
			b.Fatal(err)
		}
		p := tickets.NewCloseSupportTicketProgram(benchtickets.Generated{D: &benchtickets.Business{}})
		return func(id, state string) (*mcp.CallToolResult, error) {
			// The same request the hand-written handler gets, made into
			// what mrtr.AddTool gives Run.
			params := &mcp.CallToolParamsRaw{Meta: meta, Name: "close_support_ticket", Arguments: args(id), RequestState: state}
			if state != "" {
				params.InputResponses = benchAnswer
			}
			req, err := e.ToolRequest(ctx, &mcp.CallToolRequest{Params: params})
			if err != nil {
				return nil, err
			}
			reply, err := mrtr.Run(ctx, e, p, req)
			if err != nil {
				return nil, err
			}
			// What mrtr.AddTool makes of the reply.
			if reply.NeedsInput() {
				return &mcp.CallToolResult{InputRequests: reply.InputRequests, RequestState: reply.RequestState}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: reply.Final.Text}}, IsError: reply.Final.IsError()}, nil
		}
	}
	hand := func(st store.Store) round {
		h := newHand(&benchtickets.Business{})
		if st != nil {
			h.Store, h.Log = st, quietLogger()
		}
		return func(id, state string) (*mcp.CallToolResult, error) {
			params := &mcp.CallToolParamsRaw{Meta: meta, Name: "close_support_ticket", Arguments: args(id), RequestState: state}
			if state != "" {
				params.InputResponses = benchAnswer
			}
			return h.Serve(ctx, &mcp.CallToolRequest{Params: params})
		}
	}
	variants := []struct {
		name string
		make func() round
	}{
		{"baseline-handwritten-gosdk", func() round { return hand(nil) }},
		{"baseline-handwritten-gosdk-store", func() round { return hand(store.NewMemory(store.Options{})) }},
		{"generated-memory-store", func() round { return generated(store.NewMemory(store.Options{})) }},
		{"generated-no-store", func() round { return generated(nil) }},
	}
	for _, kind := range []string{"first", "final", "final-cold"} {
		cold := kind == "final-cold"
		for _, v := range variants {
			b.Run(kind+"/"+v.name, func(b *testing.B) {
				call := v.make()
				// A cold run prepares at least coldRounds final rounds, so
				// that its setup is the same for any b.N up to that: the
				// difference of two runs is then the rounds alone
				// (bench/coldmisses.sh).
				n := b.N
				if cold {
					n = max(n, coldRounds)
				}
				ids := make([]string, n)
				states := make([]string, n)
				for i := range ids {
					ids[i] = "12345"
					if kind != "first" {
						ids[i] = strconv.FormatInt(400000+ticketSeq.Add(1), 10)
						res, err := call(ids[i], "")
						if err != nil || res.RequestState == "" {
							b.Fatalf("first round: %+v, %v", res, err)
						}
						states[i] = res.RequestState
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu := cpuTime()
				for i := range b.N {
					if cold {
						b.StopTimer()
						evictCaches()
						b.StartTimer()
					}
					res, err := call(ids[i], states[i])
					if err != nil || res.IsError || (res.RequestState != "") != (kind == "first") {
						b.Fatalf("%s round: %+v, %v", kind, res, err)
					}
				}
				if c := cpuTime(); c > 0 && !cold { // a cold run's CPU time is mostly the eviction
					b.ReportMetric(float64(c-cpu)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

// coldRounds is the least number of final rounds a final-cold run
// prepares.
const coldRounds = 2600

// evictionBuffer is larger than a core's caches many times over: writing
// a byte of each of its cache lines leaves none of a round's code or data
// in L1 or L2. It is off the Go heap (so the garbage collector paces every
// benchmark as without it) and mapped by the first cold round.
var evictionBuffer []byte

// evictCaches empties the CPU caches of what the last round touched. The
// b.StartTimer after it reads the runtime's memory statistics, which warms
// a few of the runtime's lines again; it does so for every variant.
//
//go:noinline
func evictCaches() {
	if evictionBuffer == nil {
		evictionBuffer = offHeap(64 << 20)
	}
	for i := 0; i < len(evictionBuffer); i += 64 {
		evictionBuffer[i]++
	}
}

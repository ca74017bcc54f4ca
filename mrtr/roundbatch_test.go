package mrtr_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Store calls per round (recordbatch.go, roundfinish.go): a round sends its record
// operations in batches, and a store without batches gets one call per
// operation with the same outcome.

// faultsPerCall makes newFaultyStore's batches one call per op.
var faultsPerCall bool

// Apply fails like the other calls while the store is down or
// blackholed; with perCall it is one faulty call per op.
func (f *faultyStore) Apply(ctx context.Context, ops []store.Op) ([]store.OpResult, error) {
	if f.perCall {
		return store.ApplyEach(ctx, f, ops)
	}
	if err := f.fault(ctx); err != nil {
		return nil, err
	}
	f.mu.Lock()
	for _, op := range ops {
		if op.Kind == store.OpClaim {
			f.owners[op.Claim.Key] = op.Claim.Owner
		}
	}
	f.mu.Unlock()
	return store.Apply(ctx, f.Store, ops)
}

// TestFaultsWithoutBatches runs the fault tests again on a store without
// batches, where an outage can cut a round's batch half-way.
func TestFaultsWithoutBatches(t *testing.T) {
	faultsPerCall = true
	defer func() { faultsPerCall = false }()
	for _, test := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"EffectOutcomeSurvivesAStoreOutage", TestEffectOutcomeSurvivesAStoreOutage},
		{"CrashMidEffectIsTakenOver", TestCrashMidEffectIsTakenOver},
		{"BlackholedStoreFailsFast", TestBlackholedStoreFailsFast},
		{"ClientGoneBeforeTheEffectRunsNothing", TestClientGoneBeforeTheEffectRunsNothing},
		{"LeaseRenewalIsRetried", TestLeaseRenewalIsRetried},
		{"ASlowEffectIsNotCutAtTheLease", TestASlowEffectIsNotCutAtTheLease},
	} {
		t.Run(test.name, test.run)
	}
}

// counted counts the round trips an engine makes to a store: one per
// method call. It is no store.Batcher: a batch is one call per op.
type counted struct {
	store.Store
	n atomic.Int64

	mu  sync.Mutex
	log []string // what was sent, in order (with logging on)
	on  bool
}

func (c *counted) note(ops ...store.Op) {
	c.n.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on {
		return
	}
	var b strings.Builder
	for i, op := range ops {
		if i > 0 {
			b.WriteString(" + ")
		}
		key := op.Key + op.Claim.Key + op.Ref + op.State.Ref + op.Workflow
		fmt.Fprintf(&b, "%v %s", op.Kind, key)
	}
	c.log = append(c.log, b.String())
}

func (c *counted) event(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, what)
}

func (c *counted) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	c.note(store.ClaimOp(req))
	return c.Store.Claim(ctx, req)
}

func (c *counted) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	c.note(store.CompleteOp(key, owner, result, retain))
	return c.Store.Complete(ctx, key, owner, result, retain)
}

func (c *counted) Release(ctx context.Context, key, owner string) error {
	c.note(store.ReleaseOp(key, owner))
	return c.Store.Release(ctx, key, owner)
}

func (c *counted) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	c.note(store.PutStateOp(rec, ttl))
	return c.Store.PutState(ctx, rec, ttl)
}

func (c *counted) GetState(ctx context.Context, ref string) (store.StateRecord, error) {
	c.note(store.GetStateOp(ref))
	return c.Store.GetState(ctx, ref)
}

func (c *counted) DeleteWorkflowStates(ctx context.Context, workflow string) error {
	c.note(store.DeleteWorkflowStatesOp(workflow))
	return c.Store.DeleteWorkflowStates(ctx, workflow)
}

// countedBatches is counted with batches: one round trip per batch.
type countedBatches struct{ *counted }

func (c countedBatches) Apply(ctx context.Context, ops []store.Op) ([]store.OpResult, error) {
	c.note(ops...)
	return store.Apply(ctx, c.Store, ops) // the memory store's own batch
}

// countedHarness is a harness whose store counts round trips, with
// batches or without.
func countedHarness[F any](t *testing.T, p mrtr.Program[F], batches bool) (*mrtrtest.Harness[F], *counted) {
	var c *counted
	h := mrtrtest.New(t, p, mrtrtest.WithStore(func(clock *mrtrtest.Clock) store.Store {
		c = &counted{Store: store.NewMemory(store.Options{Now: clock.Now})}
		if batches {
			return countedBatches{c}
		}
		return c
	}))
	return h, c
}

// roundsOf runs a workflow's rounds with answers[i] answering round i+1
// and returns the store round trips of each round, then of a retry of the
// last round (which must replay its reply).
func roundsOf[F any](t *testing.T, h *mrtrtest.Harness[F], c *counted, args any, answers ...mcp.InputResponseMap) []int64 {
	t.Helper()
	var trips []int64
	state := ""
	var last *mrtr.Reply
	for i := 0; ; i++ {
		var resp mcp.InputResponseMap
		if i > 0 {
			resp = answers[i-1]
		}
		c.n.Store(0)
		reply := call(t, h, args, state, resp)
		trips = append(trips, c.n.Load())
		if !reply.NeedsInput() {
			if reply.Final.Outcome != mrtr.OutcomeSuccess {
				t.Fatalf("round %d: %+v", i+1, reply.Final)
			}
			c.n.Store(0)
			again := call(t, h, args, state, resp)
			if again.Final == nil || again.Final.Text != reply.Final.Text {
				t.Fatalf("retry of the final round: %+v, want the reply %q", again.Final, reply.Final.Text)
			}
			return append(trips, c.n.Load())
		}
		last, state = reply, reply.RequestState
		if i >= len(answers) {
			t.Fatalf("round %d asks %v, no answers left", i+1, last.InputRequests)
		}
	}
}

// TestStoreRoundTripsPerRound counts, in process, what each round costs
// the store with batches (one round trip each) and without (one per
// operation, what a third-party store pays), and that the final round's
// retry replays in one.
func TestStoreRoundTripsPerRound(t *testing.T) {
	memo := mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent")}
	yes := mcp.InputResponseMap{"confirm": confirm(true)}
	for _, c := range []struct {
		name string
		run  func(t *testing.T, batches bool) (trips []int64, effects int)
		// trips per round, then of the final round's retry
		batched, perCall []int64
	}{{
		name: "workflow-own effect (notify)",
		run: func(t *testing.T, batches bool) ([]int64, int) {
			impl := &testprog.NotifyImpl{}
			h, c := countedHarness(t, testprog.NewNotifyProgram(impl), batches)
			note := mcp.InputResponseMap{"note": mrtrtest.Accept(map[string]any{"text": "hi"})}
			return roundsOf(t, h, c, map[string]any{"to": "bob"}, note), len(impl.Sent())
		},
		batched: []int64{0, 2, 1}, perCall: []int64{0, 4, 1},
	}, {
		name: "business operation id (payout)",
		run: func(t *testing.T, batches bool) ([]int64, int) {
			impl := &testprog.PayoutImpl{}
			h, c := countedHarness(t, testprog.NewPayoutProgram(impl), batches)
			approve := mcp.InputResponseMap{"approval": mrtrtest.Accept(map[string]any{"approver": "carol"})}
			return roundsOf(t, h, c, map[string]any{"payee": "p-001", "amount": 5000}, approve), impl.Paid()
		},
		batched: []int64{0, 2, 1}, perCall: []int64{0, 4, 1},
	}, {
		name: "middle round, then an effect (transfer)",
		run: func(t *testing.T, batches bool) ([]int64, int) {
			impl := &testprog.TransferImpl{}
			h, c := countedHarness(t, testprog.NewTransferProgram(impl), batches)
			return roundsOf(t, h, c, transferArgs, memo, yes), impl.SentCount()
		},
		batched: []int64{0, 1, 2, 1}, perCall: []int64{0, 2, 4, 1},
	}, {
		name: "by reference (vault)",
		run: func(t *testing.T, batches bool) ([]int64, int) {
			impl := &testprog.VaultImpl{}
			h, c := countedHarness(t, testprog.NewVaultProgram(impl), batches)
			pin := mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "1234"})}
			return roundsOf(t, h, c, map[string]any{"vaultId": "v-1"}, pin), impl.Opened
		},
		batched: []int64{1, 3, 1}, perCall: []int64{1, 7, 1},
	}, {
		name: "a check after the effect (ledger)",
		run: func(t *testing.T, batches bool) ([]int64, int) {
			impl := &testprog.LedgerImpl{}
			h, c := countedHarness(t, testprog.NewLedgerProgram(impl), batches)
			entry := mcp.InputResponseMap{"entry": mrtrtest.Accept(map[string]any{"cents": 250})}
			return roundsOf(t, h, c, map[string]any{"account": "acc-1"}, entry), impl.PostedCount()
		},
		batched: []int64{0, 3, 1}, perCall: []int64{0, 4, 1},
	}} {
		t.Run(c.name, func(t *testing.T) {
			for _, batches := range []bool{true, false} {
				want := c.perCall
				if batches {
					want = c.batched
				}
				trips, effects := c.run(t, batches)
				t.Logf("batches %-5v round trips per round %v (then the final round's retry)", batches, trips)
				if !slices.Equal(trips, want) {
					t.Errorf("batches %v: round trips per round %v, want %v", batches, trips, want)
				}
				if effects != 1 {
					t.Errorf("batches %v: the effect ran %d times, want once", batches, effects)
				}
			}
		})
	}
}

// The outcome of an effect is recorded before a check that follows it
// runs: the check may take long, and the outcome must not wait for it.
func TestAnEffectIsRecordedBeforeTheNextCheck(t *testing.T) {
	for _, batches := range []bool{true, false} {
		impl := &testprog.LedgerImpl{}
		h, c := countedHarness(t, testprog.NewLedgerProgram(impl), batches)
		impl.OnReconcile = func(context.Context, *testprog.LedgerFlow) { c.event("reconcile") }
		args := map[string]any{"account": "acc-1"}
		r1 := call(t, h, args, "", nil)
		c.mu.Lock()
		c.on = true
		c.mu.Unlock()
		done := call(t, h, args, r1.RequestState, mcp.InputResponseMap{"entry": mrtrtest.Accept(map[string]any{"cents": 250})})
		if done.Final == nil || done.Final.Outcome != mrtr.OutcomeSuccess {
			t.Fatalf("final round: %+v", done.Final)
		}
		c.mu.Lock()
		log := slices.Clone(c.log)
		c.mu.Unlock()
		at := slices.Index(log, "reconcile")
		recorded := slices.IndexFunc(log, func(s string) bool {
			return strings.Contains(s, "complete") && strings.Contains(s, "/workflow-effect/")
		})
		if at < 0 || recorded < 0 || recorded > at {
			t.Fatalf("batches %v: store calls and the check in order:\n%s\nwant the effect's outcome recorded before the check", batches, strings.Join(log, "\n"))
		}
	}
}

// A retry of a round that has no record yet runs the states before its
// first effect again; when they now end differently (a check refuses, a
// validator's backend is down, a check panics), the reply the first
// attempt stored still wins, and nothing runs twice.
func TestARetryGetsTheFirstReplyWhateverItsStatesSayNow(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	r1 := call(t, h, transferArgs, "", nil)
	answers := mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent")}
	gate := call(t, h, transferArgs, r1.RequestState, answers)
	yes := mcp.InputResponseMap{"confirm": confirm(true)}
	first := call(t, h, transferArgs, gate.RequestState, yes)
	if first.Final == nil || first.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("final round: %+v", first.Final)
	}
	for _, knob := range []struct {
		name string
		on   *atomic.Bool
	}{{"the recheck refuses", &impl.Frozen}, {"the recheck panics", &impl.Panic}} {
		knob.on.Store(true)
		again, err := h.Call(context.Background(), transferArgs, gate.RequestState, yes)
		knob.on.Store(false)
		if err != nil || again.Final == nil || again.Final.Text != first.Final.Text {
			t.Fatalf("%s on the retry: %+v, %v; want the first reply %q", knob.name, again, err, first.Final.Text)
		}
	}
	if n := impl.SentCount(); n != 1 {
		t.Fatalf("sent %d times, want once", n)
	}
	// A middle round: its validator's backend is down, or refuses the note.
	for _, knob := range []*atomic.Bool{&impl.NotBlankDown, &impl.NotBlankRefuses} {
		knob.Store(true)
		again := call(t, h, transferArgs, r1.RequestState, answers)
		knob.Store(false)
		if again.RequestState != gate.RequestState {
			t.Fatalf("retry of the middle round: %+v, want its first reply", again)
		}
	}
	// Without an earlier reply, the refusal stands (and is recorded).
	fresh := call(t, h, transferArgs, "", nil)
	impl.NotBlankRefuses.Store(true)
	asked := call(t, h, transferArgs, fresh.RequestState, answers)
	impl.NotBlankRefuses.Store(false)
	if asked.InputRequests["memo"] == nil {
		t.Fatalf("a refused note: %+v, want the question again", asked)
	}
}

// putFailing fails every batch that stores a continuation while failPut
// is set.
type putFailing struct {
	*store.Memory
	failPut atomic.Bool
}

func (p *putFailing) Apply(ctx context.Context, ops []store.Op) ([]store.OpResult, error) {
	if p.failPut.Load() && slices.ContainsFunc(ops, func(op store.Op) bool { return op.Kind == store.OpPutState }) {
		return nil, errUnreachable
	}
	return p.Memory.Apply(ctx, ops)
}

// A reply whose token points to a continuation kept by reference is sent
// only once the store took the continuation, which the round's last batch
// stores with its reply: when that batch fails, the round fails (its
// record released at once, so a retry runs it again without waiting for
// the lease) instead of sending a token that points to nothing.
func TestAReferenceTheStoreRefusedIsNeverSent(t *testing.T) {
	var ps *putFailing
	impl := &testprog.VaultImpl{}
	h := mrtrtest.New(t, testprog.NewVaultProgram(impl), mrtrtest.WithStore(func(clock *mrtrtest.Clock) store.Store {
		ps = &putFailing{Memory: store.NewMemory(store.Options{Now: clock.Now})}
		return ps
	}))
	args := map[string]any{"vaultId": "v-1"}
	ps.failPut.Store(true)
	if reply, err := h.Call(context.Background(), args, "", nil); err == nil || !strings.Contains(err.Error(), "storing continuation") {
		t.Fatalf("first round with the continuation refused: %+v, %v; want the error", reply, err)
	}
	ps.failPut.Store(false)
	ask := call(t, h, args, "", nil)
	wrong := mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "12"})} // not four digits: asked again
	ps.failPut.Store(true)
	if reply, err := h.Call(context.Background(), args, ask.RequestState, wrong); err == nil {
		t.Fatalf("a round asking again with its continuation refused: %+v, want an error", reply)
	}
	ps.failPut.Store(false)
	start := time.Now()
	again := call(t, h, args, ask.RequestState, wrong)
	if again.InputRequests["pin"] == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("retry: %+v after %v, want the PIN asked again at once", again, time.Since(start))
	}
	done := call(t, h, args, again.RequestState, mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "1234"})})
	if done.Final == nil || done.Final.Outcome != mrtr.OutcomeSuccess || impl.Opened != 1 {
		t.Fatalf("final round: %+v (opened %d)", done.Final, impl.Opened)
	}
}

// A round that claims its record with its first effect and finds it
// answered with other input is refused as it was when the record was
// claimed up front, and runs no effect.
func TestAnEffectRoundReusedWithOtherInputIsRefused(t *testing.T) {
	impl := &testprog.NotifyImpl{}
	h := mrtrtest.New(t, testprog.NewNotifyProgram(impl))
	args := map[string]any{"to": "bob"}
	r1 := call(t, h, args, "", nil)
	note := func(text string) mcp.InputResponseMap {
		return mcp.InputResponseMap{"note": mrtrtest.Accept(map[string]any{"text": text})}
	}
	call(t, h, args, r1.RequestState, note("hi"))
	_, err := h.Call(context.Background(), args, r1.RequestState, note("something else"))
	if mrtrtest.ErrorCode(err) != -32602 || !strings.Contains(err.Error(), "already used with other input") {
		t.Fatalf("the final round again with another note: %v", err)
	}
	if n := len(impl.Sent()); n != 1 {
		t.Fatalf("sent %d notes, want 1", n)
	}
}

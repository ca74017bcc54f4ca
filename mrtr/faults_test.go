package mrtr_test

import (
	"context"
	"errors"
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

// The engine under store faults, in process: a store that goes down (calls
// fail at once), one that swallows calls (a black hole), one whose lease
// renewals fail for a while, and an instance that dies mid-effect. The same
// guarantees over real links to PostgreSQL and Redis, with child processes,
// are tested in examples/faults.

var errUnreachable = errors.New("store unreachable (test)")

// faultyStore wraps a store. While down, every call fails (a batch too, see
// roundbatch_test.go); while
// blackholed, every call waits until its context ends; renewalsDown fails
// only Claims by an owner that already holds the key (lease renewals).
type faultyStore struct {
	store.Store
	down, blackholed, renewalsDown atomic.Bool
	// perCall makes batches one call per op (store.ApplyEach), as on a
	// store without batches, so a fault can cut a batch half-way.
	perCall bool

	mu     sync.Mutex
	owners map[string]string // key → last owner that claimed it
}

func newFaultyStore(s store.Store) *faultyStore {
	return &faultyStore{Store: s, owners: map[string]string{}, perCall: faultsPerCall}
}

func (f *faultyStore) fault(ctx context.Context) error {
	if f.blackholed.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	if f.down.Load() {
		return errUnreachable
	}
	return nil
}

func (f *faultyStore) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if err := f.fault(ctx); err != nil {
		return store.ClaimResult{}, err
	}
	f.mu.Lock()
	renewal := f.owners[req.Key] == req.Owner
	f.owners[req.Key] = req.Owner
	f.mu.Unlock()
	if renewal && f.renewalsDown.Load() {
		return store.ClaimResult{}, errUnreachable
	}
	return f.Store.Claim(ctx, req)
}

func (f *faultyStore) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	if err := f.fault(ctx); err != nil {
		return err
	}
	return f.Store.Complete(ctx, key, owner, result, retain)
}

func (f *faultyStore) Release(ctx context.Context, key, owner string) error {
	if err := f.fault(ctx); err != nil {
		return err
	}
	return f.Store.Release(ctx, key, owner)
}

func (f *faultyStore) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	if err := f.fault(ctx); err != nil {
		return err
	}
	return f.Store.PutState(ctx, rec, ttl)
}

func (f *faultyStore) GetState(ctx context.Context, ref string) (store.StateRecord, error) {
	if err := f.fault(ctx); err != nil {
		return store.StateRecord{}, err
	}
	return f.Store.GetState(ctx, ref)
}

func (f *faultyStore) DeleteWorkflowStates(ctx context.Context, workflow string) error {
	if err := f.fault(ctx); err != nil {
		return err
	}
	return f.Store.DeleteWorkflowStates(ctx, workflow)
}

// faultHarness returns a harness of p on an engine over fs with the given
// lease (the codec's clock stays at its start: tokens never expire here).
func faultHarness[F any](t *testing.T, p mrtr.Program[F], fs store.Store, lease time.Duration) *mrtrtest.Harness[F] {
	t.Helper()
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "faults", Codec: mrtrtest.NewCodec(t, clock), Store: fs, Logger: quiet,
		Lease: lease, StoreTimeout: 500 * time.Millisecond, RecordFor: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &mrtrtest.Harness[F]{Program: p, Engine: e, Store: fs, Clock: clock, Principal: "alice", Capabilities: mrtrtest.AllCapabilities()}
}

// outage takes the store down until the returned function brings it back.
// The test, not a timer, ends the outage: a timed one raced the calls it
// was meant to span on a loaded machine.
func outage(fs *faultyStore) (restore func()) {
	fs.down.Store(true)
	return func() { fs.down.Store(false) }
}

// untilReplayed retries the round until the store, back from its outage,
// has the outcome recorded and replays it (a retry before that gets a
// retryable error), for at most the engine's RecordFor.
func untilReplayed[F any](t *testing.T, h *mrtrtest.Harness[F], args map[string]any, state string, answers mcp.InputResponseMap, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := call(t, h, args, state, answers)
		if r.Final != nil && r.Final.Text == want {
			return
		}
		if r.Final == nil || r.Final.Outcome != mrtr.OutcomeError || time.Now().After(deadline) {
			t.Fatalf("retry after the outage: %+v, want the first reply %q", r.Final, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An effect that returned is not run again when the store fails right
// after it (an outage shorter than the lease): the client is told the
// truth, the outcome is recorded once the store is back, and every retry,
// during the outage and after it, gets the first reply. Both kinds of
// operation id: a business one (transfer) and the workflow's own (notify).
func TestEffectOutcomeSurvivesAStoreOutage(t *testing.T) {
	// Far longer than the outage, which lasts a call or two: a takeover
	// after the lease would be the (documented) at-least-once case, which
	// is not what this test is about.
	const lease = 4 * time.Second
	t.Run("business operation id", func(t *testing.T) {
		impl := &testprog.TransferImpl{}
		fs := newFaultyStore(store.NewMemory(store.Options{}))
		h := faultHarness(t, testprog.NewTransferProgram(impl), fs, lease)
		gate := toGate(t, h)
		var restore func()
		impl.AfterSend = func() { restore = outage(fs) }
		answers := mcp.InputResponseMap{"confirm": confirm(true)}
		first := call(t, h, transferArgs, gate.RequestState, answers)
		impl.AfterSend = nil
		if first.Final == nil || first.Final.Outcome != mrtr.OutcomeSuccess {
			t.Fatalf("the effect ran, but the client was told %+v", first.Final)
		}
		during := call(t, h, transferArgs, gate.RequestState, answers)
		if during.Final == nil || during.Final.Outcome != mrtr.OutcomeError || !strings.Contains(during.Final.Text, "try the same request again") {
			t.Fatalf("a retry during the outage: %+v, want a retryable error", during.Final)
		}
		restore()
		untilReplayed(t, h, transferArgs, gate.RequestState, answers, first.Final.Text)
		if n := impl.SentCount(); n != 1 {
			t.Fatalf("sent %d times, want 1", n)
		}
	})
	t.Run("the workflow's own operation id", func(t *testing.T) {
		impl := &testprog.NotifyImpl{}
		fs := newFaultyStore(store.NewMemory(store.Options{}))
		h := faultHarness(t, testprog.NewNotifyProgram(impl), fs, lease)
		args := map[string]any{"to": "bob"}
		ask := call(t, h, args, "", nil)
		var restore func()
		impl.AfterSend = func() { restore = outage(fs) }
		answers := mcp.InputResponseMap{"note": mrtrtest.Accept(map[string]any{"text": "hi"})}
		first := call(t, h, args, ask.RequestState, answers)
		impl.AfterSend = nil
		if first.Final == nil || first.Final.Outcome != mrtr.OutcomeSuccess {
			t.Fatalf("first: %+v", first.Final)
		}
		restore()
		untilReplayed(t, h, args, ask.RequestState, answers, first.Final.Text)
		// Two more retries at once, as impatient clients send them.
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				if r := call(t, h, args, ask.RequestState, answers); r.Final == nil || r.Final.Text != first.Final.Text {
					t.Errorf("retry: %+v, want %q", r.Final, first.Final.Text)
				}
			})
		}
		wg.Wait()
		if n := len(impl.Sent()); n != 1 {
			t.Fatalf("sent %d times, want 1", n)
		}
	})
}

// An instance that dies while its effect runs (here: it loses the store
// for good right then) leaves a claim without an outcome. After the lease,
// a retry on another instance takes it over and runs the effect again: at
// least once, never silently. The effect method is told so
// (Attempt.Takeover) and sees the same operation id both times, to
// deduplicate downstream.
func TestCrashMidEffectIsTakenOver(t *testing.T) {
	const lease = 150 * time.Millisecond
	shared := store.NewMemory(store.Options{})
	dying := newFaultyStore(shared)
	impl := &testprog.NotifyImpl{}
	a := faultHarness(t, testprog.NewNotifyProgram(impl), dying, lease)
	args := map[string]any{"to": "bob"}
	ask := call(t, a, args, "", nil)
	answers := mcp.InputResponseMap{"note": mrtrtest.Accept(map[string]any{"text": "hi"})}
	impl.AfterSend = func() { dying.down.Store(true) } // the instance is gone from here on
	call(t, a, args, ask.RequestState, answers)
	impl.AfterSend = nil

	// Instance b: same audience and keys (the harness's codec), same store.
	b := &mrtrtest.Harness[*testprog.NotifyFlow]{Program: a.Program, Store: shared, Clock: a.Clock, Principal: a.Principal, Capabilities: a.Capabilities}
	eb, err := mrtr.NewEngine(mrtr.Config{Audience: "faults", Codec: mrtrtest.NewCodec(t, a.Clock), Store: shared, Logger: quiet, Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	b.Engine = eb
	time.Sleep(lease + 50*time.Millisecond)
	r := call(t, b, args, ask.RequestState, answers)
	if r.Final == nil || r.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("takeover round: %+v", r.Final)
	}
	got := impl.Sent()
	if len(got) != 2 || got[0].Takeover || !got[1].Takeover || got[0].OperationID != got[1].OperationID || got[0].OperationID == "" {
		t.Fatalf("attempts %+v, want two with one operation id, the second a takeover", got)
	}
	if again := call(t, b, args, ask.RequestState, answers); again.Final.Text != r.Final.Text || len(impl.Sent()) != 2 {
		t.Fatalf("a retry after the takeover ran it again: %+v, %d attempts", again.Final, len(impl.Sent()))
	}
}

// Every effect method knows its operation id: a business one is the
// rendered idempotency key, the workflow's own names the workflow, the
// round and the state; neither is a takeover on a first attempt.
func TestEffectsKnowTheirOperationID(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	gate := toGate(t, h)
	call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if got := impl.AttemptsMade(); len(got) != 1 || got[0].OperationID != "transfer-acc-123-40" || got[0].Takeover {
		t.Fatalf("attempts %+v, want one of operation transfer-acc-123-40", got)
	}
	n := &testprog.NotifyImpl{}
	hn := mrtrtest.New(t, testprog.NewNotifyProgram(n))
	ask := call(t, hn, map[string]any{"to": "bob"}, "", nil)
	call(t, hn, map[string]any{"to": "bob"}, ask.RequestState, mcp.InputResponseMap{"note": mrtrtest.Accept(map[string]any{"text": "hi"})})
	if got := n.Sent(); len(got) != 1 || !strings.HasSuffix(string(got[0].OperationID), "-r2-send") || len(got[0].OperationID) != 32+len("-r2-send") {
		t.Fatalf("attempts %+v, want one of operation <workflow>-r2-send", got)
	}
}

// A store that swallows calls (a black hole) fails rounds within
// StoreTimeout with a retryable error instead of holding them; nothing is
// done, and once the store answers again the round runs once.
func TestBlackholedStoreFailsFast(t *testing.T) {
	impl := &testprog.TransferImpl{}
	fs := newFaultyStore(store.NewMemory(store.Options{}))
	h := faultHarness(t, testprog.NewTransferProgram(impl), fs, time.Second)
	gate := toGate(t, h)
	answers := mcp.InputResponseMap{"confirm": confirm(true)}
	fs.blackholed.Store(true)
	start := time.Now()
	r := call(t, h, transferArgs, gate.RequestState, answers)
	if took := time.Since(start); took > 3*time.Second { // StoreTimeout is 500ms
		t.Fatalf("a black-holed store held the round for %v", took)
	}
	if r.Final == nil || r.Final.Outcome != mrtr.OutcomeError || impl.SentCount() != 0 {
		t.Fatalf("round on a black-holed store: %+v, sent %d", r.Final, impl.SentCount())
	}
	fs.blackholed.Store(false)
	if r := call(t, h, transferArgs, gate.RequestState, answers); r.Final.Outcome != mrtr.OutcomeSuccess || impl.SentCount() != 1 {
		t.Fatalf("after the black hole: %+v, sent %d", r.Final, impl.SentCount())
	}
}

// A client that gives up while its round waits on the store (another
// attempt holds the claim) ends that round before its effect: when the
// store answers again, nothing runs for the client that left.
func TestClientGoneBeforeTheEffectRunsNothing(t *testing.T) {
	impl := &testprog.TransferImpl{SendDelay: 300 * time.Millisecond}
	fs := newFaultyStore(store.NewMemory(store.Options{}))
	h := faultHarness(t, testprog.NewTransferProgram(impl), fs, time.Second)
	gate := toGate(t, h)
	answers := mcp.InputResponseMap{"confirm": confirm(true)}
	fs.blackholed.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := h.Call(ctx, transferArgs, gate.RequestState, answers)
	fs.blackholed.Store(false)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("round of a client that left: %v, want its context's error", err)
	}
	time.Sleep(100 * time.Millisecond)
	if n := impl.SentCount(); n != 0 {
		t.Fatalf("sent %d times for a client that left before the effect", n)
	}
}

// Lease renewals that fail for a while are retried: a slow effect keeps
// its claim through a short outage of renewals, and a duplicate waits for
// it instead of taking over and sending twice.
func TestLeaseRenewalIsRetried(t *testing.T) {
	const lease = 150 * time.Millisecond
	impl := &testprog.TransferImpl{SendDelay: 700 * time.Millisecond}
	fs := newFaultyStore(store.NewMemory(store.Options{}))
	h := faultHarness(t, testprog.NewTransferProgram(impl), fs, lease)
	gate := toGate(t, h)
	answers := mcp.InputResponseMap{"confirm": confirm(true)}
	var wg sync.WaitGroup
	replies := make([]*mrtr.Reply, 2)
	wg.Go(func() { replies[0] = call(t, h, transferArgs, gate.RequestState, answers) })
	time.Sleep(20 * time.Millisecond)
	fs.renewalsDown.Store(true) // the first renewal (at lease/3) fails, and the next few
	time.Sleep(lease / 2)
	fs.renewalsDown.Store(false)
	time.Sleep(lease) // the duplicate comes after the first lease would have lapsed
	wg.Go(func() { replies[1] = call(t, h, transferArgs, gate.RequestState, answers) })
	wg.Wait()
	if impl.SentCount() != 1 || replies[0].Final.Text != replies[1].Final.Text {
		t.Fatalf("sent %d times; replies %+v and %+v", impl.SentCount(), replies[0].Final, replies[1].Final)
	}
}

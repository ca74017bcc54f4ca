package mrtr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// The runtime's own tests. The generated suites of the examples and of
// internal/testprog run the MRTR matrix against every program; these
// tests pin down the engine rules the matrix cannot see from outside.

var quiet = slog.New(slog.DiscardHandler)

var transferArgs = map[string]any{"account": "acc-123", "amount": 40}

func memo(note string) *mcp.ElicitResult { return mrtrtest.Accept(map[string]any{"note": note}) }

func confirm(yes bool) *mcp.ElicitResult { return mrtrtest.Accept(map[string]any{"confirm": yes}) }

func call[F any](t *testing.T, h *mrtrtest.Harness[F], args any, state string, responses mcp.InputResponseMap) *mrtr.Reply {
	t.Helper()
	reply, err := h.Call(context.Background(), args, state, responses)
	if err != nil {
		t.Fatalf("round failed: %v", err)
	}
	return reply
}

// toGate runs transfer up to its confirmation gate and returns that reply.
func toGate(t *testing.T, h *mrtrtest.Harness[*testprog.TransferFlow]) *mrtr.Reply {
	t.Helper()
	r1 := call(t, h, transferArgs, "", nil)
	r2 := call(t, h, transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent")})
	if r2.InputRequests["confirm"] == nil {
		t.Fatalf("expected the gate, got %+v", r2)
	}
	return r2
}

// A continuation value the spec refuses, stored by a handler, fails the
// round with a message naming the field, instead of being sealed.
func TestContinuationCheckedBeforeSealing(t *testing.T) {
	impl := &testprog.TransferImpl{}
	impl.Overdrawn.Store(true)
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	_, err := h.Call(context.Background(), transferArgs, "", nil)
	if err == nil || !strings.Contains(err.Error(), "balance: at least 0") || !strings.Contains(err.Error(), "at state askMemo") {
		t.Fatalf("a negative balance was sealed, or the error does not say which field: %v", err)
	}
	impl.Overdrawn.Store(false)
	if r := call(t, h, transferArgs, "", nil); r.InputRequests["memo"] == nil {
		t.Fatalf("with a valid balance the workflow asks for the memo: %+v", r)
	}
}

func TestTokenOfAnotherToolIsRejected(t *testing.T) {
	h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
	r1 := call(t, h, transferArgs, "", nil)
	vault := &mrtrtest.Harness[*testprog.VaultFlow]{
		Program: testprog.NewVaultProgram(&testprog.VaultImpl{}), Engine: h.Engine, Store: h.Store,
		Clock: h.Clock, Principal: h.Principal, Capabilities: h.Capabilities,
	}
	_, err := vault.Call(context.Background(), map[string]any{"vaultId": "v-1"}, r1.RequestState, nil)
	if !mrtrtest.IsInvalidState(err) {
		t.Fatalf("transfer's requestState opened for vault: %v", err)
	}
}

func TestTokenOfAnotherServerIsRejected(t *testing.T) {
	h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
	r1 := call(t, h, transferArgs, "", nil)
	other, err := mrtr.NewEngine(mrtr.Config{Audience: "another-server", Codec: mrtrtest.NewCodec(t, h.Clock), Store: h.Store, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	_, err = mrtr.Run(context.Background(), other, h.Program, mrtr.Request{
		Arguments: mustJSON(t, transferArgs), RequestState: r1.RequestState, Principal: h.Principal,
		Capabilities: mrtrtest.AllCapabilities(), InputResponses: mcp.InputResponseMap{"memo": memo("x")},
	})
	if !mrtrtest.IsInvalidState(err) {
		t.Fatalf("a token of audience mrtrtest opened on another-server: %v", err)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundAnsweredTwiceDifferently(t *testing.T) {
	h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
	r1 := call(t, h, transferArgs, "", nil)
	first := call(t, h, transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("rent")})
	// The same answer again replays the first reply, token included.
	again := call(t, h, transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("rent")})
	if again.RequestState != first.RequestState {
		t.Fatal("a retried round did not replay its reply")
	}
	// Another answer to the same continuation is refused.
	_, err := h.Call(context.Background(), transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("groceries")})
	if mrtrtest.ErrorCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "already used with other input") {
		t.Fatalf("second, different answer to one round: %v", err)
	}
}

// schemaChanged wraps a program as if its spec had changed shape.
type schemaChanged struct {
	mrtr.Program[*testprog.TransferFlow]
	d mrtrimpl.Descriptor
}

func (s schemaChanged) Descriptor() *mrtrimpl.Descriptor { return &s.d }

// The schema hash binds only tokens of envelope versions 1 and 2: after a
// change of the spec they are refused (schema_changed), while tokens of
// version 3 are checked value by value and open.
func TestSchemaHashBindsOnlyLegacyTokens(t *testing.T) {
	var logs bytes.Buffer
	p := testprog.NewTransferProgram(&testprog.TransferImpl{})
	h := mrtrtest.New(t, p, mrtrtest.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	r1 := call(t, h, transferArgs, "", nil)
	changed := schemaChanged{Program: p, d: *p.Descriptor()}
	changed.d.SchemaHash++
	h.Program = changed
	_, err := h.Call(context.Background(), transferArgs, loadV2Tokens(t)["transfer/askMemo"].Token, mcp.InputResponseMap{"memo": memo("x")})
	if !mrtrtest.IsInvalidState(err) {
		t.Fatalf("a v2 token of an older schema: %v", err)
	}
	if !strings.Contains(logs.String(), "reason=schema_changed") {
		t.Fatalf("the log does not say why:\n%s", logs.String())
	}
	if r := call(t, h, transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("x"), "summary": mrtrtest.Text("x")}); r.InputRequests["confirm"] == nil {
		t.Fatalf("a v3 token after a schema hash change: %+v", r)
	}
}

func TestExpiredAndTamperedReasonsAreLoggedNotShown(t *testing.T) {
	var logs bytes.Buffer
	h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}), mrtrtest.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	r1 := call(t, h, transferArgs, "", nil)
	_, err := h.Call(context.Background(), transferArgs, mrtrtest.Tamper(r1.RequestState), nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Message != seal.PublicMessage {
		t.Fatalf("tampered: %v", err)
	}
	h.Clock.Advance(5*time.Minute + seal.DefaultSkew + time.Second)
	_, err = h.Call(context.Background(), transferArgs, r1.RequestState, nil)
	if !errors.As(err, &je) || je.Message != seal.PublicMessage {
		t.Fatalf("expired: %v", err)
	}
	for _, want := range []string{"reason=forged", "reason=expired"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.String())
		}
	}
}

func TestSensitiveStateStaysServerSide(t *testing.T) {
	impl := &testprog.VaultImpl{}
	h := mrtrtest.New(t, testprog.NewVaultProgram(impl))
	args := map[string]any{"vaultId": "v-7"}
	r1 := call(t, h, args, "", nil)
	// The token carries a reference (and the digests of the arguments and
	// of the one question sent), not the data: its length does not depend
	// on the owner's (the handler stores "owner-of-" and the vault id).
	long := call(t, h, map[string]any{"vaultId": "v-77777777"}, "", nil)
	if n, m := len(r1.RequestState), len(long.RequestState); n != m || n > 190 {
		t.Fatalf("by-reference requestStates of %d and %d characters: they carry the data", n, m)
	}
	final := call(t, h, args, r1.RequestState, mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "1234"})})
	if final.NeedsInput() || final.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("vault: %+v", final)
	}
	// The workflow's server-side records are consumed on completion, yet a
	// retry of the final round still gets the same reply.
	again := call(t, h, args, r1.RequestState, mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "1234"})})
	if again.Final == nil || again.Final.Text != final.Final.Text || impl.Opened != 1 {
		t.Fatalf("retry after completion: %+v (opened %d times)", again.Final, impl.Opened)
	}
}

func TestReferenceGoneIsRejected(t *testing.T) {
	h := mrtrtest.New(t, testprog.NewVaultProgram(&testprog.VaultImpl{}))
	args := map[string]any{"vaultId": "v-7"}
	r1 := call(t, h, args, "", nil)
	// The record expires (swept) while the token is still valid.
	h.Clock.Advance(2*time.Minute + seal.DefaultSkew + time.Second)
	if _, err := h.Store.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := h.Call(context.Background(), args, r1.RequestState, mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "1234"})})
	if !mrtrtest.IsInvalidState(err) {
		t.Fatalf("continuation whose record is gone: %v", err)
	}
}

func TestReferenceModeNeedsAStore(t *testing.T) {
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "a", Codec: mrtrtest.NewCodec(t, clock)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = mrtr.Run(context.Background(), e, testprog.NewVaultProgram(&testprog.VaultImpl{}), mrtr.Request{
		Arguments: mustJSON(t, map[string]any{"vaultId": "v-1"}), Capabilities: mrtrtest.AllCapabilities(),
	})
	if err == nil || !strings.Contains(err.Error(), "needs Config.Store") {
		t.Fatalf("reference mode without a store: %v", err)
	}
}

func TestCapabilities(t *testing.T) {
	requiredCaps := func(t *testing.T, err error) string {
		t.Helper()
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != -32021 {
			t.Fatalf("want -32021, got %v", err)
		}
		var data struct {
			RequiredCapabilities map[string]map[string]any `json:"requiredCapabilities"`
		}
		if err := json.Unmarshal(je.Data, &data); err != nil {
			t.Fatal(err)
		}
		var names []string
		for n := range data.RequiredCapabilities {
			names = append(names, n)
		}
		return strings.Join(names, ",")
	}
	t.Run("tool-level requirement", func(t *testing.T) {
		h := mrtrtest.New(t, testprog.NewNeedsRootsProgram(&testprog.NeedsRootsImpl{}))
		h.Capabilities = mrtrtest.Capabilities("sampling", "elicitation")
		_, err := h.Call(context.Background(), nil, "", nil)
		if got := requiredCaps(t, err); got != "roots" {
			t.Fatalf("required %s, want roots", got)
		}
	})
	t.Run("a required request the client cannot answer", func(t *testing.T) {
		h := mrtrtest.New(t, testprog.NewNeedsRootsProgram(&testprog.NeedsRootsImpl{}))
		h.Capabilities = mrtrtest.Capabilities("roots")
		_, err := h.Call(context.Background(), nil, "", nil)
		if got := requiredCaps(t, err); got != "sampling" {
			t.Fatalf("required %s, want sampling", got)
		}
	})
	t.Run("an optional request is left out", func(t *testing.T) {
		h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
		h.Capabilities = mrtrtest.Capabilities("elicitation")
		r1 := call(t, h, transferArgs, "", nil)
		if _, ok := r1.InputRequests["summary"]; ok || r1.InputRequests["memo"] == nil {
			t.Fatalf("requests %v: want memo without summary", r1.InputRequests)
		}
		// ...and not waited for: the memo alone moves on.
		r2 := call(t, h, transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("rent")})
		if r2.InputRequests["confirm"] == nil {
			t.Fatalf("after the memo: %+v", r2)
		}
	})
	t.Run("no capability at all", func(t *testing.T) {
		h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
		h.Capabilities = nil
		_, err := h.Call(context.Background(), transferArgs, "", nil)
		if got := requiredCaps(t, err); got != "elicitation" {
			t.Fatalf("required %s, want elicitation", got)
		}
	})
}

func TestAnswersUpFront(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	h.Capabilities = nil // an old client: it can answer nothing
	args := map[string]any{"account": "acc-123", "amount": 40, "inputs": map[string]any{
		"memo": map[string]any{"note": "rent"}, "confirm": true,
	}}
	reply := call(t, h, args, "", nil)
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeSuccess || impl.SentCount() != 1 {
		t.Fatalf("up-front answers: %+v (sent %d)", reply, impl.SentCount())
	}
	// Up-front answers are validated like interactive ones.
	bad := map[string]any{"account": "acc-123", "amount": 40, "inputs": map[string]any{"memo": map[string]any{"note": "   "}, "confirm": true}}
	h.Capabilities = mrtrtest.AllCapabilities()
	reply = call(t, h, bad, "", nil)
	ep, ok := reply.InputRequests["memo"].(*mcp.ElicitParams)
	if !ok || !strings.Contains(ep.Message, "must not be blank") {
		t.Fatalf("a blank up-front memo was accepted: %+v", reply)
	}
}

func TestConfirmationIsNotTakenBeforeTheGateWasShown(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	r1 := call(t, h, transferArgs, "", nil)
	// The memo and a premature "yes" in one round: the gate is shown, not passed.
	r2 := call(t, h, transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent"), "confirm": confirm(true)})
	if r2.InputRequests["confirm"] == nil || impl.SentCount() != 0 {
		t.Fatalf("premature confirmation passed the gate: %+v", r2)
	}
	// A "no" to the gate ends the workflow without sending.
	no := call(t, h, transferArgs, r2.RequestState, mcp.InputResponseMap{"confirm": confirm(false)})
	if no.Final == nil || no.Final.Outcome != mrtr.OutcomeCancelled || impl.SentCount() != 0 {
		t.Fatalf("declined gate: %+v", no)
	}
}

func TestEffects(t *testing.T) {
	t.Run("a business operation id stops a second workflow", func(t *testing.T) {
		impl := &testprog.TransferImpl{}
		h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
		for i := range 2 {
			gate := toGate(t, h)
			final := call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
			want := mrtr.OutcomeSuccess
			if i == 1 {
				want = mrtr.OutcomeRejected
			}
			if final.Final == nil || final.Final.Outcome != want {
				t.Fatalf("workflow %d: %+v, want %s", i+1, final.Final, want)
			}
		}
		if impl.SentCount() != 1 {
			t.Fatalf("sent %d times, want 1", impl.SentCount())
		}
	})
	t.Run("a rejection is recorded and replayed", func(t *testing.T) {
		impl := &testprog.TransferImpl{}
		impl.RejectSend.Store(true)
		h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
		gate := toGate(t, h)
		final := call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
		if final.Final.Outcome != mrtr.OutcomeRejected || !strings.Contains(final.Final.Text, "insufficient funds") {
			t.Fatalf("rejected effect: %+v", final.Final)
		}
		impl.RejectSend.Store(false)
		again := call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
		if again.Final.Text != final.Final.Text || impl.SentCount() != 0 {
			t.Fatalf("retry after a recorded rejection: %+v, sent %d", again.Final, impl.SentCount())
		}
	})
	t.Run("a failed effect is not recorded: a retry performs it once", func(t *testing.T) {
		impl := &testprog.TransferImpl{}
		impl.FailSend.Store(true)
		h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
		gate := toGate(t, h)
		failed := call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
		if failed.Final.Outcome != mrtr.OutcomeError || !strings.Contains(failed.Final.Text, "a dependency failed") {
			t.Fatalf("dependency failure: %+v", failed.Final)
		}
		if strings.Contains(failed.Final.Text, "bank API") {
			t.Fatalf("the client sees the internal error: %q", failed.Final.Text)
		}
		// A dependency failure is not the round's final word: the same
		// request, retried, performs the effect once.
		ok := call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
		if ok.Final.Outcome != mrtr.OutcomeSuccess || impl.SentCount() != 1 {
			t.Fatalf("after the failure: %+v, sent %d", ok.Final, impl.SentCount())
		}
		again := call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
		if again.Final.Text != ok.Final.Text || impl.SentCount() != 1 {
			t.Fatalf("a retry of the successful round: %+v, sent %d", again.Final, impl.SentCount())
		}
	})
}

func TestAuthorizeRunsOnEveryRound(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	gate := toGate(t, h)
	call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if impl.Authorized != 3 {
		t.Fatalf("Authorize ran %d times in 3 rounds", impl.Authorized)
	}
	impl.Deny.Store(true)
	gate2 := func() *mrtr.Reply { impl.Deny.Store(false); defer impl.Deny.Store(true); return toGate(t, h) }()
	denied := call(t, h, transferArgs, gate2.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if denied.Final == nil || denied.Final.Outcome != mrtr.OutcomeUnauthorized || impl.SentCount() != 1 {
		t.Fatalf("revoked authorization at the final round: %+v", denied.Final)
	}
}

// Invalid arguments end the call with an error result naming each problem
// (MCP: input validation errors are tool execution errors, so a model can
// correct itself), not a JSON-RPC error.
func TestInvalidArguments(t *testing.T) {
	h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
	r, err := h.Call(context.Background(), map[string]any{"account": "nope", "amount": 0, "extra": 1}, "", nil)
	if err != nil || r.Final == nil || r.Final.Outcome != mrtr.OutcomeInvalidArguments || !r.Final.IsError() {
		t.Fatalf("invalid arguments: %+v, %v; want an error result", r, err)
	}
	for _, want := range []string{"invalid arguments: ", "account: must match", "amount: at least 1", "extra: unknown argument"} {
		if !strings.Contains(r.Final.Text, want) {
			t.Errorf("message %q lacks %q", r.Final.Text, want)
		}
	}
}

func TestARoundIsBounded(t *testing.T) {
	h := mrtrtest.New(t, testprog.NewSpinProgram(&testprog.SpinImpl{}))
	_, err := h.Call(context.Background(), nil, "", nil)
	if err == nil || !strings.Contains(err.Error(), "without asking for input") {
		t.Fatalf("endless loop of checks: %v", err)
	}
}

func TestCancellationMidRound(t *testing.T) {
	impl := &testprog.TransferImpl{}
	impl.Block.Store(true)
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var err error
	wg.Go(func() { _, err = h.Call(ctx, transferArgs, "", nil) })
	time.Sleep(20 * time.Millisecond)
	cancel()
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled round: %v", err)
	}
}

func TestNoStoreRunsSealedPrograms(t *testing.T) {
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "a", Codec: mrtrtest.NewCodec(t, clock)})
	if err != nil {
		t.Fatal(err)
	}
	h := &mrtrtest.Harness[*testprog.TransferFlow]{Program: testprog.NewTransferProgram(&testprog.TransferImpl{}), Engine: e, Clock: clock, Principal: "alice", Capabilities: mrtrtest.AllCapabilities()}
	gate := toGate(t, h)
	final := call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if final.Final == nil || final.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("without a store: %+v", final)
	}
}

func TestEngineConfigIsChecked(t *testing.T) {
	if _, err := mrtr.NewEngine(mrtr.Config{}); err == nil {
		t.Fatal("an engine without audience or codec")
	}
	if _, err := mrtr.NewEngine(mrtr.Config{Audience: "a"}); err == nil || !strings.Contains(err.Error(), "Codec") {
		t.Fatalf("an engine without a codec: %v", err)
	}
	var _ store.Store = store.NewMemory(store.Options{})
}

// An Authorize that cannot decide is a dependency failure, not a refusal.
func TestAuthorizeFailureIsADependencyFailure(t *testing.T) {
	h := mrtrtest.New(t, testprog.NewSpinProgram(brokenAuthorize{&testprog.SpinImpl{}}))
	reply := call(t, h, nil, "", nil)
	if reply.Final == nil || reply.Final.Outcome != mrtr.OutcomeError || !strings.Contains(reply.Final.Text, "authorization check failed") {
		t.Fatalf("Authorize returned a plain error: %+v", reply.Final)
	}
}

type brokenAuthorize struct{ *testprog.SpinImpl }

func (brokenAuthorize) Authorize(context.Context, *testprog.SpinFlow) error {
	return errors.New("directory unreachable")
}

// A panicking handler fails its round with an internal error; the server
// goes on, and the round can be retried.
func TestHandlerPanicFailsTheRound(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	gate := toGate(t, h)
	impl.Panic.Store(true)
	_, err := h.Call(context.Background(), transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if mrtrtest.ErrorCode(err) != jsonrpc.CodeInternalError {
		t.Fatalf("panicking handler: %v", err)
	}
	impl.Panic.Store(false)
	ok := call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if ok.Final == nil || ok.Final.Outcome != mrtr.OutcomeSuccess || impl.SentCount() != 1 {
		t.Fatalf("retry after the panic: %+v", ok.Final)
	}
}

// A client that goes away right after the effect ran does not make its
// retry run the effect again: the round finishes and records its reply.
func TestDisconnectAfterTheEffect(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
	gate := toGate(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	impl.AfterSend = cancel
	first, err := h.Call(ctx, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if err != nil || first.Final == nil || first.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("round whose client left after the effect: %+v, %v", first, err)
	}
	impl.AfterSend = nil
	retry := call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	if retry.Final.Text != first.Final.Text || impl.SentCount() != 1 {
		t.Fatalf("retry: %+v, sent %d", retry.Final, impl.SentCount())
	}
}

// A round slower than the lease keeps its claim: a retry waits for it
// instead of taking over and sending twice.
func TestSlowRoundKeepsItsLease(t *testing.T) {
	impl := &testprog.TransferImpl{SendDelay: 600 * time.Millisecond}
	st := store.NewMemory(store.Options{})
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "slow", Codec: mrtrtest.NewCodec(t, clock), Store: st, Logger: quiet, Lease: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h := &mrtrtest.Harness[*testprog.TransferFlow]{Program: testprog.NewTransferProgram(impl), Engine: e, Store: st, Clock: clock, Principal: "alice", Capabilities: mrtrtest.AllCapabilities()}
	gate := toGate(t, h)
	replies := make([]*mrtr.Reply, 2)
	var wg sync.WaitGroup
	for i := range replies {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * 300 * time.Millisecond) // the retry comes after two leases
			replies[i] = call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
		})
	}
	wg.Wait()
	if impl.SentCount() != 1 || replies[0].Final.Text != replies[1].Final.Text {
		t.Fatalf("sent %d times; replies %q and %q", impl.SentCount(), replies[0].Final.Text, replies[1].Final.Text)
	}
}

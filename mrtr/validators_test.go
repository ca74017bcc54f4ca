package mrtr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// Custom validators: mrtr.Invalid is for the user to correct; any other
// error is a dependency failure the user is not asked to "correct".

func transferHarness(t *testing.T, impl *testprog.TransferImpl) (*mrtrtest.Harness[*testprog.TransferFlow], *bytes.Buffer) {
	var logs bytes.Buffer
	h := mrtrtest.New(t, testprog.NewTransferProgram(impl), mrtrtest.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	return h, &logs
}

// wantDependencyError checks that reply ends the workflow as a dependency
// error, that secret (the validator's error text) is in the log, and that
// the client receives nothing of it.
func wantDependencyError(t *testing.T, reply *mrtr.Reply, logs *bytes.Buffer, secret string) {
	t.Helper()
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeError || !strings.Contains(reply.Final.Text, "a dependency failed; try again later") {
		t.Fatalf("reply %+v (%+v), want outcome error saying a dependency failed", reply, reply.Final)
	}
	sent, _ := json.Marshal(reply)
	if strings.Contains(string(sent), secret) || strings.Contains(string(sent), "Please correct") {
		t.Fatalf("the client was sent %s", sent)
	}
	if !strings.Contains(logs.String(), secret) {
		t.Fatalf("%q is not in the log:\n%s", secret, logs)
	}
}

func TestArgumentValidatorOutage(t *testing.T) {
	impl := &testprog.TransferImpl{}
	impl.DirectoryDown.Store(true)
	h, logs := transferHarness(t, impl)
	reply, err := h.Call(context.Background(), transferArgs, "", nil)
	if err != nil {
		t.Fatalf("an argument validator whose backend is down: %v, want an error result", err)
	}
	wantDependencyError(t, reply, logs, "account directory at 10.1.2.3:8443 unavailable")
	if impl.Authorized != 0 {
		t.Error("Authorize ran with arguments that could not be validated")
	}
}

func TestAnswerValidatorOutage(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h, logs := transferHarness(t, impl)
	r1 := call(t, h, transferArgs, "", nil)
	impl.NotBlankDown.Store(true)
	r2 := call(t, h, transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent")})
	wantDependencyError(t, r2, logs, "text service unavailable: connection refused")
	if !strings.Contains(r2.Final.Text, "failed at askMemo") {
		t.Errorf("the error does not say where the workflow failed: %q", r2.Final.Text)
	}
}

func TestValidatorInvalid(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h, _ := transferHarness(t, impl)
	reply := call(t, h, map[string]any{"account": "acc-404", "amount": 40}, "", nil)
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeInvalidArguments || !strings.Contains(reply.Final.Text, "account: no account acc-404") {
		t.Fatalf("an argument the validator refuses: %+v, want invalid arguments naming it", reply.Final)
	}
	r1 := call(t, h, transferArgs, "", nil)
	r2 := call(t, h, transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("   "), "summary": mrtrtest.Text("rent")})
	ep, ok := r2.InputRequests["memo"].(*mcp.ElicitParams)
	if !ok || !strings.Contains(ep.Message, "Please correct: note: must not be blank.") {
		t.Fatalf("a blank memo: %+v, want the memo asked again saying what to correct", r2)
	}
}

// A validator that returns mrtr.Reject refuses the request, as a check
// does.
func TestValidatorRejection(t *testing.T) {
	impl := &testprog.TransferImpl{}
	impl.RejectAccounts.Store(true)
	h, _ := transferHarness(t, impl)
	reply := call(t, h, transferArgs, "", nil)
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeRejected || reply.Final.Text != "transfers are suspended" {
		t.Fatalf("reply %+v, want rejected with the validator's message", reply.Final)
	}
}

// A validator that sees the call cancelled makes the round a cancellation,
// not an invalid argument nor a failure.
func TestValidatorCancelled(t *testing.T) {
	h, _ := transferHarness(t, &testprog.TransferImpl{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Call(ctx, transferArgs, "", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v, want context.Canceled", err)
	}
}

// A value that breaks a built-in constraint is refused as such, and never
// reaches its validator (whose backend is down here).
func TestBuiltinConstraintsBeforeValidator(t *testing.T) {
	impl := &testprog.TransferImpl{}
	impl.DirectoryDown.Store(true)
	h, _ := transferHarness(t, impl)
	reply := call(t, h, map[string]any{"account": "acc-1234", "amount": 40}, "", nil)
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeInvalidArguments ||
		!strings.Contains(reply.Final.Text, "account: at most 7 characters") || strings.Contains(reply.Final.Text, "unavailable") {
		t.Fatalf("an account breaking maxLength: %+v, want invalid arguments for maxLength only", reply.Final)
	}
}

// One set of services picked in three spellings is one answer: one
// operation id, one deployment; the second and third workflows are
// refused as the same operation.
func TestMultiSelectIsOneAnswer(t *testing.T) {
	impl := &testprog.DeployImpl{}
	h := mrtrtest.New(t, testprog.NewDeployProgram(impl))
	args := map[string]any{"env": "staging"}
	var ends []string
	for _, services := range [][]any{{"billing", "checkout"}, {"checkout", "billing"}, {"billing", "checkout", "billing"}} {
		r1 := call(t, h, args, "", nil)
		r2 := call(t, h, args, r1.RequestState, mcp.InputResponseMap{"pick": mrtrtest.Accept(map[string]any{"services": services})})
		if r2.NeedsInput() {
			t.Fatalf("services %v: asked again %v", services, r2.InputRequests)
		}
		ends = append(ends, string(r2.Final.Outcome)+": "+r2.Final.Text)
	}
	if got := impl.Deployments(); len(got) != 1 || got[0] != "staging: billing, checkout" {
		t.Errorf("deployments %q, want one of billing, checkout", got)
	}
	if ends[0] != "success: Deployed billing, checkout to staging." || !strings.HasPrefix(ends[1], "rejected: ") || !strings.HasPrefix(ends[2], "rejected: ") {
		t.Errorf("outcomes %q, want success then two refusals", ends)
	}
}

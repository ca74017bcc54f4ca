package mrtr_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// Validators with context (reads:): the validator reads the flow (here
// the release argument), its mrtr.Invalid is shown and the question asked
// again, at most maxAttempts answers in all, and any other error is a
// dependency failure the user is never shown. Next to it, a multi-select
// that must pick more options than were found is not asked at all.

var bundleArgs = map[string]any{"release": "4.2"}

func bundleHarness(t *testing.T, impl *testprog.BundleImpl) (*mrtrtest.Harness[*testprog.BundleFlow], *bytes.Buffer) {
	var logs bytes.Buffer
	return mrtrtest.New(t, testprog.NewBundleProgram(impl), mrtrtest.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))), &logs
}

func newBundle() *testprog.BundleImpl {
	return &testprog.BundleImpl{Services: []string{"api", "web", "worker"}, Tickets: map[string]string{"CHG-1": "4.1", "CHG-2": "4.2"}}
}

func wantTicketAskedAgain(t *testing.T, reply *mrtr.Reply, why string) {
	t.Helper()
	ep, ok := reply.InputRequests["ticket"].(*mcp.ElicitParams)
	if !ok {
		t.Fatalf("reply %+v (%+v) does not ask for the ticket again", reply, reply.Final)
	}
	if !strings.Contains(ep.Message, "Please correct: id: "+why) {
		t.Fatalf("asked again with %q, want it to say %q", ep.Message, why)
	}
}

func TestFlowValidatorReadsTheFlowAndAsksAgain(t *testing.T) {
	impl := newBundle()
	h, _ := bundleHarness(t, impl)
	r1 := call(t, h, bundleArgs, "", nil)
	r2 := call(t, h, bundleArgs, r1.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-1")})
	// The validator saw the release argument: the ticket is for 4.1.
	wantTicketAskedAgain(t, r2, "ticket CHG-1 covers release 4.1, not 4.2")
	r3 := call(t, h, bundleArgs, r2.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-2")})
	if _, ok := r3.InputRequests["services"]; !ok {
		t.Fatalf("a ticket for the release: %+v (%+v), want the services asked for", r3, r3.Final)
	}
	if n := impl.Validations.Load(); n != 2 {
		t.Fatalf("the validator ran %d times, want 2 (once per answer)", n)
	}
}

func TestFlowValidatorIsBounded(t *testing.T) {
	impl := newBundle()
	h, _ := bundleHarness(t, impl)
	r := call(t, h, bundleArgs, "", nil)
	for i, id := range []string{"CHG-1", "CHG-9"} {
		r = call(t, h, bundleArgs, r.RequestState, mcp.InputResponseMap{"ticket": ticket(id)})
		if !r.NeedsInput() {
			t.Fatalf("refusal %d ended the workflow: %+v", i+1, r.Final)
		}
	}
	// A retry of the round before the last refusal is refused the same
	// way: the count is in the continuation it carries, not reset.
	last := r.RequestState
	for range 2 {
		r = call(t, h, bundleArgs, last, mcp.InputResponseMap{"ticket": ticket("CHG-7")})
		if r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeFailed || r.Final.Text != "No change ticket covers release 4.2." {
			t.Fatalf("the third refused answer: %+v (%+v), want noTicket", r, r.Final)
		}
	}
}

func TestFlowValidatorDependencyFailure(t *testing.T) {
	impl := newBundle()
	h, logs := bundleHarness(t, impl)
	r1 := call(t, h, bundleArgs, "", nil)
	impl.Down.Store(true)
	r2 := call(t, h, bundleArgs, r1.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-2")})
	wantDependencyError(t, r2, logs, ErrTicketDirectoryText)
	if !strings.Contains(logs.String(), "validator ticketForRelease of ticket.id failed") {
		t.Fatalf("the log does not name the validator and the value:\n%s", logs)
	}
	// Nothing was counted against the user: once the directory is back, a
	// retry of the same round goes on.
	impl.Down.Store(false)
	r3 := call(t, h, bundleArgs, r1.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-2")})
	if _, ok := r3.InputRequests["services"]; !ok {
		t.Fatalf("the retry after the outage: %+v (%+v), want the services asked for", r3, r3.Final)
	}
}

// ErrTicketDirectoryText is the validator's dependency error, which names
// an internal host.
var ErrTicketDirectoryText = testprog.ErrTicketDirectoryDown.Error()

func TestTooFewOptionsForMinItemsIsNotAsked(t *testing.T) {
	impl := newBundle()
	impl.Services = []string{"api"} // a bundle needs two
	h, logs := bundleHarness(t, impl)
	r1 := call(t, h, bundleArgs, "", nil)
	r2 := call(t, h, bundleArgs, r1.RequestState, mcp.InputResponseMap{"ticket": ticket("CHG-2")})
	if r2.NeedsInput() || r2.Final.Outcome != mrtr.OutcomeError {
		t.Fatalf("a multi-select with fewer options than minItems: %+v (%+v), want the round failed, not asked", r2, r2.Final)
	}
	sent, _ := json.Marshal(r2)
	if strings.Contains(string(sent), "services") && strings.Contains(string(sent), "inputRequests") {
		t.Fatalf("the question was sent: %s", sent)
	}
	for _, want := range []string{"form field names must pick at least 2", "continuation field found, which holds 1"} {
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("the log does not say %q:\n%s", want, logs)
		}
	}
}

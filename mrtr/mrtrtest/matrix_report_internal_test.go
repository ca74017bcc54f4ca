package mrtrtest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// pickyTransfer is the real transfer handler with an Authorize that
// decides per resource, as real ones do: bob may move money from acc-001
// only, mallory from nowhere.
type pickyTransfer struct{ *testprog.TransferImpl }

func (h pickyTransfer) Authorize(ctx context.Context, f *testprog.TransferFlow) error {
	switch {
	case f.Call.Principal == "mallory":
		return mrtr.Forbidden("mallory may not move money")
	case f.Call.Principal == "bob" && f.Args.Account != "acc-001":
		return mrtr.Forbidden("bob may only move money from acc-001")
	}
	return nil
}

// transferFixtures run the matrix on h with alice moving money from
// acc-000.
func transferFixtures(h *testprog.TransferImpl) Fixtures {
	return Fixtures{
		Args: map[string]any{"account": "acc-000", "amount": 1},
		Answers: map[string]mcp.InputResponse{
			"memo":    Accept(map[string]any{"note": "rent", "urgent": true}),
			"summary": Text("A sampled answer."),
		},
		Invalid:      map[string]mcp.InputResponse{"memo": Accept(map[string]any{"note": 12345})},
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    map[string]any{"account": "acc-001", "amount": 2},
		Effects:      h.SentCount,
		Break: func() func() {
			h.DirectoryDown.Store(true)
			return func() { h.DirectoryDown.Store(false) }
		},
	}
}

// runRecorded runs the matrix on a recorder and returns its failures.
func runRecorded[F any](t *testing.T, p mrtr.Program[F], fx Fixtures) []string {
	t.Helper()
	rec := newRecorder(t)
	rec.run(rec, func(t tb) { runMatrix(t, p, fx, nil) })
	failures := rec.failures()
	for _, f := range failures {
		// No struct dumps, pointers or bare nils: words only.
		for _, bad := range []string{"<nil>", "0xc", "&{", "%!"} {
			if strings.Contains(f, bad) {
				t.Errorf("a failure message contains %q: %s", bad, f)
			}
		}
	}
	return failures
}

// A second caller the handler's Authorize refuses for the workflow's
// resource: the failure names the scenario and the round, says the restart
// error was wanted and that Authorize refused bob, with its message, and
// says what to change in the fixtures. No other scenario fails.
func TestMatrixSaysAuthorizeRefusedTheOtherCaller(t *testing.T) {
	h := &testprog.TransferImpl{}
	failures := runRecorded(t, testprog.NewTransferProgram(pickyTransfer{h}), transferFixtures(h))
	want := `state of another caller: scenario "state of another caller", round 2: want the restart error (JSON-RPC -32602, ` + seal.PublicMessage + `): ` +
		`the requestState was issued to "alice", and "bob" sent it; ` +
		`the handler's Authorize refused "bob" ("not authorized: bob may only move money from acc-001"). ` +
		`The scenario needs Fixtures.Other ("bob") authorized with the arguments {"account":"acc-000","amount":1}: ` +
		`give it a caller and arguments Authorize allows (for this scenario only: Fixtures.Scenarios)`
	if !slices.Equal(failures, []string{want}) {
		t.Fatalf("failures:\n%s\nwant only:\n%s", strings.Join(failures, "\n"), want)
	}
}

// The same fixtures pass once the scenario gets a resource bob may use.
func TestMatrixScenarioFixtures(t *testing.T) {
	h := &testprog.TransferImpl{}
	fx := transferFixtures(h)
	fx.Scenarios = map[string]Override{ScenarioOtherCaller: {Args: map[string]any{"account": "acc-001", "amount": 1}}}
	if failures := runRecorded(t, testprog.NewTransferProgram(pickyTransfer{h}), fx); len(failures) > 0 {
		t.Fatalf("failures:\n%s", strings.Join(failures, "\n"))
	}
}

// The other arguments name a resource alice may not use: Authorize, not
// the requestState binding, refused the round, and the failure says so.
func TestMatrixSaysAuthorizeRefusedTheOtherArguments(t *testing.T) {
	h := &testprog.TransferImpl{}
	fx := transferFixtures(h)
	fx.Principal, fx.Other = "bob", "alice"
	fx.Args, fx.OtherArgs = map[string]any{"account": "acc-001", "amount": 1}, map[string]any{"account": "acc-000", "amount": 1}
	failures := runRecorded(t, testprog.NewTransferProgram(pickyTransfer{h}), fx)
	want := `state with other arguments: scenario "state with other arguments", round 2: want the restart error (JSON-RPC -32602, ` + seal.PublicMessage + `): ` +
		`the requestState is bound to {"account":"acc-001","amount":1} and was sent with {"account":"acc-000","amount":1}; ` +
		`the handler's Authorize refused "bob" ("not authorized: bob may only move money from acc-001"). ` +
		`The scenario needs Fixtures.Principal ("bob") authorized with the arguments {"account":"acc-000","amount":1}`
	if len(failures) != 1 || !strings.HasPrefix(failures[0], want) {
		t.Fatalf("failures:\n%s\nwant only one starting:\n%s", strings.Join(failures, "\n"), want)
	}
}

// A handler whose effect refuses: the fixture workflow does not end as it
// should, and the failure says in which round, at which state, and the
// refusal's text.
func TestMatrixSaysHowTheWorkflowEnded(t *testing.T) {
	h := &testprog.TransferImpl{}
	h.RejectSend.Store(true)
	failures := runRecorded(t, testprog.NewTransferProgram(pickyTransfer{h}), transferFixtures(h))
	want := `complete input: scenario "complete input", round 3: want the workflow to end success; ` +
		`it was refused at state send (mrtr.Reject: "insufficient funds in acc-000")`
	if len(failures) == 0 || failures[0] != want {
		t.Fatalf("failures:\n%s\nwant first:\n%s", strings.Join(failures, "\n"), want)
	}
}

// A handler that refuses no one: the unauthorized scenario says who
// called and how the round ended.
func TestMatrixSaysTheUnauthorizedCallerWasLetIn(t *testing.T) {
	h := &testprog.TransferImpl{}
	failures := runRecorded(t, testprog.NewTransferProgram(h), transferFixtures(h))
	want := `unauthorized: scenario "unauthorized", round 1: want outcome unauthorized: "mallory" calls (Fixtures.Unauthorized); ` +
		`it asked for "memo" ("Write a memo for the transfer of 1 from acc-000 (balance 500).") and "summary" ("Summarise the transfer of 1 from acc-000.")`
	if !slices.Equal(failures, []string{want}) {
		t.Fatalf("failures:\n%s\nwant only:\n%s", strings.Join(failures, "\n"), want)
	}
}

func TestMatrixRefusesUnknownScenarioFixtures(t *testing.T) {
	h := &testprog.TransferImpl{}
	fx := transferFixtures(h)
	fx.Scenarios = map[string]Override{"other principal": {Other: "carol"}}
	failures := runRecorded(t, testprog.NewTransferProgram(h), fx)
	if len(failures) != 1 || !strings.Contains(failures[0], `Fixtures.Scenarios names "other principal", which is not a scenario (complete input, missing input,`) {
		t.Fatalf("failures: %q", failures)
	}
}

// Fixtures whose answer validation refuses: the failure says which
// question came again, and why.
func TestMatrixSaysTheFixturesAnswerWasRefused(t *testing.T) {
	h := &testprog.TransferImpl{}
	fx := transferFixtures(h)
	fx.Answers = merged(fx.Answers, map[string]mcp.InputResponse{"memo": Accept(map[string]any{"note": " "})})
	failures := runRecorded(t, testprog.NewTransferProgram(pickyTransfer{h}), fx)
	want := `complete input: scenario "complete input", round 2: want the answers of the fixtures taken; ` +
		`it asked again for "memo" ("Write a memo for the transfer of 1 from acc-000 (balance 500).\n\nPlease correct: note: must not be blank."). ` +
		`The answers in Fixtures.Answers (or the variant's) must be valid: what follows "Please correct:" says what validation refused`
	if len(failures) == 0 || failures[0] != want {
		t.Fatalf("failures:\n%s\nwant first:\n%s", strings.Join(failures, "\n"), want)
	}
	// Over HTTP too the refusal is named, not taken for a loop.
	if f := failureOf(failures, ScenarioHTTP); !strings.Contains(f, "must be valid") || strings.Contains(f, "keeps asking") {
		t.Fatalf("over HTTP: %s", f)
	}
	// Over HTTP too the refusal is named, not taken for a loop.
	if f := failureOf(failures, ScenarioHTTP); !strings.Contains(f, "must be valid") || strings.Contains(f, "keeps asking") {
		t.Fatalf("over HTTP: %s", f)
	}
}

// A Break that breaks nothing: the failure says the switch did not hold.
func TestMatrixSaysBreakDidNotHold(t *testing.T) {
	h := &testprog.TransferImpl{}
	fx := transferFixtures(h)
	fx.Break = func() func() { return func() {} }
	failures := runRecorded(t, testprog.NewTransferProgram(pickyTransfer{h}), fx)
	want := `dependency failure: scenario "dependency failure": with Fixtures.Break armed, every workflow ended as it does without it (tried the fixture workflow (`
	f := failureOf(failures, ScenarioDependency)
	if !strings.HasPrefix(f, want) || !strings.HasSuffix(f, "): the switch did not hold. Break must make a dependency that the handler's checks or effects call fail until restore is called (a database or client the handler holds, not a copy)") {
		t.Fatalf("dependency failure: %s", f)
	}
}

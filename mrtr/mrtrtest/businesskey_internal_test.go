package mrtrtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// retire offers a team's environments as the options of its question and
// deletes the one picked: after the first workflow of "business operation
// id" retired staging, the second is asked again for it (the option is
// gone). A correct handler, which these tests must not fail.

func retireFixtures(h *testprog.RetireImpl) Fixtures {
	return Fixtures{
		Args:         map[string]any{"team": "web"},
		Answers:      map[string]mcp.InputResponse{"target": Accept(map[string]any{"env": "staging"})},
		Invalid:      map[string]mcp.InputResponse{"target": Accept(map[string]any{"env": "moon"})},
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    map[string]any{"team": "api"},
		Effects:      h.Retired,
		NotApplicable: map[string]string{
			ScenarioDependency: "the test handler has no dependency to break",
		},
	}
}

// runRetire runs the matrix on h and returns its failures and logs.
func runRetire(t *testing.T, h *testprog.RetireImpl, fx Fixtures, opts ...Option) (failures, logs []string) {
	t.Helper()
	rec := newRecorder(t)
	rec.run(rec, func(t tb) { runMatrix(t, testprog.NewRetireProgram(h), fx, opts) })
	return rec.failures(), rec.log.logs
}

func logged(logs []string, text string) bool {
	for _, l := range logs {
		if strings.Contains(l, text) {
			return true
		}
	}
	return false
}

// The handler's data put back on every new store, as docs/walkthrough.md
// does: the second workflow of "business operation id", on the first's
// store, is asked again for staging. The scenario passes and says why
// nothing was refused, and how to have it checked.
func TestMatrixBusinessKeyOptionGone(t *testing.T) {
	h := &testprog.RetireImpl{}
	fresh := WithStore(func(c *Clock) store.Store {
		h.Reset()
		return store.NewMemory(store.Options{Now: c.Now})
	})
	failures, logs := runRetire(t, h, retireFixtures(h), fresh)
	if len(failures) > 0 {
		t.Fatalf("a correct handler failed:\n%s", strings.Join(failures, "\n"))
	}
	want := `the second workflow was asked again in round 2 for "target" ("Which environment of web should be retired?\n\nPlease correct: env: \"staging\" is not one of the options offered (production, qa).")` +
		`: an answer the first workflow took is refused now (the first's effects changed what the handler offers), so it ended before effect retire and there was nothing to refuse. ` +
		`To have it reach retire and be refused there, give Fixtures.Reset`
	if !logged(logs, want) {
		t.Fatalf("logs:\n%s\nwant one containing:\n%s", strings.Join(logs, "\n"), want)
	}
}

// With Fixtures.Reset the matrix puts staging back between the two
// workflows: the second reaches the effect and is refused there.
func TestMatrixBusinessKeyReset(t *testing.T) {
	h := &testprog.RetireImpl{}
	fx := retireFixtures(h)
	fx.Reset = h.Reset
	failures, logs := runRetire(t, h, fx)
	if len(failures) > 0 {
		t.Fatalf("a correct handler failed:\n%s", strings.Join(failures, "\n"))
	}
	if !logged(logs, "the second workflow was refused at effect retire") {
		t.Fatalf("logs:\n%s", strings.Join(logs, "\n"))
	}
}

// Without any reset, every workflow after the first that retired staging
// is asked again for it: the failures say which scenario took the answer
// first and to give Fixtures.Reset, not that the fixtures are invalid.
func TestMatrixSaysAnEarlierWorkflowUsedTheAnswerUp(t *testing.T) {
	h := &testprog.RetireImpl{}
	failures, _ := runRetire(t, h, retireFixtures(h))
	if len(failures) == 0 {
		t.Fatal("no failure")
	}
	for _, f := range failures {
		if strings.Contains(f, "must be valid") {
			t.Errorf("a failure blames the fixtures: %s", f)
		}
	}
	want := `A workflow of scenario "complete input" took the same answer: what an earlier workflow's effects changed (an option it removed, a record it deleted) makes the handler refuse it now. ` +
		`Give Fixtures.Reset, which puts the handler's data back as the fixtures expect it: the matrix calls it before every workflow it starts`
	if f := failureOf(failures, ScenarioMissingInput); !strings.Contains(f, want) {
		t.Fatalf("missing input: %s\nwant it to contain:\n%s", f, want)
	}
}

// A Reset that puts nothing back: the failure says Reset ran and must
// put back what the earlier workflows changed.
func TestMatrixSaysResetDidNotPutItBack(t *testing.T) {
	h := &testprog.RetireImpl{}
	fx := retireFixtures(h)
	fx.Reset = func() {}
	failures, _ := runRetire(t, h, fx)
	want := `scenario "business operation id" at retire applies to retire, but no workflow of the fixtures reaches it: it needs a workflow that passes effect retire and ends as it should; ` +
		`tried the fixture workflow (list > pick → asks for [target] | pick → asks for [target] | round 2: want the answers of the fixtures taken; it asked again for "target"`
	wantHint := `A workflow of scenario "complete input" took the same answer, and Fixtures.Reset ran before this one: Reset must put back what the earlier workflows changed (an option one removed), or the handler refuses an answer it took before`
	if f := failureOf(failures, ScenarioBusinessKey); !strings.Contains(f, want) || !strings.HasSuffix(f, wantHint+")") {
		t.Fatalf("business operation id: %s\nwant it to contain:\n%s\nand:\n%s", f, want, wantHint)
	}
}

// A wrong handler still fails: its store forgets effect records, so the
// second workflow, Reset having put staging back, retires it again.
func TestMatrixBusinessKeyCatchesARepeatedEffect(t *testing.T) {
	h := &testprog.RetireImpl{}
	fx := retireFixtures(h)
	fx.Reset = h.Reset
	forgetful := WithStore(func(c *Clock) store.Store { return ForgetfulEffects{store.NewMemory(store.Options{Now: c.Now})} })
	failures, _ := runRetire(t, h, fx, forgetful)
	want := `business operation id/at retire: scenario "business operation id" at retire, round 3: want a second workflow that reached effect retire (operation id retire-{team}-{target.env}) to be refused there, not go on; ` +
		`it ended success at state retired ("Retired staging of web."). The engine refuses an operation id it recorded`
	if f := failureOf(failures, ScenarioBusinessKey); !strings.HasPrefix(f, want) || !strings.Contains(f, "Fixtures.Reset ran between the two workflows") {
		t.Fatalf("business operation id: %s\nwant it to start:\n%s", f, want)
	}
}

// ForgetfulEffects loses every effect record: a second workflow sharing a
// business operation id claims it anew, as if the id named the workflow.
// Exported for the external tests (matrix_test.go) only: it is declared
// in a test file.
type ForgetfulEffects struct{ store.Store }

func (s ForgetfulEffects) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if strings.Contains(req.Key, "/effect/") {
		req.Key += "/" + req.Owner
	}
	return s.Store.Claim(ctx, req)
}

func (s ForgetfulEffects) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	if strings.Contains(key, "/effect/") {
		key += "/" + owner
	}
	return s.Store.Complete(ctx, key, owner, result, retain)
}

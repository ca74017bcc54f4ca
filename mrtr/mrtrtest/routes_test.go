package mrtrtest_test

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// fakePayout is payout on an mrtrtest.Fake, as the generated fake is: by
// default its check takes the small-amount branch, which asks nothing and
// pays nothing; only steering takes it to the approval branch.
type fakePayout struct{ fake mrtrtest.Fake }

func (h *fakePayout) Authorize(ctx context.Context, f *testprog.PayoutFlow) error {
	if f.Call.Principal == "mallory" {
		return mrtr.Forbidden("mallory may not pay anyone")
	}
	return nil
}

func (h *fakePayout) RoutePayout(ctx context.Context, f *testprog.PayoutFlow) (testprog.PayoutRoutePayoutOutcome, error) {
	out, err := h.fake.Check(ctx, "routePayout", uint8(testprog.PayoutRoutePayoutSmall))
	return testprog.PayoutRoutePayoutOutcome(out), err
}

func (h *fakePayout) SendPayout(ctx context.Context, f *testprog.PayoutFlow) error {
	return h.fake.Effect(ctx)
}

// payoutFixtures: a small amount, which by default takes the branch that
// asks nothing.
func payoutFixtures() mrtrtest.Fixtures {
	return mrtrtest.Fixtures{
		Args:         map[string]any{"payee": "p-001", "amount": 10},
		Answers:      map[string]mcp.InputResponse{"approval": mrtrtest.Accept(map[string]any{"approver": "carol"})},
		Invalid:      map[string]mcp.InputResponse{"approval": mrtrtest.Accept(map[string]any{"approver": 12345})},
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    map[string]any{"payee": "p-002", "amount": 10},
	}
}

// TestMatrixPayoutRun is run by the tests below in a child process.
func TestMatrixPayoutRun(t *testing.T) {
	fx := payoutFixtures()
	switch os.Getenv("MRTRTEST_PAYOUT") {
	case "steered":
		h := &fakePayout{}
		fx.Effects, fx.Break, fx.Steer = h.fake.Effects, h.fake.Break, h.fake.Steer
		mrtrtest.RunMatrix(t, testprog.NewPayoutProgram(h), fx)
	case "stubborn":
		// The real handler takes the approval branch only above the
		// threshold, and the fixtures give no variant that does.
		h := &testprog.PayoutImpl{}
		fx.Effects, fx.Break = h.Paid, h.Break
		mrtrtest.RunMatrix(t, testprog.NewPayoutProgram(h), fx)
	default:
		t.Skip("run by TestMatrixSteersOntoTheBranchThatAsks and TestMatrixFailsScenariosItCannotReach")
	}
}

// matrixChild runs TestMatrixPayoutRun with mode, and returns its output
// and the outcome of each scenario (top-level subtest).
func matrixChild(t *testing.T, mode string) (string, map[string]string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMatrixPayoutRun$", "-test.v", "-test.timeout", "2m")
	cmd.Env = append(os.Environ(), "MRTRTEST_PAYOUT="+mode)
	out, err := cmd.CombinedOutput()
	results := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^    --- (PASS|FAIL|SKIP): TestMatrixPayoutRun/(\S+)`).FindAllStringSubmatch(string(out), -1) {
		results[strings.ReplaceAll(m[2], "_", " ")] = m[1]
	}
	return string(out), results, err
}

// The scenarios the matrix skipped on payout before it steered the fake
// (its default path asks nothing): 9 of 13.
var skippedBefore = []string{
	mrtrtest.ScenarioMissingInput, mrtrtest.ScenarioInvalid, mrtrtest.ScenarioExpired, mrtrtest.ScenarioTampered,
	mrtrtest.ScenarioOtherCaller, mrtrtest.ScenarioOtherArguments, mrtrtest.ScenarioDuplicateFinal,
	mrtrtest.ScenarioBusinessKey, mrtrtest.ScenarioUnauthorized,
}

// A program whose default path asks nothing but whose approval branch
// asks and pays: the matrix steers the fake onto that branch and runs all
// 13 scenarios, the 9 it used to skip among them, none skipped or "not
// applicable".
func TestMatrixSteersOntoTheBranchThatAsks(t *testing.T) {
	out, results, err := matrixChild(t, "steered")
	if err != nil {
		t.Fatalf("the matrix failed on the steered fake: %v\n%s", err, out)
	}
	passed := 0
	for _, name := range mrtrtest.Scenarios {
		if results[name] == "PASS" {
			passed++
		}
	}
	if passed != len(mrtrtest.Scenarios) || len(results) != len(mrtrtest.Scenarios) {
		t.Fatalf("%d of %d scenarios passed (%v):\n%s", passed, len(mrtrtest.Scenarios), results, out)
	}
	ran := 0
	for _, name := range skippedBefore {
		if results[name] == "PASS" {
			ran++
		}
	}
	if ran != 9 {
		t.Fatalf("%d of the 9 scenarios skipped before ran", ran)
	}
	if strings.Contains(out, mrtrtest.NotApplicablePrefix) || strings.Contains(out, "--- SKIP") {
		t.Fatalf("a scenario was skipped or not applicable:\n%s", out)
	}
	// They ran on the approval branch, computed from the state table.
	if n := strings.Count(out, "runs on route>(large)askApproval>pay>paid"); n < len(skippedBefore) {
		t.Fatalf("%d scenarios ran on the steered approval branch, want at least %d:\n%s", n, len(skippedBefore), out)
	}
}

// A scenario that applies but that no workflow of the fixtures reaches (a
// real handler, and no variant above the threshold) fails the test, and
// says which scenario and what is missing.
func TestMatrixFailsScenariosItCannotReach(t *testing.T) {
	out, results, err := matrixChild(t, "stubborn")
	if err == nil {
		t.Fatalf("the matrix passed although it reached no state that asks:\n%s", out)
	}
	var failed []string
	for name, r := range results {
		if r == "FAIL" {
			failed = append(failed, name)
		}
	}
	slices.Sort(failed)
	want := append(slices.Clone(skippedBefore), mrtrtest.ScenarioCancellation) // its continuation part
	slices.Sort(want)
	if !slices.Equal(failed, want) {
		t.Fatalf("failed scenarios %v, want %v:\n%s", failed, want, out)
	}
	for _, msg := range []string{
		`scenario "expired state" applies to payout, but no workflow of the fixtures reaches it: it needs a workflow that asks for input (states that ask: askApproval); tried the fixture workflow (route > batched → success:`,
		`scenario "missing input" at askApproval applies to payout, but no workflow of the fixtures reaches it: it needs a workflow that asks at askApproval`,
		`scenario "duplicate final round" at pay applies to payout, but no workflow of the fixtures reaches it: it needs a workflow that runs effect pay in a round after the first (after askApproval)`,
		"Add a Fixtures.Variants entry that takes that branch (other arguments or answers), or Fixtures.Steer to steer the handler's checks",
	} {
		if !strings.Contains(out, msg) {
			t.Fatalf("the output does not say %q:\n%s", msg, out)
		}
	}
}

// The same real handler passes once the fixtures give a variant above
// the threshold: every scenario that needs the approval branch runs on it.
func TestMatrixRunsScenariosOnAVariant(t *testing.T) {
	h := &testprog.PayoutImpl{}
	fx := payoutFixtures()
	fx.Effects, fx.Break = h.Paid, h.Break
	fx.Variants = []mrtrtest.Variant{{Name: "above the approval threshold", Args: map[string]any{"payee": "p-001", "amount": testprog.PayoutThreshold + 1}}}
	mrtrtest.RunMatrix(t, testprog.NewPayoutProgram(h), fx)
}

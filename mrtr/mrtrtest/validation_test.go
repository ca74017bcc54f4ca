package mrtrtest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/problem"
)

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestBrokenReportsAMissingCheck(t *testing.T) {
	valid := map[string]any{"name": "ok"}
	lax := func(map[string]any) mrtrimpl.Problems { return nil }
	strict := func(in map[string]any) mrtrimpl.Problems {
		if s, _ := in["name"].(string); len(s) > 3 {
			return mrtrimpl.Problems{problem.TooLong("name", 3, len(s))}
		}
		return nil
	}
	r := &recorder{TB: t}
	mrtrtest.Broken(r, strict, valid, "name", "long", problem.TooLong("name", 3, 4))
	if len(r.errors) != 0 {
		t.Fatalf("a validator that reports the problem failed: %q", r.errors)
	}
	mrtrtest.Broken(r, lax, valid, "name", "long", problem.TooLong("name", 3, 4))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], `want "name: at most 3 characters (got 4)" among them`) {
		t.Fatalf("a validator that lost the check passed: %q", r.errors)
	}
	if valid["name"] != "ok" {
		t.Fatal("Broken changed the valid input")
	}
	r.errors = nil
	refuseAll := func(map[string]any) mrtrimpl.Problems { return mrtrimpl.Problems{"name: at most 3 characters"} }
	mrtrtest.Broken(r, refuseAll, valid, "name", "long", "name: at most 3 characters")
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "the valid input") {
		t.Fatalf("a validator that refuses valid input passed: %q", r.errors)
	}
}

func TestArgumentDecoderRunsNewFlow(t *testing.T) {
	decode := mrtrtest.ArgumentDecoder(testprog.NewTransferProgram(&testprog.TransferImpl{}))
	if ps := decode(map[string]any{"account": "acc-000", "amount": int64(1)}); len(ps) != 0 {
		t.Fatalf("valid arguments: %q", ps)
	}
	ps := decode(map[string]any{"amount": int64(1), "extra": true})
	if !strings.Contains(strings.Join(ps, "\n"), "account: required") {
		t.Fatalf("arguments without the required account: %q", ps)
	}
}

// leaky shows its validator's backend failure to the user as a value
// problem ("Please correct: note: text service unavailable"): the bug
// CheckValidator exists to catch.
type leaky struct{ *testprog.TransferImpl }

func (h leaky) NotBlank(ctx context.Context, v string) error {
	err := h.TransferImpl.NotBlank(ctx, v)
	if err != nil && !mrtr.IsInvalid(err) {
		return mrtr.Invalid("%v", err)
	}
	return err
}

// noteUse is the notBlank validator of transfer's memo, with the knobs of
// impl.
func noteUse(impl *testprog.TransferImpl) mrtrtest.ValidatorUse {
	knob := func(b *atomic.Bool) func(any) func() {
		return func(any) func() { b.Store(true); return func() { b.Store(false) } }
	}
	return mrtrtest.ValidatorUse{
		Validator: "notBlank", Request: "memo", Field: "note", Value: "rent", Broken: strings.Repeat("x", 51),
		Refuse: knob(&impl.NotBlankRefuses), Fail: knob(&impl.NotBlankDown),
		Message: "must not be blank", Secret: "connection refused",
	}
}

func transferFixtures(impl *testprog.TransferImpl) mrtrtest.Fixtures {
	return mrtrtest.Fixtures{
		Args: map[string]any{"account": "acc-000", "amount": int64(1)},
		Answers: map[string]mcp.InputResponse{
			"memo":    mrtrtest.Accept(map[string]any{"note": "example"}),
			"summary": mrtrtest.Text("A sampled answer."),
		},
		Effects: impl.SentCount,
	}
}

// TestCheckValidatorLeakRun is run by TestCheckValidatorCatchesALeak in a
// child process, whose failure it expects.
func TestCheckValidatorLeakRun(t *testing.T) {
	if os.Getenv("MRTRTEST_LEAKY") == "" {
		t.Skip("run by TestCheckValidatorCatchesALeak")
	}
	impl := &testprog.TransferImpl{}
	mrtrtest.CheckValidator(t, testprog.NewTransferProgram(leaky{impl}), transferFixtures(impl), noteUse(impl))
}

// CheckValidator passes a handler that keeps the convention, and fails one
// that shows its backend's failure to the user as a problem to correct.
func TestCheckValidatorCatchesALeak(t *testing.T) {
	impl := &testprog.TransferImpl{}
	mrtrtest.CheckValidator(t, testprog.NewTransferProgram(impl), transferFixtures(impl), noteUse(impl))

	cmd := exec.Command(os.Args[0], "-test.run", "^TestCheckValidatorLeakRun$", "-test.v", "-test.timeout", "2m")
	cmd.Env = append(os.Environ(), "MRTRTEST_LEAKY=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("CheckValidator passed a handler that shows a dependency failure to the user:\n%s", out)
	}
	if !strings.Contains(string(out), `a validator that failed as a dependency must end the round with outcome error and a message; `+
		`with its outage switch armed (ValidatorUse.Fail) for "rent", the value was refused instead: it asked for "memo"`) ||
		!strings.Contains(string(out), "Validator notBlank returned mrtr.Invalid: a backend that failed must be returned as an error") {
		t.Fatalf("CheckValidator failed for another reason:\n%s", out)
	}
}

// TestCheckValidatorSwitchRun is run by TestCheckValidatorSaysTheSwitchDidNotHold
// in a child process, whose failure it expects.
func TestCheckValidatorSwitchRun(t *testing.T) {
	if os.Getenv("MRTRTEST_SWITCH") == "" {
		t.Skip("run by TestCheckValidatorSaysTheSwitchDidNotHold")
	}
	impl := &testprog.TransferImpl{}
	u := noteUse(impl)
	noop := func(any) func() { return func() {} }
	u.Refuse, u.Fail = noop, noop
	mrtrtest.CheckValidator(t, testprog.NewTransferProgram(impl), transferFixtures(impl), u)
}

// Knobs that do not reach the validator: the failures say that the
// switch did not hold, not that the handler is wrong.
func TestCheckValidatorSaysTheSwitchDidNotHold(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCheckValidatorSwitchRun$", "-test.v", "-test.timeout", "2m")
	cmd.Env = append(os.Environ(), "MRTRTEST_SWITCH=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("CheckValidator passed knobs that do nothing:\n%s", out)
	}
	for _, want := range []string{
		`answer memo.note: it asked for "confirm"`,
		`want "memo" asked again: with ValidatorUse.Refuse armed for "rent", the round went on as if validator notBlank accepted it. The switch did not hold`,
		`with its outage switch armed (ValidatorUse.Fail) for "rent", the round went on as if validator notBlank accepted it: it asked for "confirm"`,
		`The switch did not hold: the validator was not called with that value, or Fail does not make it fail`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
}

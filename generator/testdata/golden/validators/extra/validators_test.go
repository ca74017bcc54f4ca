// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: every custom validator runs on the values it is
// declared for, in spec order, and its error becomes a problem.
package signup

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// refusing fails every validator, saying which one and what value it saw.
type refusing struct {
	fakeSignUp
	calls []string
}

func (h *refusing) fail(name string, v any) error {
	s := name + "(" + strings.TrimSpace(strings.ReplaceAll(jsonOf(v), `"`, "")) + ")"
	h.calls = append(h.calls, s)
	return errors.New("refused by " + s)
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func (h *refusing) NoSecrets(_ context.Context, v string) error { return h.fail("noSecrets", v) }
func (h *refusing) NotDisposable(_ context.Context, v string) error {
	return h.fail("notDisposable", v)
}
func (h *refusing) PlausibleAge(_ context.Context, v int64) error { return h.fail("plausibleAge", v) }
func (h *refusing) SensibleRatio(_ context.Context, v float64) error {
	return h.fail("sensibleRatio", v)
}
func (h *refusing) MustBeTrue(_ context.Context, v bool) error { return h.fail("mustBeTrue", v) }

func TestValidatorsRun(t *testing.T) {
	h := &refusing{}
	p := signUpProgram{h: h}
	raw := `{"email": "ada@example.com", "age": 30, "interests": ["code", "music"], "nicknames": ["ada"]}`
	_, err := p.NewFlow(context.Background(), nil, []byte(raw))
	want := "invalid arguments: age: refused by plausibleAge(30); email: refused by notDisposable(ada@example.com); email: refused by noSecrets(ada@example.com); interests[]: refused by noSecrets(code); interests[]: refused by noSecrets(music); nicknames[]: refused by noSecrets(ada)"
	if err == nil || err.Error() != want {
		t.Errorf("arguments:\n got %v\nwant %s", err, want)
	}
	h.calls = nil
	_, problems := p.decodeTerms(context.Background(), map[string]any{"accepted": false, "share": 0.5, "motto": "hi"})
	if got := strings.Join(problems, "; "); got != "accepted: refused by mustBeTrue(false); motto: refused by noSecrets(hi); share: refused by sensibleRatio(0.5)" {
		t.Errorf("form: %s", got)
	}
	// Built-in constraints are checked too, and validators still run.
	h.calls = nil
	_, problems = p.decodeTerms(context.Background(), map[string]any{"accepted": true, "share": 2.0})
	if got := strings.Join(problems, "; "); got != "accepted: refused by mustBeTrue(true); share: at most 1; share: refused by sensibleRatio(2)" {
		t.Errorf("form with a bound broken: %s", got)
	}
	// The fake accepts everything.
	if _, problems := (signUpProgram{h: &fakeSignUp{}}).decodeTerms(context.Background(), map[string]any{"accepted": true}); len(problems) > 0 {
		t.Errorf("fake: %v", problems)
	}
}

// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: every custom validator runs on the values it is
// declared for, in spec order, once the value has passed its built-in
// constraints; mrtr.Invalid is a problem for the user and any other error
// a dependency failure; lists of enum values are canonical.
package signup

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// refusing refuses every value with mrtr.Invalid, saying which validator
// and what value it saw, or (down) fails every validator as a dependency.
type refusing struct {
	fakeSignUp
	calls []string
	down  bool
}

func (h *refusing) fail(name string, v any) error {
	s := name + "(" + strings.TrimSpace(strings.ReplaceAll(jsonOf(v), `"`, "")) + ")"
	h.calls = append(h.calls, s)
	if h.down {
		return errors.New("backend of " + s + " unavailable")
	}
	return mrtr.Invalid("refused by %s", s)
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
	ctx := context.Background()
	h := &refusing{}
	p := signUpProgram{h: h}
	// Enum items are validated once each, in spec order, after the list
	// is made canonical.
	raw := `{"email": "ada@example.com", "age": 30, "interests": ["code", "music", "code"], "nicknames": ["ada"]}`
	_, err := p.NewFlow(ctx, nil, []byte(raw))
	want := "invalid arguments: age: refused by plausibleAge(30); email: refused by notDisposable(ada@example.com); email: refused by noSecrets(ada@example.com); interests[]: refused by noSecrets(music); interests[]: refused by noSecrets(code); nicknames[]: refused by noSecrets(ada)"
	if err == nil || err.Error() != want {
		t.Errorf("arguments:\n got %v\nwant %s", err, want)
	}
	h.calls = nil
	_, problems, err := p.decodeTerms(ctx, map[string]any{"accepted": false, "share": 0.5, "motto": "hi"})
	if got := strings.Join(problems, "; "); err != nil || got != "accepted: refused by mustBeTrue(false); motto: refused by noSecrets(hi); share: refused by sensibleRatio(0.5)" {
		t.Errorf("form: %s (%v)", got, err)
	}
	// A value that broke a built-in constraint is not sent to its
	// validators; the other values still are.
	h.calls = nil
	_, problems, _ = p.decodeTerms(ctx, map[string]any{"accepted": true, "share": 2.0, "motto": strings.Repeat("x", 81)})
	if got := strings.Join(problems, "; "); got != "accepted: refused by mustBeTrue(true); motto: at most 80 characters (got 81); share: at most 1" {
		t.Errorf("form with bounds broken: %s", got)
	}
	if got := strings.Join(h.calls, " "); got != "mustBeTrue(true)" {
		t.Errorf("validators called for values that broke a built-in constraint: %s", got)
	}
	// A list is validated item by item only when the whole list passed:
	// one value outside the enum, and no validator runs for the others.
	h.calls = nil
	if _, err := p.NewFlow(ctx, nil, []byte(`{"email": "not an address", "interests": ["code", "jazz"], "age": 200}`)); err == nil {
		t.Fatal("invalid arguments were taken")
	}
	if len(h.calls) != 0 {
		t.Errorf("validators called for values that broke a built-in constraint: %s", h.calls)
	}
	// The fake accepts everything.
	if _, problems, err := (signUpProgram{h: &fakeSignUp{}}).decodeTerms(ctx, map[string]any{"accepted": true}); len(problems) > 0 || err != nil {
		t.Errorf("fake: %v %v", problems, err)
	}
}

// TestValidatorDown: a validator that fails as a dependency stops the
// decoder with an error naming the validator and the value, and adds no
// problem: the user is not asked to correct what they did not get wrong.
func TestValidatorDown(t *testing.T) {
	ctx := context.Background()
	p := signUpProgram{h: &refusing{down: true}}
	_, err := p.NewFlow(ctx, nil, []byte(`{"email": "ada@example.com"}`))
	if err == nil || !strings.HasPrefix(err.Error(), "validator notDisposable of email failed: backend of ") || mrtr.IsInvalid(err) {
		t.Fatalf("arguments: %v, want the failure of validator notDisposable of email", err)
	}
	a, problems, err := p.decodeTerms(ctx, map[string]any{"accepted": true})
	if err == nil || !strings.HasPrefix(err.Error(), "validator mustBeTrue of terms.accepted failed: ") || a != nil || problems != nil {
		t.Fatalf("form: %v %v %v, want the failure of validator mustBeTrue of terms.accepted", a, problems, err)
	}
	// Through the engine: the round ends as a dependency error (not as
	// invalid arguments), and the validator's text is not in the reply.
	hr := mrtrtest.New(t, NewSignUpProgram(&refusing{down: true}))
	reply, err := hr.Call(ctx, map[string]any{"email": "ada@example.com"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(reply)
	if reply.Final == nil || reply.Final.Outcome != mrtr.OutcomeError || strings.Contains(string(b), "unavailable") {
		t.Fatalf("reply %s, want outcome error without the validator's text", b)
	}
}

// TestCanonicalLists: lists of enum values are one answer however they are
// sent (each value once, in spec order), so the operation id made of one
// is the same: three workflows sending one set of interests in three
// spellings create one account; the second and the third are refused as
// the same operation. With uniqueItems (teams), a repeat is refused.
func TestCanonicalLists(t *testing.T) {
	ctx := context.Background()
	p := signUpProgram{h: &fakeSignUp{}}
	for _, in := range []string{`["sport", "code"]`, `["code", "sport"]`, `["sport", "code", "sport"]`} {
		f, err := p.NewFlow(ctx, nil, []byte(`{"email": "ada@example.com", "interests": `+in+`}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := mrtrimpl.Join(f.Args.Interests); got != "sport, code" {
			t.Errorf("interests %s read as %s, want sport, code", in, got)
		}
		if got := signUpCreateOperationID(f); got != "account-ada@example.com-sport, code" {
			t.Errorf("interests %s: operation id %q", in, got)
		}
	}
	a, problems, err := p.decodeTerms(ctx, map[string]any{"accepted": true, "topics": []any{"tips", "news", "tips"}})
	if err != nil || len(problems) > 0 || mrtrimpl.Join(a.Topics) != "news, tips" {
		t.Errorf("topics [tips news tips]: %v %v %v, want news, tips", a, problems, err)
	}
	// maxItems counts distinct values: [news, tips, news] is two.
	if _, problems, _ := p.decodeTerms(ctx, map[string]any{"accepted": true, "topics": []any{"news", "tips", "news"}}); len(problems) > 0 {
		t.Errorf("two distinct topics sent three times: %v", problems)
	}
	if _, err := p.NewFlow(ctx, nil, []byte(`{"email": "ada@example.com", "teams": ["red", "red"]}`)); err == nil || !strings.Contains(err.Error(), "teams: choose each value once (repeated: red)") {
		t.Errorf("teams [red red]: %v, want it refused", err)
	}

	h := &fakeSignUp{}
	hr := mrtrtest.New(t, NewSignUpProgram(h))
	var outcomes []mrtr.Outcome
	for _, in := range [][]any{{"sport", "code"}, {"code", "sport"}, {"sport", "code", "sport"}} {
		args := map[string]any{"email": "ada@example.com", "interests": in}
		reply, err := hr.Call(ctx, args, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		reply, err = hr.Call(ctx, args, reply.RequestState, answersSignUp)
		if err != nil {
			t.Fatal(err)
		}
		if reply.NeedsInput() {
			t.Fatalf("interests %v: still asks %v", in, reply.InputRequests)
		}
		outcomes = append(outcomes, reply.Final.Outcome)
	}
	if h.fake.Effects() != 1 || outcomes[0] != mrtr.OutcomeSuccess || outcomes[1] != mrtr.OutcomeRejected || outcomes[2] != mrtr.OutcomeRejected {
		t.Fatalf("three spellings of one set of interests: %d accounts created, outcomes %v; want 1, [success rejected rejected]", h.fake.Effects(), outcomes)
	}
}

// grouping stores a continuation list in an order of its own, with a
// repeat.
type grouping struct{ fakeSignUp }

func (h *grouping) EmailAvailable(_ context.Context, f *SignUpFlow) error {
	f.Continuation.Groups = []SignUpGroups{SignUpGroupsGuests, SignUpGroupsAdmins, SignUpGroupsGuests}
	return nil
}

// TestCanonicalContinuation: a list of enum values a check stored is made
// canonical right after the check, before it is sealed or read.
func TestCanonicalContinuation(t *testing.T) {
	ctx := context.Background()
	hr := mrtrtest.New(t, NewSignUpProgram(&grouping{}))
	args := map[string]any{"email": "ada@example.com"}
	reply, err := hr.Call(ctx, args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	reply, err = hr.Call(ctx, args, reply.RequestState, answersSignUp)
	if err != nil || reply.NeedsInput() {
		t.Fatalf("%+v %v", reply, err)
	}
	if !strings.HasSuffix(reply.Final.Text, " in admins, guests.") {
		t.Errorf("final %q, want the groups as admins, guests", reply.Final.Text)
	}
}

// TestSampledTextChecked: a sampled text is checked as a string field is,
// built-in constraints first, then its validators; mrtr.Invalid is a
// problem (the text is sampled again), any other error a dependency
// failure.
func TestSampledTextChecked(t *testing.T) {
	ctx := context.Background()
	h := &refusing{}
	p := signUpProgram{h: h}
	for _, tc := range []struct{ text, want string }{
		{"Hi", "welcome: at least 10 characters"},
		{"Welcome aboard,\nAda", "welcome: must match"},
		{"Welcome aboard, Ada!", "welcome: refused by noSecrets(Welcome aboard, Ada!)"},
	} {
		a, problems, err := p.decodeWelcome(ctx, tc.text)
		if err != nil || len(problems) != 1 || !strings.Contains(problems.Err().Error(), tc.want) || a == nil || a.Text != tc.text {
			t.Errorf("%q: answer %+v, problems %v, error %v; want one problem %q", tc.text, a, problems, err, tc.want)
		}
	}
	if len(h.calls) != 1 {
		t.Errorf("validators ran on %v; want only on the text that passed the built-in constraints", h.calls)
	}
	h.down = true
	if _, _, err := p.decodeWelcome(ctx, "Welcome aboard, Ada!"); err == nil || !strings.Contains(err.Error(), "unavailable") {
		t.Errorf("a validator down: %v, want its error", err)
	}
}

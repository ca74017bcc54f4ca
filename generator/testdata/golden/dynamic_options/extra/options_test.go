// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: the form offers exactly the options the check
// found, in its order, and takes only those; a multi-select's answer is
// made canonical in the order offered; a check or effect that does not set
// what the spec says it sets fails the round with a log naming it; a list
// that breaks the spec is not sealed; the question (and so its digest)
// depends on the options.
package release

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// releases is a handler over a fixed history, with knobs to forget what the
// spec says its methods set.
type releases struct {
	owners        []mrtr.Option
	changed       []string
	forgetOwners  bool
	forgetRelease bool
	shipped       int
}

func (h *releases) Authorize(context.Context, *ShipReleaseFlow) error { return nil }

func (h *releases) ChangedSince(_ context.Context, f *ShipReleaseFlow) (ShipReleaseChangedSinceOutcome, error) {
	if len(h.changed) == 0 {
		f.Continuation.Summary = "no service changed"
		return ShipReleaseChangedSinceNothing, nil
	}
	f.Continuation.Summary = strings.Join(h.changed, ", ") + " changed"
	f.Continuation.Changed = h.changed
	if !h.forgetOwners {
		f.Continuation.Owners = h.owners
	}
	return ShipReleaseChangedSinceChanges, nil
}

func (h *releases) ShipServices(_ context.Context, f *ShipReleaseFlow) error {
	h.shipped++
	if !h.forgetRelease {
		f.Continuation.ReleaseID = "R-" + f.Plan.Owner
	}
	return nil
}

func history() *releases {
	return &releases{
		owners:  []mrtr.Option{{Value: "u-grace", Title: "Grace Hopper (payments)"}, {Value: "u-ada", Title: "Ada Lovelace (platform)"}},
		changed: []string{"ledger", "search", "billing"},
	}
}

// logged returns a harness option capturing the engine's log.
func logged() (mrtrtest.Option, *bytes.Buffer) {
	var b bytes.Buffer
	return mrtrtest.WithLogger(slog.New(slog.NewTextHandler(&b, nil))), &b
}

// choices are the const/title pairs of a property of a form's schema:
// oneOf of a single select, items.anyOf of a multi-select.
func choices(t *testing.T, schema any, prop string) []string {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			OneOf []struct{ Const, Title string } `json:"oneOf"`
			Items struct {
				AnyOf []struct{ Const, Title string } `json:"anyOf"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	p := s.Properties[prop]
	list := append(p.OneOf, p.Items.AnyOf...)
	var out []string
	for _, c := range list {
		out = append(out, c.Const+"="+c.Title)
	}
	return out
}

func TestOffersWhatTheCheckFound(t *testing.T) {
	h := history()
	hs := mrtrtest.New(t, NewShipReleaseProgram(h))
	ctx := context.Background()
	args := map[string]any{"since": "v1.4"}
	reply, err := hs.Call(ctx, args, "", nil)
	if err != nil || !reply.NeedsInput() {
		t.Fatalf("first round: %+v, %v", reply, err)
	}
	form := reply.InputRequests["plan"].(*mcp.ElicitParams)
	if !strings.Contains(form.Message, "Pick an owner (Grace Hopper (payments), Ada Lovelace (platform) are on call)") {
		t.Errorf("a list of options renders by its titles: %q", form.Message)
	}
	for prop, want := range map[string]string{
		"owner":    "u-grace=Grace Hopper (payments) u-ada=Ada Lovelace (platform)",
		"backup":   "u-grace=Grace Hopper (payments) u-ada=Ada Lovelace (platform)",
		"services": "ledger=ledger search=search billing=billing",
	} {
		if got := strings.Join(choices(t, form.RequestedSchema, prop), " "); got != want {
			t.Errorf("%s offers %q, want %q (the options found, in their order)", prop, got, want)
		}
	}

	// A value that was not offered is refused, naming it and saying what
	// was offered; a list's items not offered are named in one problem,
	// each once.
	bad := mcp.InputResponseMap{"plan": mrtrtest.Accept(map[string]any{"owner": "u-bob", "services": []any{"search", "fax", "telex", "fax"}})}
	again, err := hs.Call(ctx, args, reply.RequestState, bad)
	if err != nil || !again.NeedsInput() {
		t.Fatalf("answer not offered: %+v, %v", again, err)
	}
	msg := again.InputRequests["plan"].(*mcp.ElicitParams).Message
	for _, want := range []string{`owner: "u-bob" is not one of the options offered (u-grace, u-ada)`, `services[]: "fax", "telex" are not among the options offered (ledger, search, billing)`} {
		if strings.Count(msg, want) != 1 {
			t.Errorf("asked again with %q, want it to say once %q", msg, want)
		}
	}
	if n := strings.Count(msg, "services[]"); n != 1 {
		t.Errorf("asked again with %q: %d problems of services[], want one", msg, n)
	}

	// A multi-select answer is each value once, in the order offered.
	good := mcp.InputResponseMap{"plan": mrtrtest.Accept(map[string]any{"owner": "u-ada", "services": []any{"billing", "ledger", "billing"}})}
	final, err := hs.Call(ctx, args, again.RequestState, good)
	if err != nil || final.NeedsInput() {
		t.Fatalf("valid answer: %+v, %v", final, err)
	}
	if want := "Release R-u-ada: ledger, billing shipped by u-ada."; final.Final.Outcome != mrtr.OutcomeSuccess || final.Final.Text != want {
		t.Errorf("final %+v, want %q", final.Final, want)
	}
	if h.shipped != 1 {
		t.Errorf("shipped %d times", h.shipped)
	}
}

func TestUpfrontAnswersAreCheckedAgainstTheOptions(t *testing.T) {
	hs := mrtrtest.New(t, NewShipReleaseProgram(history()))
	args := map[string]any{"since": "v1.4", "inputs": map[string]any{"plan": map[string]any{"owner": "u-bob", "services": []any{"search"}}}}
	reply, err := hs.Call(context.Background(), args, "", nil)
	if err != nil || !reply.NeedsInput() {
		t.Fatalf("an up-front answer not offered: %+v, %v", reply, err)
	}
	if msg := reply.InputRequests["plan"].(*mcp.ElicitParams).Message; !strings.Contains(msg, `owner: "u-bob" is not one of the options offered`) {
		t.Errorf("asked again with %q", msg)
	}
	args["inputs"] = map[string]any{"plan": map[string]any{"owner": "u-grace", "services": []any{"search"}}}
	reply, err = mrtrtest.New(t, NewShipReleaseProgram(history())).Call(context.Background(), args, "", nil)
	if err != nil || reply.NeedsInput() || reply.Final.Text != "Release R-u-grace: search shipped by u-grace." {
		t.Fatalf("an up-front answer offered: %+v, %v", reply, err)
	}
}

func TestDeclaredValuesAreEnforced(t *testing.T) {
	ctx := context.Background()
	args := map[string]any{"since": "v1.4"}

	// The check returns "changes" without the owners it declares.
	h := history()
	h.forgetOwners = true
	opt, log := logged()
	reply, err := mrtrtest.New(t, NewShipReleaseProgram(h), opt).Call(ctx, args, "", nil)
	if err != nil || reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeError {
		t.Fatalf("a check that forgot a declared value: %+v, %v", reply, err)
	}
	if want := "check changedSince (state diff) returned outcome changes without setting continuation field owners"; !strings.Contains(log.String(), want) {
		t.Errorf("log %q does not say %q", log.String(), want)
	}
	if strings.Contains(reply.Final.Text, "owners") {
		t.Errorf("the client learns the handler's bug: %q", reply.Final.Text)
	}

	// The effect returns without the release id it declares: the round
	// fails before its outcome is recorded, so a retry runs it again.
	h = history()
	h.forgetRelease = true
	opt, log = logged()
	hs := mrtrtest.New(t, NewShipReleaseProgram(h), opt)
	first, err := hs.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first round: %+v, %v", first, err)
	}
	answer := mcp.InputResponseMap{"plan": mrtrtest.Accept(map[string]any{"owner": "u-ada", "services": []any{"search"}})}
	reply, err = hs.Call(ctx, args, first.RequestState, answer)
	if err != nil || reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeError {
		t.Fatalf("an effect that forgot a declared value: %+v, %v", reply, err)
	}
	if want := "effect shipServices (state ship) returned without setting continuation field releaseId"; !strings.Contains(log.String(), want) {
		t.Errorf("log %q does not say %q", log.String(), want)
	}
	h.forgetRelease = false
	reply, err = hs.Call(ctx, args, first.RequestState, answer)
	if err != nil || reply.Final == nil || reply.Final.Outcome != mrtr.OutcomeSuccess || h.shipped != 2 {
		t.Fatalf("the retry: %+v, %v, shipped %d", reply, err, h.shipped)
	}
}

func TestListsThatBreakTheSpecAreNotSealed(t *testing.T) {
	for name, owners := range map[string][]mrtr.Option{
		"a value twice":     {{Value: "u-ada", Title: "Ada"}, {Value: "u-ada", Title: "Ada again"}},
		"no value":          {{Title: "Nobody"}},
		"pattern":           {{Value: "ada", Title: "Ada"}},
		"title too long":    {{Value: "u-ada", Title: strings.Repeat("A", 61)}},
		"title pattern":     {{Value: "u-ada", Title: "Zoë Ada"}},
		"more than allowed": {{Value: "u-a"}, {Value: "u-b"}, {Value: "u-c"}, {Value: "u-d"}, {Value: "u-e"}, {Value: "u-f"}},
	} {
		t.Run(name, func(t *testing.T) {
			h := history()
			h.owners = owners
			reply, err := mrtrtest.New(t, NewShipReleaseProgram(h)).Call(context.Background(), map[string]any{"since": "v1.4"}, "", nil)
			if err == nil || !strings.Contains(err.Error(), "the continuation breaks the spec") || !strings.Contains(err.Error(), "owners") {
				t.Fatalf("%+v, %v; want the round refused for its owners", reply, err)
			}
		})
	}
}

// The question is built from the options the flow carries, so other
// options are another question, with another digest: an answer pinned to
// the one sent is not taken for the other.
func TestQuestionDependsOnTheOptions(t *testing.T) {
	p := NewShipReleaseProgram(history())
	question := func(owners ...mrtr.Option) string {
		f := &ShipReleaseFlow{}
		f.Continuation.Owners = owners
		f.Continuation.Changed = []string{"search"}
		qs := p.Questions(f, uint16(ShipReleaseStateChoose))
		if len(qs) != 1 {
			t.Fatalf("%d questions", len(qs))
		}
		b, err := json.Marshal(qs[0].Params)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a := question(mrtr.Option{Value: "u-ada", Title: "Ada"}, mrtr.Option{Value: "u-grace", Title: "Grace"})
	if b := question(mrtr.Option{Value: "u-grace", Title: "Grace"}, mrtr.Option{Value: "u-ada", Title: "Ada"}); a == b {
		t.Error("reordered options make the same question")
	}
	if b := question(mrtr.Option{Value: "u-ada", Title: "Ada L."}, mrtr.Option{Value: "u-grace", Title: "Grace"}); a == b {
		t.Error("a changed title makes the same question")
	}
	if b := question(mrtr.Option{Value: "u-ada", Title: "Ada"}, mrtr.Option{Value: "u-grace", Title: "Grace"}); a != b {
		t.Error("the same options make another question")
	}
}

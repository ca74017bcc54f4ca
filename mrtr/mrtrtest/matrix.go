package mrtrtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// Fixtures describe a valid workflow of one program, and the knobs the
// matrix needs to provoke each failure. Only Args and Answers are required.
type Fixtures struct {
	// Args are valid arguments.
	Args any
	// Answers hold a valid answer per input request key. Confirmation gates
	// without an entry are confirmed ({field: true}).
	Answers map[string]mcp.InputResponse
	// Invalid hold, per request key, an answer that validation must refuse.
	Invalid map[string]mcp.InputResponse
	// WantOutcome is how the fixture workflow ends; default success.
	WantOutcome mrtr.Outcome
	// Principal calls the workflow (default "alice"); Other is another
	// authorized caller, who must not be able to use alice's requestState.
	Principal, Other string
	// Unauthorized is a principal Authorize refuses ("" skips the check).
	Unauthorized string
	// OtherArgs are different valid arguments a requestState must not
	// continue with (nil skips the check).
	OtherArgs any
	// Effects counts the side effects performed so far (nil skips counting).
	Effects func() int
	// Break makes a dependency of the handler fail until restore is
	// called (nil skips the check).
	Break func() (restore func())
	// Duplicates is how many copies of the final round race (default 8).
	Duplicates int
}

func (fx *Fixtures) defaults() {
	if fx.WantOutcome == "" {
		fx.WantOutcome = mrtr.OutcomeSuccess
	}
	if fx.Principal == "" {
		fx.Principal = "alice"
	}
	if fx.Duplicates == 0 {
		fx.Duplicates = 8
	}
}

// step is one request of a driven workflow and its reply.
type step struct {
	state     string
	responses mcp.InputResponseMap
	reply     *mrtr.Reply
}

// answers builds the responses to a reply's input requests from fixtures.
func answers[F any](t testing.TB, h *Harness[F], fx *Fixtures, reply *mrtr.Reply) mcp.InputResponseMap {
	t.Helper()
	d := h.Program.Descriptor()
	out := mcp.InputResponseMap{}
	for key := range reply.InputRequests {
		if a, ok := fx.Answers[key]; ok {
			out[key] = a
			continue
		}
		if field := gateField(d, key); field != "" {
			out[key] = Accept(map[string]any{field: true})
			continue
		}
		t.Fatalf("%s asks for %q, but the fixtures have no answer for it", d.Name, key)
	}
	return out
}

func gateField(d *mrtr.Descriptor, key string) string {
	for _, s := range d.States {
		for _, q := range s.Requests {
			if q.Key == key {
				return q.GateField
			}
		}
	}
	return ""
}

// drive runs the fixture workflow to its end, answering every request, and
// returns each request with its reply. stop, when set, ends the drive
// before sending the request it returns true for.
func drive[F any](t testing.TB, h *Harness[F], fx *Fixtures, stop func(i int, s step) bool) []step {
	t.Helper()
	ctx := context.Background()
	var steps []step
	s := step{}
	for i := 0; i < 32; i++ {
		if stop != nil && stop(i, s) {
			return steps
		}
		reply, err := h.Call(ctx, fx.Args, s.state, s.responses)
		if err != nil {
			t.Fatalf("round %d: %v", i+1, err)
		}
		s.reply = reply
		steps = append(steps, s)
		checkRequests(t, h.Program.Descriptor(), reply)
		if !reply.NeedsInput() {
			return steps
		}
		s = step{state: reply.RequestState, responses: answers(t, h, fx, reply)}
	}
	t.Fatalf("the workflow did not end within 32 rounds")
	return nil
}

// checkRequests asserts that an input_required reply asks only for
// requests the descriptor declares, all of one state.
func checkRequests(t testing.TB, d *mrtr.Descriptor, reply *mrtr.Reply) {
	t.Helper()
	if !reply.NeedsInput() {
		return
	}
	if reply.RequestState == "" || len(reply.InputRequests) == 0 {
		t.Fatalf("input required without requestState or requests: %+v", reply)
	}
	var owner string
	for key := range reply.InputRequests {
		state := ""
		for _, s := range d.States {
			for _, q := range s.Requests {
				if q.Key == key {
					state = s.Name
				}
			}
		}
		if state == "" {
			t.Fatalf("input request %q is not declared by %s", key, d.Name)
		}
		if owner != "" && owner != state {
			t.Fatalf("one round asks for requests of two states (%s and %s)", owner, state)
		}
		owner = state
	}
}

func keys(m mcp.InputRequestMap) []string {
	return slices.Sorted(maps.Keys(m))
}

// RunMatrix runs the contract of a multi-round tool against p, the
// scenarios of the MRTR test matrix: complete input, missing input, valid
// continuation, invalid response, expired state, tampered state, state
// used by another caller or with other arguments, duplicate final round,
// a second workflow sharing a business operation id, cancellation, unauthorized caller, dependency failure, and the whole
// workflow over real HTTP with the official SDK client. Scenarios whose
// fixtures are missing are skipped with a message.
func RunMatrix[F any](t *testing.T, p mrtr.Program[F], fx Fixtures, opts ...Option) {
	fx.defaults()
	d := p.Descriptor()
	newHarness := func(t *testing.T) *Harness[F] {
		h := New(t, p, opts...)
		h.Principal = fx.Principal
		return h
	}
	wantEnd := func(t *testing.T, reply *mrtr.Reply) {
		t.Helper()
		if reply.NeedsInput() {
			t.Fatalf("still needs input: %v", keys(reply.InputRequests))
		}
		if reply.Final.Outcome != fx.WantOutcome {
			t.Fatalf("outcome %s (%q), want %s", reply.Final.Outcome, reply.Final.Text, fx.WantOutcome)
		}
	}

	t.Run("complete input", func(t *testing.T) {
		h := newHarness(t)
		steps := drive(t, h, &fx, nil)
		wantEnd(t, steps[len(steps)-1].reply)
	})

	t.Run("missing input", func(t *testing.T) {
		h := newHarness(t)
		first, err := h.Call(context.Background(), fx.Args, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !first.NeedsInput() {
			t.Skipf("%s completes in one round; nothing is ever missing", d.Name)
		}
		again, err := h.Call(context.Background(), fx.Args, first.RequestState, mcp.InputResponseMap{})
		if err != nil {
			t.Fatal(err)
		}
		if !again.NeedsInput() || !reflect.DeepEqual(keys(again.InputRequests), keys(first.InputRequests)) {
			t.Fatalf("after no answers: %+v, want the same requests %v again", again, keys(first.InputRequests))
		}
	})

	t.Run("invalid response", func(t *testing.T) {
		if len(fx.Invalid) == 0 {
			t.Skip("no invalid answers in the fixtures")
		}
		for key, bad := range fx.Invalid {
			t.Run(key, func(t *testing.T) {
				h := newHarness(t)
				var at step
				drive(t, h, &fx, func(_ int, s step) bool {
					if _, ok := s.responses[key]; ok {
						at = s
						return true
					}
					return false
				})
				if at.state == "" {
					t.Fatalf("the workflow never asked for %q", key)
				}
				responses := maps.Clone(at.responses)
				responses[key] = bad
				reply, err := h.Call(context.Background(), fx.Args, at.state, responses)
				if err != nil {
					t.Fatal(err)
				}
				if !reply.NeedsInput() || reply.InputRequests[key] == nil {
					t.Fatalf("an invalid answer to %q was accepted: %+v", key, reply)
				}
				if ep, ok := reply.InputRequests[key].(*mcp.ElicitParams); ok && !strings.Contains(ep.Message, "Please correct") {
					t.Fatalf("asked again without saying what to correct: %q", ep.Message)
				}
			})
		}
	})

	firstState := func(t *testing.T, h *Harness[F]) (*mrtr.Reply, mcp.InputResponseMap) {
		t.Helper()
		reply, err := h.Call(context.Background(), fx.Args, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reply.NeedsInput() {
			t.Skipf("%s completes in one round; it issues no requestState", d.Name)
		}
		return reply, answers(t, h, &fx, reply)
	}

	t.Run("expired state", func(t *testing.T) {
		h := newHarness(t)
		reply, responses := firstState(t, h)
		h.Clock.Advance(d.TTL + seal.DefaultSkew + 1e9)
		_, err := h.Call(context.Background(), fx.Args, reply.RequestState, responses)
		if !IsInvalidState(err) {
			t.Fatalf("expired continuation: got %v, want the restart error", err)
		}
	})

	t.Run("tampered state", func(t *testing.T) {
		h := newHarness(t)
		reply, responses := firstState(t, h)
		for _, bad := range []string{Tamper(reply.RequestState), reply.RequestState + "-TAMPERED", reply.RequestState[:len(reply.RequestState)-1]} {
			if _, err := h.Call(context.Background(), fx.Args, bad, responses); !IsInvalidState(err) {
				t.Fatalf("tampered continuation %q: got %v, want the restart error", bad, err)
			}
		}
	})

	t.Run("state of another caller", func(t *testing.T) {
		if fx.Other == "" {
			t.Skip("no second authorized principal in the fixtures")
		}
		h := newHarness(t)
		reply, responses := firstState(t, h)
		h.Principal = fx.Other
		if _, err := h.Call(context.Background(), fx.Args, reply.RequestState, responses); !IsInvalidState(err) {
			t.Fatalf("requestState used by another principal: got %v, want the restart error", err)
		}
	})

	t.Run("state with other arguments", func(t *testing.T) {
		if fx.OtherArgs == nil {
			t.Skip("no second set of arguments in the fixtures")
		}
		h := newHarness(t)
		reply, responses := firstState(t, h)
		if _, err := h.Call(context.Background(), fx.OtherArgs, reply.RequestState, responses); !IsInvalidState(err) {
			t.Fatalf("requestState used with other arguments: got %v, want the restart error", err)
		}
	})

	t.Run("duplicate final round", func(t *testing.T) {
		count := func() int {
			if fx.Effects == nil {
				return 0
			}
			return fx.Effects()
		}
		// A reference run measures the side effects of one workflow.
		before := count()
		reference := drive(t, newHarness(t), &fx, nil)
		perRun := count() - before
		if len(reference) < 2 {
			t.Skipf("%s completes in one round; a retried first call is a new workflow", d.Name)
		}
		last := len(reference) - 1
		// The same workflow on a fresh store, stopped before its final round,
		// which then arrives several times at once.
		h := newHarness(t)
		steps := drive(t, h, &fx, func(i int, _ step) bool { return i == last })
		final := step{state: steps[len(steps)-1].reply.RequestState, responses: answers(t, h, &fx, steps[len(steps)-1].reply)}
		before = count()
		replies := make([]*mrtr.Reply, fx.Duplicates)
		errs := make([]error, fx.Duplicates)
		var wg sync.WaitGroup
		for i := range fx.Duplicates {
			wg.Go(func() {
				replies[i], errs[i] = h.Call(context.Background(), fx.Args, final.state, final.responses)
			})
		}
		wg.Wait()
		for i := range fx.Duplicates {
			if errs[i] != nil {
				t.Fatalf("duplicate %d: %v", i, errs[i])
			}
			a, _ := json.Marshal(replies[i])
			b, _ := json.Marshal(replies[0])
			if string(a) != string(b) {
				t.Fatalf("duplicate %d replied differently:\n%s\n%s", i, a, b)
			}
		}
		wantEnd(t, replies[0])
		if got := count() - before; fx.Effects != nil && got > perRun {
			t.Fatalf("%d racing copies of the final round performed %d side effects; one round performs %d", fx.Duplicates, got, perRun)
		}
		// And a late retry replays too.
		again, err := h.Call(context.Background(), fx.Args, final.state, final.responses)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.Final, replies[0].Final) {
			t.Fatalf("late retry: %+v, want %+v", again.Final, replies[0].Final)
		}
	})

	t.Run("business operation id", func(t *testing.T) {
		runBusinessKey(t, newHarness(t), &fx)
	})

	t.Run("cancellation", func(t *testing.T) {
		h := newHarness(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		before := 0
		if fx.Effects != nil {
			before = fx.Effects()
		}
		_, err := h.Call(ctx, fx.Args, "", nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call: got %v, want context.Canceled", err)
		}
		if fx.Effects != nil && fx.Effects() != before {
			t.Fatal("a cancelled call performed a side effect")
		}
	})

	t.Run("unauthorized", func(t *testing.T) {
		if fx.Unauthorized == "" {
			t.Skip("no unauthorized principal in the fixtures")
		}
		h := newHarness(t)
		h.Principal = fx.Unauthorized
		reply, err := h.Call(context.Background(), fx.Args, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeUnauthorized {
			t.Fatalf("unauthorized caller: %+v, want outcome unauthorized", reply)
		}
		// Authorization is checked again on every round.
		h.Principal = fx.Principal
		first, responses := firstState(t, h)
		h.Principal = fx.Unauthorized
		reply, err = h.Call(context.Background(), fx.Args, first.RequestState, responses)
		if err != nil {
			t.Fatal(err)
		}
		if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeUnauthorized {
			t.Fatalf("unauthorized continuation: %+v, want outcome unauthorized", reply)
		}
	})

	t.Run("dependency failure", func(t *testing.T) {
		if fx.Break == nil {
			t.Skip("no way to break a dependency in the fixtures")
		}
		h := newHarness(t)
		restore := fx.Break()
		defer restore()
		steps := drive(t, h, &fx, nil)
		final := steps[len(steps)-1].reply
		if final.Final.Outcome != mrtr.OutcomeError || final.Final.Text == "" {
			t.Fatalf("dependency failure: %+v, want outcome error with a message", final.Final)
		}
	})

	t.Run("over HTTP", func(t *testing.T) {
		h := newHarness(t)
		runHTTP(t, h, &fx)
	})
}

// runBusinessKey runs the fixture workflow twice on one store. An effect
// whose operation id is a business key (it does not name the workflow)
// must not run for the second workflow: the second may end earlier (a
// real check may notice that the thing was done), but when it reaches the
// effect it is refused, and it performs no side effects but those of the
// workflow's own effects before that one.
func runBusinessKey[F any](t *testing.T, h *Harness[F], fx *Fixtures) {
	d := h.Program.Descriptor()
	shared := map[string]bool{}
	for _, s := range d.States {
		if s.Kind == mrtr.StateEffect && s.BusinessKey {
			shared[s.Name] = true
		}
	}
	if len(shared) == 0 {
		t.Skipf("no effect of %s has a business operation id", d.Name)
	}
	count := func() int {
		if fx.Effects == nil {
			return 0
		}
		return fx.Effects()
	}
	var path []string
	first := drive(t, h, fx, nil)
	for _, s := range first {
		path = append(path, s.reply.Path...)
	}
	if end := first[len(first)-1].reply; end.NeedsInput() || end.Final.Outcome != fx.WantOutcome {
		t.Skipf("the fixture workflow did not end %s (%s), so its effects may not be recorded", fx.WantOutcome, end.Final.Outcome)
	}
	i := slices.IndexFunc(path, func(name string) bool { return shared[name] })
	if i < 0 {
		t.Skipf("the fixture workflow passes no effect with a business operation id (path %v)", path)
	}
	effect := path[i]
	ownBefore := 0
	for _, name := range path[:i] {
		if s := stateNamed(d, name); s != nil && s.Kind == mrtr.StateEffect {
			ownBefore++
		}
	}
	before := count()
	second := drive(t, h, fx, nil)
	reached := false
	for _, s := range second {
		if !slices.Contains(s.reply.Path, effect) {
			continue
		}
		// The round that reaches the effect must be refused there, and
		// end the workflow.
		reached = true
		if s.reply.NeedsInput() || s.reply.Final.Outcome != mrtr.OutcomeRejected {
			t.Fatalf("a second workflow reached effect %s (operation id %s) and went on (%s), want it refused", effect, stateNamed(d, effect).OperationID, outcomeOf(s.reply))
		}
		break
	}
	if got := count() - before; got > ownBefore {
		t.Fatalf("the second workflow performed %d side effects; at most %d (its own before %s) may run again", got, ownBefore, effect)
	}
	if !reached {
		t.Logf("the second workflow ended before effect %s (its handler noticed?): nothing to refuse", effect)
	}
}

// outcomeOf says how a reply ended: its outcome and text, or what it asks.
func outcomeOf(r *mrtr.Reply) string {
	if r.NeedsInput() {
		return fmt.Sprintf("asks for %v", keys(r.InputRequests))
	}
	return fmt.Sprintf("%s: %q", r.Final.Outcome, r.Final.Text)
}

func stateNamed(d *mrtr.Descriptor, name string) *mrtr.StateInfo {
	for i := range d.States {
		if d.States[i].Name == name {
			return &d.States[i]
		}
	}
	return nil
}

// runHTTP walks the fixture workflow round by round over streamable HTTP
// with the official SDK client (automatic MRTR retries off, so each round
// is visible).
func runHTTP[F any](t *testing.T, h *Harness[F], fx *Fixtures) {
	d := h.Program.Descriptor()
	server := mcp.NewServer(&mcp.Implementation{Name: Audience, Version: "test"}, nil)
	if d.Kind == mrtr.KindPrompt {
		mrtr.AddPrompt(server, h.Engine, h.Program)
	} else {
		mrtr.AddTool(server, h.Engine, h.Program)
	}
	ts := httptest.NewServer(mrtr.Handler(server, nil))
	defer ts.Close()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "mrtrtest-client", Version: "test"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("the client must not be asked directly on protocol 2026-07-28")
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("the client must not be asked directly on protocol 2026-07-28")
		},
	})
	client.AddRoots(&mcp.Root{URI: "file:///mrtrtest"})
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	raw, err := marshalArgs(fx.Args)
	if err != nil {
		t.Fatal(err)
	}
	var state string
	var responses mcp.InputResponseMap
	for round := 1; round <= 32; round++ {
		var inputs mcp.InputRequestMap
		var text string
		var isError bool
		if d.Kind == mrtr.KindPrompt {
			var args map[string]string
			if err := json.Unmarshal(raw, &args); err != nil {
				t.Fatalf("prompt arguments must be strings: %v", err)
			}
			res, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: d.Name, Arguments: args, InputResponses: responses, RequestState: state})
			if err != nil {
				if fx.WantOutcome != mrtr.OutcomeSuccess {
					return
				}
				t.Fatalf("round %d: %v", round, err)
			}
			if !res.NeedsInput() {
				if len(res.Messages) == 0 {
					t.Fatalf("round %d: a complete prompt result without messages", round)
				}
				return
			}
			inputs, state = res.InputRequests, res.RequestState
		} else {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: d.Name, Arguments: raw, InputResponses: responses, RequestState: state})
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if !res.NeedsInput() {
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						text += tc.Text
					}
				}
				isError = res.IsError
				want := fx.WantOutcome != mrtr.OutcomeSuccess && fx.WantOutcome != mrtr.OutcomeCancelled
				if isError != want || text == "" {
					t.Fatalf("round %d: final result isError=%v text=%q, want isError=%v with text", round, isError, text, want)
				}
				return
			}
			inputs, state = res.InputRequests, res.RequestState
		}
		responses = answers(t, h, fx, &mrtr.Reply{InputRequests: inputs, RequestState: state})
	}
	t.Fatal(fmt.Sprintf("%s did not end within 32 rounds over HTTP", d.Name))
}

package mrtrtest

import (
	"bytes"
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
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/problem"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// The scenarios of the matrix, in the order RunMatrix runs them; each is a
// subtest of that name.
const (
	ScenarioCompleteInput  = "complete input"
	ScenarioMissingInput   = "missing input"
	ScenarioInvalid        = "invalid response"
	ScenarioExpired        = "expired state"
	ScenarioTampered       = "tampered state"
	ScenarioOtherCaller    = "state of another caller"
	ScenarioOtherArguments = "state with other arguments"
	ScenarioDuplicateFinal = "duplicate final round"
	ScenarioBusinessKey    = "business operation id"
	ScenarioCancellation   = "cancellation"
	ScenarioUnauthorized   = "unauthorized"
	ScenarioDependency     = "dependency failure"
	ScenarioHTTP           = "over HTTP"
)

// Scenarios lists every scenario of the matrix.
var Scenarios = []string{
	ScenarioCompleteInput, ScenarioMissingInput, ScenarioInvalid, ScenarioExpired, ScenarioTampered,
	ScenarioOtherCaller, ScenarioOtherArguments, ScenarioDuplicateFinal, ScenarioBusinessKey,
	ScenarioCancellation, ScenarioUnauthorized, ScenarioDependency, ScenarioHTTP,
}

// NotApplicablePrefix starts the log line of a scenario (or part of one)
// that does not apply to the program: it passes, and says why.
const NotApplicablePrefix = "not applicable: "

// Fixtures describe a valid workflow of one program, and the knobs the
// matrix needs to provoke each failure. Only Args and Answers are required
// by every program; a scenario that applies to the program (decided from
// its descriptor) but lacks its knob, or that no workflow of the fixtures
// reaches, fails the test and says what is missing.
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
	// Unauthorized is a principal Authorize refuses.
	Unauthorized string
	// OtherArgs are different valid arguments a requestState must not
	// continue with.
	OtherArgs any
	// Effects counts the side effects performed so far (nil: not counted).
	Effects func() int
	// Break makes a dependency of the handler fail until restore is
	// called.
	Break func() (restore func())
	// Duplicates is how many copies of the final round race (default 8).
	Duplicates int

	// Steer, when set, makes the handler's checks take the given outcomes
	// in the next workflow: per check name, the outcomes of its next calls
	// in order, numbered from 1 in the order of StateInfo.Outcomes; nil
	// puts back the handler's own choice. The generated fake's is
	// Fake.Steer. With it the matrix computes from the state table a route
	// to what each scenario needs (a state that asks, each effect) and
	// steers the handler onto it.
	Steer func(outcomes map[string][]uint8)
	// Variants are other valid workflows, for a handler that cannot be
	// steered: arguments or answers that take another branch (an amount
	// above the approval threshold). A scenario the fixture workflow does
	// not reach runs on the first variant that does.
	Variants []Variant
	// NotApplicable names scenarios that do not apply to this handler
	// although the descriptor allows them (an Authorize that refuses no
	// one), each with the reason; the matrix logs it and passes them.
	NotApplicable map[string]string
}

// Variant is another valid workflow of the program.
type Variant struct {
	// Name says which branch it takes ("amount above the threshold").
	Name string
	// Args are its arguments (nil: Fixtures.Args).
	Args any
	// Answers are added to (and replace) Fixtures.Answers.
	Answers map[string]mcp.InputResponse
	// WantOutcome is how it ends; default success.
	WantOutcome mrtr.Outcome
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

// respond builds a route's responses to a reply's input requests: the
// route's answers, gates confirmed, or, when the route leaves the state by
// declining or cancelling, its forms declined or cancelled.
func respond(d *mrtrimpl.Descriptor, r *route, reply *mrtr.Reply, leave string) (mcp.InputResponseMap, error) {
	out := mcp.InputResponseMap{}
	for key := range reply.InputRequests {
		q := requestNamed(d, key)
		switch {
		case q == nil:
			return nil, fmt.Errorf("%s asks for %q, which its descriptor does not declare", d.Name, key)
		case q.GateField != "" && leave == "cancel":
			out[key] = Cancel()
		case q.GateField != "" && leave == "decline":
			out[key] = Accept(map[string]any{q.GateField: false})
		case q.Kind == vocab.Elicit && leave == "decline":
			out[key] = Decline()
		case q.Kind == vocab.Elicit && leave == "cancel":
			out[key] = Cancel()
		default:
			if a, ok := r.answers[key]; ok {
				out[key] = a
			} else if q.GateField != "" {
				out[key] = Accept(map[string]any{q.GateField: true})
			} else {
				return nil, fmt.Errorf("%s asks for %q, but the fixtures have no answer for it", d.Name, key)
			}
		}
	}
	return out, nil
}

func requestNamed(d *mrtrimpl.Descriptor, key string) *mrtrimpl.RequestInfo {
	for i := range d.States {
		for j := range d.States[i].Requests {
			if q := &d.States[i].Requests[j]; q.Key == key {
				return q
			}
		}
	}
	return nil
}

// requestOwner is the state that asks key, or nil.
func requestOwner(d *mrtrimpl.Descriptor, key string) *mrtrimpl.StateInfo {
	for i := range d.States {
		for _, q := range d.States[i].Requests {
			if q.Key == key {
				return &d.States[i]
			}
		}
	}
	return nil
}

// checkRequests says whether an input_required reply asks only for
// requests the descriptor declares, all of one state.
func checkRequests(d *mrtrimpl.Descriptor, reply *mrtr.Reply) error {
	if !reply.NeedsInput() {
		return nil
	}
	if reply.RequestState == "" || len(reply.InputRequests) == 0 {
		return fmt.Errorf("input required without requestState or requests: %+v", reply)
	}
	var owner string
	for key := range reply.InputRequests {
		s := requestOwner(d, key)
		if s == nil {
			return fmt.Errorf("input request %q is not declared by %s", key, d.Name)
		}
		if owner != "" && owner != s.Name {
			return fmt.Errorf("one round asks for requests of two states (%s and %s)", owner, s.Name)
		}
		owner = s.Name
	}
	return nil
}

func keys(m mcp.InputRequestMap) []string {
	return slices.Sorted(maps.Keys(m))
}

// matrix is one run of RunMatrix.
type matrix[F any] struct {
	p        mrtr.Program[F]
	d        *mrtrimpl.Descriptor
	g        *graph
	fx       *Fixtures
	opts     []Option
	fixture  route
	variants []route
}

func (m *matrix[F]) newHarness(t *testing.T) *Harness[F] {
	h := New(t, m.p, m.opts...)
	h.Principal = m.fx.Principal
	return h
}

func (m *matrix[F]) count() int {
	if m.fx.Effects == nil {
		return 0
	}
	return m.fx.Effects()
}

// drive runs route r on h, answering every request, and returns each
// request with its reply. before, when set, ends the drive before sending
// the request it returns true for; after ends it after the reply of a
// round that asks.
func (m *matrix[F]) drive(h *Harness[F], r *route, before func(i int, s step) bool, after func([]step) bool) ([]step, error) {
	if m.fx.Steer != nil {
		m.fx.Steer(r.steer)
	}
	var steps []step
	s := step{}
	for i := range 32 {
		if before != nil && before(i, s) {
			return steps, nil
		}
		reply, err := h.Call(context.Background(), r.args, s.state, s.responses)
		if err != nil {
			return steps, fmt.Errorf("round %d: %w", i+1, err)
		}
		s.reply = reply
		steps = append(steps, s)
		if err := checkRequests(m.d, reply); err != nil {
			return steps, err
		}
		if !reply.NeedsInput() || (after != nil && after(steps)) {
			return steps, nil
		}
		responses, err := respond(m.d, r, reply, r.leaveAt(i))
		if err != nil {
			return steps, err
		}
		s = step{state: reply.RequestState, responses: responses}
	}
	return steps, errors.New("the workflow did not end within 32 rounds")
}

// leaveAt is how the route leaves the state that asked in round i+1.
func (r *route) leaveAt(i int) string {
	if i < len(r.leave) {
		return r.leave[i]
	}
	return ""
}

// candidates are the routes that may reach what a scenario needs: the
// fixture workflow, the variants, and, when the handler can be steered,
// the route through via computed from the state table.
func (m *matrix[F]) candidates(via ...string) []route {
	out := append([]route{m.fixture}, m.variants...)
	if m.fx.Steer != nil {
		if r, ok := m.g.plan(m.fx, via...); ok {
			out = append(out, r)
		}
	}
	return out
}

// find drives each candidate on a new harness until ok accepts its steps,
// and fails the test, naming the scenario and what it needs, when none
// does.
func (m *matrix[F]) find(t *testing.T, scenario, need string, cands []route, before func(int, step) bool, after func([]step) bool, ok func(r *route, steps []step) bool) (*route, *Harness[F], []step) {
	t.Helper()
	var tried []string
	for i := range cands {
		r := &cands[i]
		h := m.newHarness(t)
		steps, err := m.drive(h, r, before, after)
		if err == nil && ok(r, steps) {
			if i > 0 {
				t.Logf("runs on %s", r.name)
			}
			return r, h, steps
		}
		tried = append(tried, r.name+" ("+describe(steps, err)+")")
	}
	hint := "Add a Fixtures.Variants entry that takes that branch (other arguments or answers)"
	if m.fx.Steer == nil {
		hint += ", or Fixtures.Steer to steer the handler's checks"
	}
	t.Fatalf("scenario %q applies to %s but no workflow of the fixtures reaches it: it needs %s; tried %s. %s",
		scenario, m.d.Name, need, strings.Join(tried, "; "), hint)
	return nil, nil, nil
}

// describe says what a driven workflow did, round by round.
func describe(steps []step, err error) string {
	var rounds []string
	for _, s := range steps {
		rounds = append(rounds, strings.Join(s.reply.Path, PathSeparator)+" → "+outcomeOf(s.reply))
	}
	out := strings.Join(rounds, " | ")
	if err != nil {
		if out != "" {
			out += " | "
		}
		out += err.Error()
	}
	if out == "" {
		return "nothing ran"
	}
	return out
}

// notApplicable logs why a scenario (or part of one) does not apply.
func notApplicable(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf(NotApplicablePrefix+format, args...)
}

// RunMatrix runs the contract of a multi-round tool against p, the
// scenarios of the MRTR test matrix: complete input, missing input, valid
// continuation, invalid response, expired state, tampered state, state
// used by another caller or with other arguments, duplicate final round
// (at every effect), a second workflow sharing a business operation id (at
// every effect that has one), cancellation, unauthorized caller,
// dependency failure, and the whole workflow over real HTTP with the
// official SDK client.
//
// Whether a scenario applies is decided from p's descriptor: a program
// that never asks has no requestState to tamper with, one without effects
// none to repeat. A scenario that does not apply passes and logs
// "not applicable: <why>". One that applies runs on a workflow that reaches
// it (the fixture workflow, a variant, or a route the matrix steers the
// handler onto); when none does, or a knob it needs is missing from the
// fixtures, the test fails and says what is missing.
func RunMatrix[F any](t *testing.T, p mrtr.Program[F], fx Fixtures, opts ...Option) {
	m := newMatrix(p, &fx, opts)
	for name := range fx.NotApplicable {
		if !slices.Contains(Scenarios, name) {
			t.Fatalf("Fixtures.NotApplicable names %q, which is not a scenario (%s)", name, strings.Join(Scenarios, ", "))
		}
	}
	scenarios := map[string]func(*testing.T){
		ScenarioCompleteInput:  m.completeInput,
		ScenarioMissingInput:   m.missingInput,
		ScenarioInvalid:        m.invalidResponse,
		ScenarioExpired:        m.expired,
		ScenarioTampered:       m.tampered,
		ScenarioOtherCaller:    m.otherCaller,
		ScenarioOtherArguments: m.otherArguments,
		ScenarioDuplicateFinal: m.duplicateFinal,
		ScenarioBusinessKey:    m.businessKey,
		ScenarioCancellation:   m.cancellation,
		ScenarioUnauthorized:   m.unauthorized,
		ScenarioDependency:     m.dependencyFailure,
		ScenarioHTTP:           m.overHTTP,
	}
	for _, name := range Scenarios {
		t.Run(name, func(t *testing.T) {
			if why, ok := fx.NotApplicable[name]; ok {
				notApplicable(t, "%s (Fixtures.NotApplicable)", why)
				return
			}
			scenarios[name](t)
		})
	}
}

// newMatrix prepares a run of the matrix (or of CheckValidator) on p: the
// fixture workflow, its variants and the state graph routes are planned
// on.
func newMatrix[F any](p mrtr.Program[F], fx *Fixtures, opts []Option) *matrix[F] {
	fx.defaults()
	d := p.Descriptor()
	m := &matrix[F]{p: p, d: d, g: newGraph(d), fx: fx, opts: opts,
		fixture: route{name: "the fixture workflow", args: fx.Args, answers: fx.Answers, want: fx.WantOutcome}}
	for i, v := range fx.Variants {
		r := route{name: fmt.Sprintf("variant %d (%s)", i+1, v.Name), args: v.Args, want: v.WantOutcome,
			answers: maps.Clone(fx.Answers)}
		if r.args == nil {
			r.args = fx.Args
		}
		if r.want == "" {
			r.want = mrtr.OutcomeSuccess
		}
		if r.answers == nil {
			r.answers = map[string]mcp.InputResponse{}
		}
		maps.Copy(r.answers, v.Answers)
		m.variants = append(m.variants, r)
	}
	return m
}

func (m *matrix[F]) wantEnd(t *testing.T, reply *mrtr.Reply, want mrtr.Outcome) {
	t.Helper()
	if reply.NeedsInput() {
		t.Fatalf("still needs input: %v", keys(reply.InputRequests))
	}
	if reply.Final.Outcome != want {
		t.Fatalf("outcome %s (%q), want %s", reply.Final.Outcome, reply.Final.Text, want)
	}
}

func (m *matrix[F]) completeInput(t *testing.T) {
	for _, r := range append([]route{m.fixture}, m.variants...) {
		steps, err := m.drive(m.newHarness(t), &r, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		m.wantEnd(t, steps[len(steps)-1].reply, r.want)
	}
}

// asks reports whether the program can ask at all, logging why not.
func (m *matrix[F]) asks(t *testing.T, consequence string) bool {
	t.Helper()
	if len(m.g.interactiveStates()) == 0 {
		notApplicable(t, "%s asks for nothing on any path (it has no reachable ask or confirm state), so %s", m.d.Name, consequence)
		return false
	}
	return true
}

// firstAsk finds a workflow whose first round asks, and returns it with
// the harness that ran it, the first reply and the answers to it.
func (m *matrix[F]) firstAsk(t *testing.T, scenario string) (*route, *Harness[F], *mrtr.Reply, mcp.InputResponseMap) {
	t.Helper()
	var via []string
	if p, ok := m.g.shortest(m.g.initial(), func(name string) bool { return stateNamed(m.d, name).Kind.Interactive() }); ok && len(p) > 0 {
		via = []string{p[len(p)-1].to}
	} else if ok {
		via = []string{m.g.initial()}
	}
	need := fmt.Sprintf("a workflow that asks for input (states that ask: %s)", strings.Join(stateNames(m.g.interactiveStates()), ", "))
	r, h, steps := m.find(t, scenario, need, m.candidates(via...), nil,
		func([]step) bool { return true },
		func(_ *route, steps []step) bool { return steps[0].reply.NeedsInput() })
	first := steps[0].reply
	responses, err := respond(m.d, r, first, r.leaveAt(0))
	if err != nil {
		t.Fatal(err)
	}
	return r, h, first, responses
}

// missingInput runs at every state that asks (every gate too): a
// continuation sent there without answers is asked the same again.
func (m *matrix[F]) missingInput(t *testing.T) {
	if !m.asks(t, "nothing can be missing") {
		return
	}
	for _, s := range m.g.interactiveStates() {
		t.Run("at "+s.Name, func(t *testing.T) {
			asksHere := func(steps []step) bool { return asksState(m.d, steps[len(steps)-1].reply, s.Name) }
			r, h, steps := m.find(t, ScenarioMissingInput+"/at "+s.Name, fmt.Sprintf("a workflow that asks at %s", s.Name), m.candidates(s.Name), nil,
				asksHere, func(_ *route, steps []step) bool { return asksHere(steps) })
			asked := steps[len(steps)-1].reply
			again, err := h.Call(context.Background(), r.args, asked.RequestState, mcp.InputResponseMap{})
			if err != nil {
				t.Fatal(err)
			}
			if !again.NeedsInput() || !reflect.DeepEqual(keys(again.InputRequests), keys(asked.InputRequests)) {
				t.Fatalf("after no answers: %s, want the same requests %v again", outcomeOf(again), keys(asked.InputRequests))
			}
		})
	}
}

// asksState reports whether reply asks the questions of state name.
func asksState(d *mrtrimpl.Descriptor, reply *mrtr.Reply, name string) bool {
	for key := range reply.InputRequests {
		return requestOwner(d, key).Name == name
	}
	return false
}

func (m *matrix[F]) invalidResponse(t *testing.T) {
	if !m.asks(t, "no answer can be invalid") {
		return
	}
	if len(m.fx.Invalid) == 0 && !m.onlyGates() {
		t.Fatalf("%s asks (%s), but Fixtures.Invalid is empty: give, per request key, an answer validation must refuse (or say why none can be in Fixtures.NotApplicable)",
			m.d.Name, strings.Join(stateNames(m.g.interactiveStates()), ", "))
	}
	if len(m.fx.Invalid) == 0 {
		notApplicable(t, "the only questions of %s are confirmation gates, answered yes or no", m.d.Name)
		return
	}
	for _, key := range slices.Sorted(maps.Keys(m.fx.Invalid)) {
		bad := m.fx.Invalid[key]
		t.Run(key, func(t *testing.T) {
			owner := requestOwner(m.d, key)
			if owner == nil {
				t.Fatalf("Fixtures.Invalid has an answer to %q, which %s never asks", key, m.d.Name)
			}
			var at step
			r, h, _ := m.find(t, ScenarioInvalid+"/"+key, fmt.Sprintf("a workflow that asks for %q (state %s)", key, owner.Name), m.candidates(owner.Name),
				func(_ int, s step) bool {
					if _, ok := s.responses[key]; ok {
						at = s
						return true
					}
					return false
				}, nil,
				func(*route, []step) bool { return at.state != "" })
			responses := maps.Clone(at.responses)
			responses[key] = bad
			reply, err := h.Call(context.Background(), r.args, at.state, responses)
			if err != nil {
				t.Fatal(err)
			}
			if !reply.NeedsInput() || reply.InputRequests[key] == nil {
				t.Fatalf("an invalid answer to %q was accepted: %+v", key, reply)
			}
			if ep, ok := reply.InputRequests[key].(*mcp.ElicitParams); ok && !strings.Contains(ep.Message, problem.CorrectPrefix) {
				t.Fatalf("asked again without saying what to correct: %q", ep.Message)
			}
		})
	}
}

// onlyGates reports whether every question the program asks is a
// confirmation gate.
func (m *matrix[F]) onlyGates() bool {
	for _, s := range m.g.interactiveStates() {
		for _, q := range s.Requests {
			if q.GateField == "" {
				return false
			}
		}
	}
	return true
}

const noState = "it never issues a requestState"

func (m *matrix[F]) expired(t *testing.T) {
	if !m.asks(t, noState) {
		return
	}
	r, h, first, responses := m.firstAsk(t, ScenarioExpired)
	h.Clock.Advance(m.d.TTL + seal.DefaultSkew + 1e9)
	if _, err := h.Call(context.Background(), r.args, first.RequestState, responses); !IsInvalidState(err) {
		t.Fatalf("expired continuation: got %v, want the restart error", err)
	}
}

func (m *matrix[F]) tampered(t *testing.T) {
	if !m.asks(t, noState) {
		return
	}
	r, h, first, responses := m.firstAsk(t, ScenarioTampered)
	token := first.RequestState
	for _, bad := range []string{Tamper(token), token + "-TAMPERED", token[:len(token)-1]} {
		if _, err := h.Call(context.Background(), r.args, bad, responses); !IsInvalidState(err) {
			t.Fatalf("tampered continuation %q: got %v, want the restart error", bad, err)
		}
	}
}

func (m *matrix[F]) otherCaller(t *testing.T) {
	if !m.asks(t, noState) {
		return
	}
	if m.fx.Other == "" {
		t.Fatalf("%s issues requestStates, but the fixtures have no second authorized principal (Fixtures.Other)", m.d.Name)
	}
	r, h, first, responses := m.firstAsk(t, ScenarioOtherCaller)
	h.Principal = m.fx.Other
	if _, err := h.Call(context.Background(), r.args, first.RequestState, responses); !IsInvalidState(err) {
		t.Fatalf("requestState used by another principal: got %v, want the restart error", err)
	}
}

func (m *matrix[F]) otherArguments(t *testing.T) {
	if !m.asks(t, noState) {
		return
	}
	if !hasArguments(m.d) {
		notApplicable(t, "%s takes no arguments", m.d.Name)
		return
	}
	if m.fx.OtherArgs == nil {
		t.Fatalf("%s takes arguments, but the fixtures have no second set of them (Fixtures.OtherArgs)", m.d.Name)
	}
	r, h, first, responses := m.firstAsk(t, ScenarioOtherArguments)
	other := m.fx.OtherArgs
	if sameJSON(other, r.args) {
		other = m.fx.Args // the workflow found runs on a variant's arguments
	}
	if sameJSON(other, r.args) {
		t.Fatalf("Fixtures.OtherArgs are the arguments of %s", r.name)
	}
	if _, err := h.Call(context.Background(), other, first.RequestState, responses); !IsInvalidState(err) {
		t.Fatalf("requestState used with other arguments: got %v, want the restart error", err)
	}
}

func sameJSON(a, b any) bool {
	x, err1 := marshalArgs(a)
	y, err2 := marshalArgs(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// duplicateFinal races copies of the round that runs each effect (of the
// final round, for a program without effects): they reply alike, and
// together perform no more side effects than the round does once.
func (m *matrix[F]) duplicateFinal(t *testing.T) {
	if !m.asks(t, "every call is a first call, and a retried first call is a new workflow") {
		return
	}
	effects := m.g.effectStates()
	if len(effects) == 0 {
		t.Run("final round", func(t *testing.T) {
			var via []string
			if asker := m.g.interactiveStates(); len(asker) > 0 {
				via = []string{asker[0].Name}
			}
			r, _, steps := m.find(t, ScenarioDuplicateFinal, "a workflow of two rounds or more", m.candidates(via...), nil, nil,
				func(_ *route, steps []step) bool { return len(steps) >= 2 && !steps[len(steps)-1].reply.NeedsInput() })
			m.race(t, r, len(steps)-1, steps[len(steps)-1].reply.Path)
		})
		return
	}
	for _, e := range effects {
		t.Run("at "+e.Name, func(t *testing.T) {
			asker := m.g.askerBefore(e.Name)
			if asker == "" {
				notApplicable(t, "effect %s runs only in a first round (no state that asks comes before it): a retried first call is a new workflow (%q covers a repeated operation id)", e.Name, ScenarioBusinessKey)
				return
			}
			k := -1
			r, _, steps := m.find(t, ScenarioDuplicateFinal+"/at "+e.Name, fmt.Sprintf("a workflow that runs effect %s in a round after the first (after %s)", e.Name, asker),
				m.candidates(asker, e.Name), nil, nil,
				func(_ *route, steps []step) bool {
					for i, s := range steps[1:] {
						if slices.Contains(s.reply.Path, e.Name) {
							k = i + 1
							return true
						}
					}
					return false
				})
			m.race(t, r, k, steps[k].reply.Path)
		})
	}
}

// race drives r on a new harness up to round k+1 (0-based k ≥ 1), sends
// that round several times at once, then once more late. path is what the
// round ran when r was first driven.
func (m *matrix[F]) race(t *testing.T, r *route, k int, path []string) {
	t.Helper()
	h := m.newHarness(t)
	steps, err := m.drive(h, r, func(i int, _ step) bool { return i == k }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != k {
		t.Fatalf("%s ended after %d rounds the second time, %d before", r.name, len(steps), k+1)
	}
	prev := steps[k-1].reply
	responses, err := respond(m.d, r, prev, r.leaveAt(k-1))
	if err != nil {
		t.Fatal(err)
	}
	before := m.count()
	n := m.fx.Duplicates
	replies := make([]*mrtr.Reply, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			replies[i], errs[i] = h.Call(context.Background(), r.args, prev.RequestState, responses)
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("duplicate %d: %v", i, errs[i])
		}
		a, _ := json.Marshal(replies[i])
		b, _ := json.Marshal(replies[0])
		if !bytes.Equal(a, b) {
			t.Fatalf("duplicate %d replied differently:\n%s\n%s", i, a, b)
		}
	}
	if !replies[0].NeedsInput() {
		m.wantEnd(t, replies[0], r.want)
	}
	perRound := 0
	for _, name := range path {
		if s := stateNamed(m.d, name); s != nil && s.Kind == vocab.StateEffect {
			perRound++
		}
	}
	if got := m.count() - before; got > perRound {
		t.Fatalf("%d racing copies of round %d performed %d side effects; the round performs %d (%s)", n, k+1, got, perRound, strings.Join(path, PathSeparator))
	}
	// And a late retry replays too.
	again, err := h.Call(context.Background(), r.args, prev.RequestState, responses)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(again)
	b, _ := json.Marshal(replies[0])
	if !bytes.Equal(a, b) {
		t.Fatalf("late retry replied differently:\n%s\n%s", a, b)
	}
}

// businessKey runs, for every effect whose operation id is a business key
// (it does not name the workflow), two workflows through it on one store:
// the second may end earlier (a real check may notice that the thing was
// done), but when it reaches the effect it is refused, and it performs no
// side effects but those of the workflow's own effects before that one.
func (m *matrix[F]) businessKey(t *testing.T) {
	var shared []*mrtrimpl.StateInfo
	for _, s := range m.g.effectStates() {
		if s.BusinessKey {
			shared = append(shared, s)
		}
	}
	if len(shared) == 0 {
		notApplicable(t, "no effect of %s has a business operation id", m.d.Name)
		return
	}
	for _, e := range shared {
		t.Run("at "+e.Name, func(t *testing.T) {
			var path []string
			r, h, _ := m.find(t, ScenarioBusinessKey+"/at "+e.Name, fmt.Sprintf("a workflow that passes effect %s and ends as it should", e.Name),
				m.candidates(e.Name), nil, nil,
				func(r *route, steps []step) bool {
					path = nil
					for _, s := range steps {
						path = append(path, s.reply.Path...)
					}
					// It must end as it should, or the effect's outcome may
					// not have been recorded.
					end := steps[len(steps)-1].reply
					return slices.Contains(path, e.Name) && !end.NeedsInput() && end.Final.Outcome == r.want
				})
			i := slices.Index(path, e.Name)
			ownBefore := 0
			for _, name := range path[:i] {
				if s := stateNamed(m.d, name); s != nil && s.Kind == vocab.StateEffect {
					ownBefore++
				}
			}
			before := m.count()
			second, err := m.drive(h, r, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			reached := false
			for _, s := range second {
				if !slices.Contains(s.reply.Path, e.Name) {
					continue
				}
				// The round that reaches the effect must be refused there,
				// and end the workflow.
				reached = true
				if s.reply.NeedsInput() || s.reply.Final.Outcome != mrtr.OutcomeRejected {
					t.Fatalf("a second workflow reached effect %s (operation id %s) and went on (%s), want it refused", e.Name, e.OperationID, outcomeOf(s.reply))
				}
				break
			}
			if got := m.count() - before; got > ownBefore {
				t.Fatalf("the second workflow performed %d side effects; at most %d (its own before %s) may run again", got, ownBefore, e.Name)
			}
			if !reached {
				t.Logf("the second workflow ended before effect %s (its handler noticed?): nothing to refuse", e.Name)
			}
		})
	}
}

// cancellation: a cancelled first call, and a cancelled continuation,
// return the context's error and perform no side effect; the cancelled
// continuation can then be sent again.
func (m *matrix[F]) cancellation(t *testing.T) {
	if m.fx.Steer != nil {
		m.fx.Steer(nil)
	}
	h := m.newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := m.count()
	if _, err := h.Call(ctx, m.fixture.args, "", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled first call: got %v, want context.Canceled", err)
	}
	if m.count() != before {
		t.Fatal("a cancelled first call performed a side effect")
	}
	if len(m.g.interactiveStates()) == 0 {
		notApplicable(t, "a cancelled continuation: %s asks for nothing on any path, so %s", m.d.Name, noState)
		return
	}
	r, h, first, responses := m.firstAsk(t, ScenarioCancellation)
	before = m.count()
	if _, err := h.Call(ctx, r.args, first.RequestState, responses); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled continuation: got %v, want context.Canceled", err)
	}
	if m.count() != before {
		t.Fatal("a cancelled continuation performed a side effect")
	}
	// Nothing of the cancelled attempt sticks: sent again, the round runs.
	again, err := h.Call(context.Background(), r.args, first.RequestState, responses)
	if err != nil {
		t.Fatalf("the continuation sent again after its cancelled attempt: %v", err)
	}
	if !again.NeedsInput() && again.Final.Outcome == mrtr.OutcomeError {
		t.Fatalf("the continuation sent again after its cancelled attempt: %s", outcomeOf(again))
	}
}

func (m *matrix[F]) unauthorized(t *testing.T) {
	if m.fx.Unauthorized == "" {
		t.Fatalf("the fixtures have no principal Authorize refuses (Fixtures.Unauthorized; if the handler refuses no one, say so in Fixtures.NotApplicable)")
	}
	if m.fx.Steer != nil {
		m.fx.Steer(nil)
	}
	h := m.newHarness(t)
	h.Principal = m.fx.Unauthorized
	reply, err := h.Call(context.Background(), m.fixture.args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeUnauthorized {
		t.Fatalf("unauthorized caller: %+v, want outcome unauthorized", reply)
	}
	// Authorization is checked again on every round.
	if len(m.g.interactiveStates()) == 0 {
		notApplicable(t, "an unauthorized continuation: %s asks for nothing on any path, so %s", m.d.Name, noState)
		return
	}
	r, h, first, responses := m.firstAsk(t, ScenarioUnauthorized)
	h.Principal = m.fx.Unauthorized
	reply, err = h.Call(context.Background(), r.args, first.RequestState, responses)
	if err != nil {
		t.Fatal(err)
	}
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeUnauthorized {
		t.Fatalf("unauthorized continuation: %+v, want outcome unauthorized", reply)
	}
}

func (m *matrix[F]) dependencyFailure(t *testing.T) {
	steps := m.g.stepStates()
	if len(steps) == 0 {
		notApplicable(t, "%s has no check or effect, so no handler dependency can fail", m.d.Name)
		return
	}
	if m.fx.Break == nil {
		t.Fatalf("%s has checks or effects (%s), but the fixtures have no way to break a dependency (Fixtures.Break)", m.d.Name, strings.Join(stateNames(steps), ", "))
	}
	var via []string
	if p, ok := m.g.shortest(m.g.initial(), func(name string) bool {
		k := stateNamed(m.d, name).Kind
		return k == vocab.StateCheck || k == vocab.StateEffect
	}); ok && len(p) > 0 {
		via = []string{p[len(p)-1].to}
	}
	restore := m.fx.Break()
	defer restore()
	m.find(t, ScenarioDependency, fmt.Sprintf("a workflow that reaches a check or effect (%s) and ends with outcome error and a message", strings.Join(stateNames(steps), ", ")),
		m.candidates(via...), nil, nil,
		func(_ *route, steps []step) bool {
			end := steps[len(steps)-1].reply
			return !end.NeedsInput() && end.Final.Outcome == mrtr.OutcomeError && end.Final.Text != ""
		})
}

func (m *matrix[F]) overHTTP(t *testing.T) {
	if m.fx.Steer != nil {
		m.fx.Steer(nil)
	}
	runHTTP(t, m.newHarness(t), m.fx, &m.fixture)
}

// outcomeOf says how a reply ended: its outcome and text, or what it asks.
func outcomeOf(r *mrtr.Reply) string {
	if r.NeedsInput() {
		return fmt.Sprintf("asks for %v", keys(r.InputRequests))
	}
	return fmt.Sprintf("%s: %q", r.Final.Outcome, r.Final.Text)
}

func stateNamed(d *mrtrimpl.Descriptor, name string) *mrtrimpl.StateInfo {
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
func runHTTP[F any](t *testing.T, h *Harness[F], fx *Fixtures, r *route) {
	d := h.Program.Descriptor()
	server := mcp.NewServer(&mcp.Implementation{Name: Audience, Version: "test"}, nil)
	if d.Kind == vocab.KindPrompt {
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
		//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the test kit answers as a client does
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("the client must not be asked directly on protocol 2026-07-28")
		},
	})
	//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the test kit answers as a client does
	client.AddRoots(&mcp.Root{URI: "file:///mrtrtest"})
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	raw, err := marshalArgs(r.args)
	if err != nil {
		t.Fatal(err)
	}
	var state string
	var responses mcp.InputResponseMap
	for round := 1; round <= 32; round++ {
		var inputs mcp.InputRequestMap
		var text string
		var isError bool
		if d.Kind == vocab.KindPrompt {
			var args map[string]string
			if err := json.Unmarshal(raw, &args); err != nil {
				t.Fatalf("prompt arguments must be strings: %v", err)
			}
			res, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: d.Name, Arguments: args, InputResponses: responses, RequestState: state})
			if err != nil {
				if r.want != mrtr.OutcomeSuccess {
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
				want := r.want != mrtr.OutcomeSuccess && r.want != mrtr.OutcomeCancelled
				if isError != want || text == "" {
					t.Fatalf("round %d: final result isError=%v text=%q, want isError=%v with text", round, isError, text, want)
				}
				return
			}
			inputs, state = res.InputRequests, res.RequestState
		}
		responses, err = respond(d, r, &mrtr.Reply{InputRequests: inputs, RequestState: state}, r.leaveAt(round-1))
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("%s did not end within 32 rounds over HTTP", d.Name)
}

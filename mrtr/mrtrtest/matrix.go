package mrtrtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
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

// scenario is one row of the matrix: its name and the function that runs
// it on a matrix whose fixtures are the scenario's.
type scenario[F any] struct {
	name string
	run  func(m *matrix[F], t tb)
}

// scenarios is the matrix, in the order RunMatrix runs it. Each function
// decides from the descriptor whether its scenario applies, finds a
// workflow that reaches it, and reports a round that goes wrong.
func scenarios[F any]() []scenario[F] {
	return []scenario[F]{
		{ScenarioCompleteInput, (*matrix[F]).completeInput},
		{ScenarioMissingInput, (*matrix[F]).missingInput},
		{ScenarioInvalid, (*matrix[F]).invalidResponse},
		{ScenarioExpired, (*matrix[F]).expired},
		{ScenarioTampered, (*matrix[F]).tampered},
		{ScenarioOtherCaller, (*matrix[F]).otherCaller},
		{ScenarioOtherArguments, (*matrix[F]).otherArguments},
		{ScenarioDuplicateFinal, (*matrix[F]).duplicateFinal},
		{ScenarioBusinessKey, (*matrix[F]).businessKey},
		{ScenarioCancellation, (*matrix[F]).cancellation},
		{ScenarioUnauthorized, (*matrix[F]).unauthorized},
		{ScenarioDependency, (*matrix[F]).dependencyFailure},
		{ScenarioHTTP, (*matrix[F]).overHTTP},
	}
}

// Scenarios lists every scenario of the matrix, in the order RunMatrix
// runs them.
var Scenarios = func() []string {
	var names []string
	for _, s := range scenarios[any]() {
		names = append(names, s.name)
	}
	return names
}()

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
	// caller Authorize allows, who must not be able to use alice's
	// requestState.
	Principal, Other string
	// Unauthorized is a principal Authorize refuses.
	Unauthorized string
	// OtherArgs are different valid arguments, which Authorize allows
	// Principal, that a requestState must not continue with.
	OtherArgs any
	// Effects counts the side effects performed so far (nil: not counted).
	Effects func() int
	// Break makes a dependency of the handler fail until restore is
	// called.
	Break func() (restore func())
	// Reset, when set, puts the handler's own data (not the engine's
	// store) back as the fixtures expect it: the environment a workflow
	// deleted, the option it used up. The matrix calls it before every
	// workflow it starts on a new harness, and in "business operation id"
	// between the two workflows it runs on one store, so that the second
	// reaches the effect and is refused there. Without it, a second
	// workflow asked again for an answer the first took (the option is
	// gone) ends there, and the scenario passes saying so.
	Reset func()
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
	// Values are the continuation values a steerable fake sets in the
	// fixture workflow (see Arms.Values; nil: the fake's own). Fixtures.On
	// sets them from a variant.
	Values map[string]uint8
	// NotApplicable names scenarios that do not apply to this handler
	// although the descriptor allows them (an Authorize that refuses no
	// one), each with the reason; the matrix logs it and passes them.
	NotApplicable map[string]string
	// Scenarios change the fixtures of one scenario (by its name,
	// ScenarioOtherCaller...): a handler that authorizes per resource may
	// need another resource, or another second caller, in one scenario.
	Scenarios map[string]Override
}

// Override changes the fixtures of one scenario: each field that is set
// replaces the shared one; Answers and Invalid are merged key by key.
type Override struct {
	Args                           any
	Answers, Invalid               map[string]mcp.InputResponse
	WantOutcome                    mrtr.Outcome
	Principal, Other, Unauthorized string
	OtherArgs                      any
	Effects                        func() int
	Variants                       []Variant
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
	// Values are the continuation values a steerable fake sets in it (see
	// Arms.Values), applied through Fixtures.Steer.
	Values map[string]uint8
}

// steerValues is the steering of a route whose fake sets values (nil when
// none are chosen: the handler's own choice).
func steerValues(values map[string]uint8) map[string][]uint8 {
	if len(values) == 0 {
		return nil
	}
	return valueSteer(values)
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

// unknownScenario says which scenario fixtures name that the matrix does
// not have ("" when they name none).
func (fx *Fixtures) unknownScenario() string {
	for _, field := range []struct {
		name  string
		names []string
	}{
		{"NotApplicable", slices.Sorted(maps.Keys(fx.NotApplicable))},
		{"Scenarios", slices.Sorted(maps.Keys(fx.Scenarios))},
	} {
		for _, name := range field.names {
			if !slices.Contains(Scenarios, name) {
				return fmt.Sprintf("Fixtures.%s names %q, which is not a scenario (%s)", field.name, name, strings.Join(Scenarios, ", "))
			}
		}
	}
	return ""
}

// forScenario is fx with the override of scenario name applied.
func (fx Fixtures) forScenario(name string) Fixtures {
	o, ok := fx.Scenarios[name]
	if !ok {
		return fx
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&fx.Principal, o.Principal)
	set(&fx.Other, o.Other)
	set(&fx.Unauthorized, o.Unauthorized)
	if o.WantOutcome != "" {
		fx.WantOutcome = o.WantOutcome
	}
	if o.Args != nil {
		fx.Args = o.Args
	}
	if o.OtherArgs != nil {
		fx.OtherArgs = o.OtherArgs
	}
	if o.Effects != nil {
		fx.Effects = o.Effects
	}
	if o.Variants != nil {
		fx.Variants = o.Variants
	}
	fx.Answers = merged(fx.Answers, o.Answers)
	fx.Invalid = merged(fx.Invalid, o.Invalid)
	return fx
}

// merged is a copy of base with over's entries added (nil when both are).
func merged(base, over map[string]mcp.InputResponse) map[string]mcp.InputResponse {
	if over == nil {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]mcp.InputResponse{}
	}
	maps.Copy(out, over)
	return out
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
// fixtures, the test fails and says what is missing. A round that goes
// wrong fails it with the scenario, the round, what was wanted and what
// the handler did.
func RunMatrix[F any](t *testing.T, p mrtr.Program[F], fx Fixtures, opts ...Option) {
	t.Helper()
	runMatrix(testT{t}, p, fx, opts)
}

func runMatrix[F any](t tb, p mrtr.Program[F], fx Fixtures, opts []Option) {
	t.Helper()
	if msg := fx.unknownScenario(); msg != "" {
		t.Fatal(msg)
	}
	fx.defaults()
	taken := &takenAnswers{by: map[string]string{}}
	for _, s := range scenarios[F]() {
		t.sub(s.name, func(t tb) {
			if why, ok := fx.NotApplicable[s.name]; ok {
				notApplicable(t, "%s (Fixtures.NotApplicable)", why)
				return
			}
			scenarioFixtures := fx.forScenario(s.name)
			m := newMatrix(p, &scenarioFixtures, opts)
			m.name, m.taken = s.name, taken
			s.run(m, t)
		})
	}
}

// matrix is one scenario of RunMatrix (or of CheckValidator) on a
// program, with the scenario's fixtures.
type matrix[F any] struct {
	p        mrtr.Program[F]
	d        *mrtrimpl.Descriptor
	g        *graph
	fx       *Fixtures
	opts     []Option
	fixture  route
	variants []route
	// name is the scenario's, part the part of it running ("at send"):
	// failures start with them.
	name, part string
	// taken are the answers workflows had taken, shared by the scenarios
	// of one RunMatrix.
	taken *takenAnswers
}

// newMatrix prepares a run of the matrix (or of CheckValidator) on p: the
// fixture workflow, its variants and the state graph routes are planned
// on.
func newMatrix[F any](p mrtr.Program[F], fx *Fixtures, opts []Option) *matrix[F] {
	fx.defaults()
	d := p.Descriptor()
	m := &matrix[F]{p: p, d: d, g: newGraph(d), fx: fx, opts: opts, taken: &takenAnswers{by: map[string]string{}},
		fixture: route{name: "the fixture workflow", args: fx.Args, answers: fx.Answers, want: fx.WantOutcome, steer: steerValues(fx.Values)}}
	for i, v := range fx.Variants {
		r := route{name: fmt.Sprintf("variant %d (%s)", i+1, v.Name), args: v.Args, want: v.WantOutcome,
			answers: maps.Clone(fx.Answers), steer: steerValues(v.Values)}
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

// at is m running the named part of its scenario.
func (m *matrix[F]) at(part string) *matrix[F] {
	c := *m
	c.part = part
	return &c
}

// where names the scenario (and its part) for a failure.
func (m *matrix[F]) where() string {
	s := fmt.Sprintf("scenario %q", m.name)
	if m.part != "" {
		s += " " + m.part
	}
	return s
}

// fatal fails the scenario with err, naming the scenario, and the route
// when it is not the fixture workflow.
func (m *matrix[F]) fatal(t tb, r *route, err error) {
	t.Helper()
	on := ""
	if r != nil && r.name != m.fixture.name {
		on = " on " + r.name
	}
	t.Fatalf("%s%s, %v", m.where(), on, err)
}

// newHarness is a harness for a new workflow, the handler's data put back
// (Fixtures.Reset).
func (m *matrix[F]) newHarness(t testing.TB) *Harness[F] {
	h := New(t, m.p, m.opts...)
	h.Principal = m.fx.Principal
	m.reset()
	return h
}

func (m *matrix[F]) reset() {
	if m.fx.Reset != nil {
		m.fx.Reset()
	}
}

func (m *matrix[F]) count() int {
	if m.fx.Effects == nil {
		return 0
	}
	return m.fx.Effects()
}

// notApplicable logs why a scenario (or part of one) does not apply.
func notApplicable(t testing.TB, format string, args ...any) {
	t.Helper()
	t.Logf(NotApplicablePrefix+format, args...)
}

func stateNamed(d *mrtrimpl.Descriptor, name string) *mrtrimpl.StateInfo {
	for i := range d.States {
		if d.States[i].Name == name {
			return &d.States[i]
		}
	}
	return nil
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

// requestOwners names the states that ask key, in descriptor order: one,
// or several for a question.
func requestOwners(d *mrtrimpl.Descriptor, key string) []string {
	var out []string
	for i := range d.States {
		for _, q := range d.States[i].Requests {
			if q.Key == key {
				out = append(out, d.States[i].Name)
			}
		}
	}
	return out
}

// requestOwner is the (first) state that asks key, or nil.
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

func keys(m mcp.InputRequestMap) []string {
	return slices.Sorted(maps.Keys(m))
}

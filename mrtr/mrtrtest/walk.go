package mrtrtest

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Walks are how generated tests take every transition of a state table. A
// walk names the states it passes, from the initial one, and puts the
// answer or check outcome that moves it on in parentheses ("next" is left
// out):
//
//	lookup>(refundable)askReason>confirmRefund>(decline)kept
//
// A Walker turns a walk into rounds using the program's descriptor: a round
// ends at every state that asks; the next round answers it as the label
// says (valid answers from the fixtures, a declined or cancelled form, a
// gate confirmed or refused), and checks with outcomes are steered to the
// outcome named. It then checks the states each round runs, what each
// asks, how the workflow ends and how many side effects it performed.

// FakeProgram builds the program under test on a new fake handler whose
// checks take the queued outcomes (per check, numbered from 1 in the order
// of StateInfo.Outcomes), and returns it with the count of the side effects
// the fake performed.
type FakeProgram[F any] func(outcomes map[string][]uint8) (p mrtr.Program[F], effects func() int)

// A Walker plays walks of one program on new fakes, with the arguments and
// answers of fixtures.
type Walker[F any] struct {
	fake FakeProgram[F]
	fx   Fixtures
}

// NewWalker returns a walker of the programs fake builds.
func NewWalker[F any](fake FakeProgram[F], fx Fixtures) *Walker[F] {
	return &Walker[F]{fake: fake, fx: fx}
}

// Walk plays walk, as a subtest named after it, to its end. A walk
// through the arms of value branches gives the data that takes them
// (arms; at most one).
func (w *Walker[F]) Walk(t *testing.T, walk string, arms ...Arms) {
	t.Helper()
	t.Run(walk, func(t *testing.T) {
		w.play(t, w.plan(t, w.descriptor(), walk, arms...))
	})
}

func (w *Walker[F]) descriptor() *mrtrimpl.Descriptor {
	p, _ := w.fake(nil)
	return p.Descriptor()
}

// RejectAt plays walk, which ends at a state that asks, and there sends
// the answers meant for every other state that asks: none may be taken,
// the same question must come again, and no side effect may run but those
// of the walk.
func (w *Walker[F]) RejectAt(t *testing.T, walk string, arms ...Arms) {
	t.Helper()
	w.playAt(t, walk, "answers to other states", w.rejectPlan, arms)
}

// playAt plays the plan made for walk as the subtest "at STATE: what",
// STATE being where the walk ends.
func (w *Walker[F]) playAt(t *testing.T, walk, what string, plan func(*testing.T, *mrtrimpl.Descriptor, string, ...Arms) plan, arms []Arms) {
	t.Helper()
	t.Run("at "+lastState(walk)+": "+what, func(t *testing.T) {
		w.play(t, plan(t, w.descriptor(), walk, arms...))
	})
}

func (w *Walker[F]) rejectPlan(t *testing.T, d *mrtrimpl.Descriptor, walk string, arms ...Arms) plan {
	t.Helper()
	pl, s := w.planTo(t, d, walk, arms...)
	if !interactive(s) {
		t.Fatalf("walk %q ends at %s, which asks nothing", walk, s.Name)
	}
	others := mcp.InputResponseMap{}
	for i := range d.States {
		if o := &d.States[i]; o.Name != s.Name && interactive(o) {
			maps.Copy(others, w.answers(t, o, "", pl.answers))
		}
	}
	for _, key := range askKeys(s) {
		delete(others, key) // a question s asks too is not another state's
	}
	if len(others) == 0 {
		others["unrelated_key"] = Accept(map[string]any{"unrelated": true})
	}
	pl.rounds = append(pl.rounds, ScriptRound{Send: others, Path: s.Name, Asks: askKeys(s)})
	return pl
}

// ConfirmEarly plays walk, which ends at a confirmation gate, sending the
// gate's confirmation along with the answers that lead there: a
// confirmation the user has not been shown may not be taken.
func (w *Walker[F]) ConfirmEarly(t *testing.T, walk string, arms ...Arms) {
	t.Helper()
	w.playAt(t, walk, "confirmation before the gate was shown", w.confirmEarlyPlan, arms)
}

func (w *Walker[F]) confirmEarlyPlan(t *testing.T, d *mrtrimpl.Descriptor, walk string, arms ...Arms) plan {
	t.Helper()
	pl, s := w.planTo(t, d, walk, arms...)
	if s.Kind != vocab.StateConfirm {
		t.Fatalf("walk %q ends at %s, which is not a confirmation gate", walk, s.Name)
	}
	last := &pl.rounds[len(pl.rounds)-1]
	send := maps.Clone(last.Send)
	if send == nil {
		send = mcp.InputResponseMap{}
	}
	maps.Copy(send, w.answers(t, s, "", pl.answers))
	last.Send = send
	return pl
}

// A plan is a walk turned into a script.
type plan struct {
	walk     string
	outcomes map[string][]uint8
	rounds   []ScriptRound
	want     mrtr.Outcome
	effects  int
	// args and answers are the fixtures' with the walk's arms.
	args    any
	answers map[string]mcp.InputResponse
}

// planTo is plan, and the state the walk ends at.
func (w *Walker[F]) planTo(t *testing.T, d *mrtrimpl.Descriptor, walk string, arms ...Arms) (plan, *mrtrimpl.StateInfo) {
	t.Helper()
	return w.plan(t, d, walk, arms...), stateNamed(d, lastState(walk))
}

// plan turns a walk into its rounds. A walk that ends at a state that
// asks ends with that question.
func (w *Walker[F]) plan(t *testing.T, d *mrtrimpl.Descriptor, walk string, arms ...Arms) plan {
	t.Helper()
	if len(arms) > 1 {
		t.Fatalf("walk %q: give at most one Arms", walk)
	}
	var a Arms
	if len(arms) == 1 {
		a = arms[0]
	}
	names, labels := parseWalk(t, walk)
	states := walkStates(t, d, walk, names)
	p := &planner[F]{
		w: w, t: t, walk: walk,
		pl:      plan{walk: walk, outcomes: valueSteer(a.Values), args: a.withArgs(t, w.fx.Args), answers: a.withAnswers(t, w.fx.Answers)},
		seen:    map[string]bool{},
		steered: steeredChecks(d),
	}
	for i, s := range states {
		p.enter(s)
		if i == len(states)-1 {
			if interactive(s) {
				p.cur.Asks = askKeys(s)
			}
			break
		}
		on := labels[i+1]
		edge, ok := transition(d, s.Name, names[i+1], on)
		if !ok {
			t.Fatalf("walk %q: the state table has no transition %s -(%s)-> %s", walk, s.Name, on, names[i+1])
		}
		p.leave(s, on, edge)
	}
	p.pl.rounds = append(p.pl.rounds, p.cur)
	return p.pl
}

// parseWalk splits a walk into the names of its states and the labels
// that move it on: labels[i] moves from names[i-1] to names[i] ("" where
// the walk gives none).
func parseWalk(t *testing.T, walk string) (names, labels []string) {
	t.Helper()
	hops := strings.Split(walk, ">")
	names = make([]string, len(hops))
	labels = make([]string, len(hops))
	for i, h := range hops {
		if rest, ok := strings.CutPrefix(h, "("); ok && i > 0 {
			label, name, ok := strings.Cut(rest, ")")
			if !ok || label == "" {
				t.Fatalf("walk %q: %q is not (label)state", walk, h)
			}
			labels[i], names[i] = label, name
			continue
		}
		names[i] = h
	}
	return names, labels
}

// walkStates are the states a walk names, which start at the initial one.
func walkStates(t *testing.T, d *mrtrimpl.Descriptor, walk string, names []string) []*mrtrimpl.StateInfo {
	t.Helper()
	states := make([]*mrtrimpl.StateInfo, len(names))
	for i, name := range names {
		if states[i] = stateNamed(d, name); states[i] == nil {
			t.Fatalf("walk %q: %s has no state %q", walk, d.Name, name)
		}
	}
	if states[0] != d.State(d.Initial) {
		t.Fatalf("walk %q does not start at the initial state %s", walk, d.State(d.Initial).Name)
	}
	return states
}

// A planner is plan on its way along a walk: the plan so far and the
// round being built.
type planner[F any] struct {
	w    *Walker[F]
	t    *testing.T
	walk string
	pl   plan
	cur  ScriptRound
	// seen are the effects met so far; true for one that runs once per
	// workflow.
	seen    map[string]bool
	reasked bool // the walk came back to an ask by a check's askAgain edge
	steered map[string]bool
}

// enter adds state s to the round being built: its path, its effect, its
// end, and what it explains when the walk came back to it.
func (p *planner[F]) enter(s *mrtrimpl.StateInfo) {
	if p.cur.Path != "" {
		p.cur.Path += PathSeparator
	}
	p.cur.Path += s.Name
	if s.Kind == vocab.StateEffect && !p.seen[s.Name] {
		// An effect with an operation id of its own runs once per
		// workflow (later visits replay it); one with the
		// workflow's own id runs on every visit.
		p.pl.effects++
		p.seen[s.Name] = s.OperationID != ""
	}
	if s.Kind == vocab.StateTerminal {
		p.pl.want = s.End
	}
	if interactive(s) && p.reasked {
		p.cur.Explains = explains(s)
	}
}

// leave moves the walk on from state s by label on along edge: it queues
// the check outcome that takes it, and a state that asks ends the round.
func (p *planner[F]) leave(s *mrtrimpl.StateInfo, on string, edge vocab.Edge) {
	p.t.Helper()
	p.reasked = edge == vocab.AskAgain
	if s.Kind == vocab.StateCheck && p.steered[s.Check] {
		// Every call of such a check takes an entry of its queue, in
		// any of its states: an outcome (1 for a check without
		// outcomes), or a refusal.
		out := uint8(1)
		switch {
		case edge == vocab.AskAgain || edge == vocab.Exhausted:
			out = AskAgainOutcome
		case len(s.Outcomes) > 0:
			out = uint8(slices.Index(s.Outcomes, on) + 1)
		}
		p.pl.outcomes[s.Check] = append(p.pl.outcomes[s.Check], out)
	}
	if s.Kind == vocab.StateAsk && (on == "decline" || on == "cancel") &&
		!slices.ContainsFunc(s.Requests, func(q mrtrimpl.RequestInfo) bool { return q.Kind.Elicitation() }) {
		p.t.Fatalf("walk %q: %s asks no form, so it cannot be left with %s", p.walk, s.Name, on)
	}
	if !interactive(s) {
		return
	}
	p.endRound(s, on)
	if s.Kind == vocab.StateAsk && edge == vocab.Exhausted {
		// The ask's validators with context refuse every answer
		// (each call takes a refusal from its queue): the first
		// maxAttempts-1 rounds ask again, the last leaves.
		for range s.MaxAttempts {
			for _, v := range s.FlowValidators {
				p.pl.outcomes[FlowRefusal(v)] = append(p.pl.outcomes[FlowRefusal(v)], AskAgainOutcome)
			}
		}
		for range s.MaxAttempts - 1 {
			p.endRound(s, on)
		}
	}
}

// endRound ends the round being built at s, which asks, and starts the
// next with the answers that leave s by label on.
func (p *planner[F]) endRound(s *mrtrimpl.StateInfo, on string) {
	p.t.Helper()
	p.cur.Asks = askKeys(s)
	p.pl.rounds = append(p.pl.rounds, p.cur)
	p.cur = ScriptRound{Path: s.Name, Send: p.w.answers(p.t, s, on, p.pl.answers)}
	if s.Approval {
		// The approval, not the answer, decides the gate: it is approved,
		// declined or left to expire before the round goes on (a cancel
		// withdraws it by the answer alone).
		p.cur.Approval = settling(on)
	}
}

// steeredChecks are the checks whose fake takes every call's result from
// its queue: those with outcomes, and those that ask again in some state.
func steeredChecks(d *mrtrimpl.Descriptor) map[string]bool {
	out := map[string]bool{}
	for _, s := range d.States {
		if s.Kind == vocab.StateCheck && (len(s.Outcomes) > 0 || s.AskAgain != "") {
			out[s.Check] = true
		}
	}
	return out
}

// explains is what the questions of state s must show when a check sent
// the walk back to it: the fake's refusal, on every request with text.
func explains(s *mrtrimpl.StateInfo) map[string]string {
	out := map[string]string{}
	for _, q := range s.Requests {
		if q.Kind != vocab.Roots {
			out[q.Key] = FakeAskAgainMessage
		}
	}
	return out
}

// play runs a plan on a new fake.
func (w *Walker[F]) play(t *testing.T, pl plan) {
	t.Helper()
	p, effects := w.fake(pl.outcomes)
	RunScript(t, New(t, p), Script{Args: pl.args, Rounds: pl.rounds, Want: pl.want})
	if got := effects(); got != pl.effects {
		t.Fatalf("walk %q performed %d side effects, want %d", pl.walk, got, pl.effects)
	}
}

// answers are what a round sends to state s to leave it on the edge
// labelled on: a gate confirmed ("" — next), refused (decline) or
// cancelled; the forms of an ask declined or cancelled, its other requests
// (and every request, for next) answered with the fixtures' valid answers.
func (w *Walker[F]) answers(t *testing.T, s *mrtrimpl.StateInfo, on string, valid map[string]mcp.InputResponse) mcp.InputResponseMap {
	t.Helper()
	out := mcp.InputResponseMap{}
	for _, q := range s.Requests {
		switch {
		case q.GateField != "" && on == "cancel":
			out[q.Key] = Cancel()
		case q.GateField != "":
			out[q.Key] = Accept(map[string]any{q.GateField: on != "decline"})
		case q.Kind.Elicitation() && on == "decline":
			out[q.Key] = Decline()
		case q.Kind.Elicitation() && on == "cancel":
			out[q.Key] = Cancel()
		default:
			a, ok := valid[q.Key]
			if !ok {
				t.Fatalf("state %s asks for %q, but the fixtures have no answer for it", s.Name, q.Key)
			}
			out[q.Key] = a
		}
	}
	return out
}

func interactive(s *mrtrimpl.StateInfo) bool {
	return s.Kind == vocab.StateAsk || s.Kind == vocab.StateConfirm
}

// askKeys are the request keys a state asks for, sorted.
func askKeys(s *mrtrimpl.StateInfo) []string {
	var keys []string
	for _, q := range s.Requests {
		keys = append(keys, q.Key)
	}
	slices.Sort(keys)
	return keys
}

// transition finds the edge from state from to state to that a walk
// labels label (as vocab.Edge.Label shows it; "" for next).
func transition(d *mrtrimpl.Descriptor, from, to, label string) (vocab.Edge, bool) {
	for _, tr := range d.Transitions {
		f, t := d.State(tr.From), d.State(tr.To)
		if f == nil || t == nil || f.Name != from || t.Name != to {
			continue
		}
		if (label == "" && tr.On == vocab.Next) || (label != "" && tr.On != vocab.Next && tr.On.Label() == label) {
			return tr.On, true
		}
	}
	return "", false
}

// lastState is the state a walk ends at.
func lastState(walk string) string {
	last := walk[strings.LastIndex(walk, ">")+1:]
	if _, name, ok := strings.Cut(last, ")"); ok {
		return name
	}
	return last
}

package mrtrtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/problem"
)

// How the matrix drives a workflow: round by round along a route,
// answering every question from the fixtures, and how it finds, among the
// routes it may take, one that reaches what a scenario needs.

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
			return nil, fmt.Errorf("it asked for %q, which the descriptor of %s does not declare", key, d.Name)
		case q.GateField != "" && leave == "cancel":
			out[key] = Cancel()
		case q.GateField != "" && leave == "decline":
			out[key] = gateAnswer(q, reply.InputRequests[key], false)
		case q.Kind.Elicitation() && leave == "decline":
			out[key] = Decline()
		case q.Kind.Elicitation() && leave == "cancel":
			out[key] = Cancel()
		default:
			if a, ok := r.answers[key]; ok {
				out[key] = a
			} else if q.GateField != "" {
				out[key] = gateAnswer(q, reply.InputRequests[key], true)
			} else {
				return nil, fmt.Errorf("it asked for %q, but the fixtures have no answer for it (Fixtures.Answers)", key)
			}
		}
	}
	return out, nil
}

// checkRequests says what is wrong with the questions of an
// input_required reply ("" when nothing is): each must be declared, and
// all of one state.
func checkRequests(d *mrtrimpl.Descriptor, reply *mrtr.Reply) string {
	if !reply.NeedsInput() {
		return ""
	}
	if reply.RequestState == "" || len(reply.InputRequests) == 0 {
		return fmt.Sprintf("it asked for input with %d requests and requestState %q", len(reply.InputRequests), reply.RequestState)
	}
	// A question (a key several states ask) belongs to each of them: the
	// round's keys must all be one state's.
	var owner string
	var common []string // the states asking every key so far
	for i, key := range keys(reply.InputRequests) {
		askers := requestOwners(d, key)
		if len(askers) == 0 {
			return fmt.Sprintf("it asked for %q, which the descriptor of %s does not declare", key, d.Name)
		}
		if i == 0 {
			common, owner = askers, askers[0]
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(common), func(n string) bool { return !slices.Contains(askers, n) })
		if len(kept) == 0 {
			return fmt.Sprintf("it asked for the requests of two states (%s and %s) in one round", owner, askers[0])
		}
		common, owner = kept, kept[0]
	}
	return ""
}

// drive runs route r on h, answering every request, and returns each
// request with its reply. before, when set, ends the drive before sending
// the request it returns true for; after ends it after the reply of a
// round that asks. An error is a *roundError.
func (m *matrix[F]) drive(h *Harness[F], r *route, before func(i int, s step) bool, after func([]step) bool) ([]step, error) {
	if m.fx.Steer != nil {
		m.fx.Steer(r.steer)
	}
	var steps []step
	s := step{}
	limit := h.maxRounds()
	for i := range limit {
		if before != nil && before(i, s) {
			return steps, nil
		}
		reply, err := h.Call(context.Background(), r.args, s.state, s.responses)
		if err != nil {
			return steps, &roundError{round: i + 1, want: "the workflow to go on", did: callFailed(err)}
		}
		s.reply = reply
		steps = append(steps, s)
		if msg := checkRequests(m.d, reply); msg != "" {
			return steps, &roundError{round: i + 1, want: "the questions of one state its descriptor declares", did: msg}
		}
		if refused := refusedAnswers(s); refused != nil {
			return steps, m.refusedError(i+1, refused, s.responses)
		}
		m.took(s)
		if !reply.NeedsInput() || (after != nil && after(steps)) {
			return steps, nil
		}
		responses, err := respondOn(h, m.d, r, reply, r.leaveAt(i))
		if err != nil {
			return steps, &roundError{round: i + 1, want: "questions the fixtures can answer", did: err.Error()}
		}
		s = step{state: reply.RequestState, responses: responses}
	}
	var prev *mrtr.Reply
	if len(steps) > 1 {
		prev = steps[len(steps)-2].reply
	}
	return steps, roundLimit(limit, steps[len(steps)-1].reply, prev, nil, h.Principal, "")
}

// refusedAnswers are the questions a round asks again because validation
// refused the answers it sent to them (nil when there are none).
func refusedAnswers(s step) mcp.InputRequestMap {
	var out mcp.InputRequestMap
	for key := range s.responses {
		if q, ok := s.reply.InputRequests[key].(*mcp.ElicitParams); ok && strings.Contains(q.Message, problem.CorrectPrefix) {
			if out == nil {
				out = mcp.InputRequestMap{}
			}
			out[key] = q
		}
	}
	return out
}

// takenAnswers remember, per request key and answer, where a workflow
// first had that answer taken: a valid answer refused in a later workflow
// was refused because an earlier one changed the handler's world (deleted
// the option it picks). The scenarios of one RunMatrix share them.
type takenAnswers struct {
	mu sync.Mutex
	by map[string]string // key NUL answer → the scenario that took it
}

func takenKey(key string, answer mcp.InputResponse) string {
	return key + "\x00" + responseText(answer)
}

// took records the answers of a round that validation took.
func (m *matrix[F]) took(s step) {
	m.taken.mu.Lock()
	defer m.taken.mu.Unlock()
	for key, answer := range s.responses {
		k := takenKey(key, answer)
		if _, ok := m.taken.by[k]; !ok {
			m.taken.by[k] = m.where()
		}
	}
}

// takenBefore says where a workflow took one of the answers sent to the
// refused questions ("" when none was taken before).
func (m *matrix[F]) takenBefore(refused mcp.InputRequestMap, sent mcp.InputResponseMap) string {
	m.taken.mu.Lock()
	defer m.taken.mu.Unlock()
	for _, key := range keys(refused) {
		if where, ok := m.taken.by[takenKey(key, sent[key])]; ok {
			return where
		}
	}
	return ""
}

// refusedError is a round whose questions came again because validation
// refused the answers sent to them: the fixtures' answers are invalid, or,
// when an earlier workflow took them, that workflow changed what the
// handler accepts.
func (m *matrix[F]) refusedError(round int, refused mcp.InputRequestMap, sent mcp.InputResponseMap) *roundError {
	e := &roundError{round: round, want: "the answers of the fixtures taken", did: "it asked again for " + questions(refused), refused: refused}
	where := m.takenBefore(refused, sent)
	switch {
	case where == "":
		e.hint = "The answers in Fixtures.Answers (or the variant's) must be valid: what follows \"" + strings.TrimSuffix(problem.CorrectPrefix, " ") + "\" says what validation refused"
	case m.fx.Reset == nil:
		e.hint = fmt.Sprintf("A workflow of %s took the same answer: what an earlier workflow's effects changed (an option it removed, a record it deleted) makes the handler refuse it now. "+
			"Give Fixtures.Reset, which puts the handler's data back as the fixtures expect it: the matrix calls it before every workflow it starts", where)
	default:
		e.hint = fmt.Sprintf("A workflow of %s took the same answer, and Fixtures.Reset ran before this one: Reset must put back what the earlier workflows changed (an option one removed), or the handler refuses an answer it took before", where)
	}
	return e
}

// leaveAt is how the route leaves the state that asked in round i+1.
func (r *route) leaveAt(i int) string {
	if i < len(r.leave) {
		return r.leave[i]
	}
	return ""
}

// routes are the fixture workflow and the variants.
func (m *matrix[F]) routes() []route {
	return append([]route{m.fixture}, m.variants...)
}

// candidates are the routes that may reach what a scenario needs: the
// fixture workflow, the variants, and, when the handler can be steered,
// the route through via computed from the state table.
func (m *matrix[F]) candidates(via ...string) []route {
	out := m.routes()
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
func (m *matrix[F]) find(t tb, need string, cands []route, before func(int, step) bool, after func([]step) bool, ok func(r *route, steps []step) bool) (*route, *Harness[F], []step) {
	t.Helper()
	r, h, steps, tried := m.search(t, cands, before, after, ok)
	if r != nil {
		return r, h, steps
	}
	m.notReached(t, need, tried)
	return nil, nil, nil
}

// notReached fails the scenario, which no candidate reached: it needs
// need, and says what each attempt did.
func (m *matrix[F]) notReached(t tb, need string, tried []attempt) {
	t.Helper()
	hint := "Add a Fixtures.Variants entry that takes that branch (other arguments or answers)"
	if m.fx.Steer == nil {
		hint += ", or Fixtures.Steer to steer the handler's checks"
	}
	for _, tr := range tried {
		if re, ok := errors.AsType[*roundError](tr.err); ok && (re.limit || re.refused != nil) {
			hint = "" // what stopped it says what to change
			break
		}
	}
	msg := fmt.Sprintf("%s applies to %s, but no workflow of the fixtures reaches it: it needs %s; tried %s",
		m.where(), m.d.Name, need, triedText(tried))
	if hint != "" {
		msg += ". " + hint
	}
	t.Fatal(msg)
}

// attempt is a candidate route search drove, and how it went.
type attempt struct {
	name  string
	want  mrtr.Outcome
	steps []step
	err   error
}

// endedAsItShould reports whether the attempt's workflow ended with the
// outcome its route wants.
func (a attempt) endedAsItShould() bool {
	if a.err != nil || len(a.steps) == 0 {
		return false
	}
	end := a.steps[len(a.steps)-1].reply
	return !end.NeedsInput() && end.Final.Outcome == a.want
}

// search drives each candidate on a new harness until ok accepts its
// steps; without one, it returns what each did.
func (m *matrix[F]) search(t tb, cands []route, before func(int, step) bool, after func([]step) bool, ok func(r *route, steps []step) bool) (*route, *Harness[F], []step, []attempt) {
	t.Helper()
	var tried []attempt
	for i := range cands {
		r := &cands[i]
		h := m.newHarness(t)
		steps, err := m.drive(h, r, before, after)
		if err == nil && ok(r, steps) {
			if i > 0 {
				t.Logf("runs on %s", r.name)
			}
			return r, h, steps, nil
		}
		tried = append(tried, attempt{r.name, r.want, steps, err})
	}
	return nil, nil, nil, tried
}

// triedText says what each attempt did.
func triedText(tried []attempt) string {
	var out []string
	for _, a := range tried {
		out = append(out, a.name+" ("+describe(a.steps, a.err)+")")
	}
	return strings.Join(out, "; ")
}

// describe says what a driven workflow did, round by round (of a long
// one, the first two rounds and the last two).
func describe(steps []step, err error) string {
	var rounds []string
	for i, s := range steps {
		if len(steps) > 5 && i >= 2 && i < len(steps)-2 {
			if i == 2 {
				rounds = append(rounds, fmt.Sprintf("… rounds 3 to %d …", len(steps)-2))
			}
			continue
		}
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

// outcomeOf says briefly how a reply ended: its outcome and text, or what
// it asks.
func outcomeOf(r *mrtr.Reply) string {
	if r.NeedsInput() {
		return fmt.Sprintf("asks for %v", keys(r.InputRequests))
	}
	return fmt.Sprintf("%s: %q", r.Final.Outcome, r.Final.Text)
}

// asks reports whether the program can ask at all, logging why not.
func (m *matrix[F]) asks(t tb, consequence string) bool {
	t.Helper()
	if len(m.g.interactiveStates()) == 0 {
		notApplicable(t, "%s asks for nothing on any path (it has no reachable ask or confirm state), so %s", m.d.Name, consequence)
		return false
	}
	return true
}

// firstAsk finds a workflow whose first round asks, and returns it with
// the harness that ran it, the first reply and the answers to it.
func (m *matrix[F]) firstAsk(t tb) (*route, *Harness[F], *mrtr.Reply, mcp.InputResponseMap) {
	t.Helper()
	var via []string
	if p, ok := m.g.shortest(m.g.initial(), func(name string) bool { return stateNamed(m.d, name).Kind.Interactive() }); ok && len(p) > 0 {
		via = []string{p[len(p)-1].to}
	} else if ok {
		via = []string{m.g.initial()}
	}
	need := fmt.Sprintf("a workflow that asks for input (states that ask: %s)", strings.Join(stateNames(m.g.interactiveStates()), ", "))
	r, h, steps := m.find(t, need, m.candidates(via...), nil,
		func([]step) bool { return true },
		func(_ *route, steps []step) bool { return steps[0].reply.NeedsInput() })
	first := steps[0].reply
	responses, err := respondOn(h, m.d, r, first, r.leaveAt(0))
	if err != nil {
		m.fatal(t, r, &roundError{round: 1, want: "questions the fixtures can answer", did: err.Error()})
	}
	return r, h, first, responses
}

// wantEnd fails the scenario unless reply, of the given round of r, ends
// the workflow as r should.
func (m *matrix[F]) wantEnd(t tb, r *route, round int, reply *mrtr.Reply, principal string) {
	t.Helper()
	if reply.NeedsInput() || reply.Final.Outcome != r.want {
		m.fatal(t, r, &roundError{round: round, want: "the workflow to end " + string(r.want), did: did(reply, nil, principal),
			hint: authorizeHint(reply, "Fixtures.Principal", principal, r.args)})
	}
	if msg := structuredProblem(m.d, reply); msg != "" {
		m.fatal(t, r, &roundError{round: round, want: "a structured result that conforms to the outputSchema", did: msg})
	}
}

// authorizeHint is, for a reply Authorize refused, what the fixtures must
// change: field names the principal the scenario needs authorized with
// args.
func authorizeHint(reply *mrtr.Reply, field, principal string, args any) string {
	if reply == nil || reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeUnauthorized {
		return ""
	}
	return fmt.Sprintf("The scenario needs %s (%s) authorized with the arguments %s: give it a caller and arguments Authorize allows (for this scenario only: Fixtures.Scenarios)",
		field, caller(principal), jsonText(args))
}

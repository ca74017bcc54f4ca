package mrtrtest

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// The matrix decides from the descriptor which scenarios apply to a
// program (a program that never asks issues no requestState; one without
// effects has no effect to repeat), and finds for each scenario a workflow
// that reaches it: the fixture workflow, a variant the team gave, or, when
// the handler can be steered (Fixtures.Steer, as the generated fake can),
// a route computed from the state table whose check outcomes it steers.

// route is one way through a workflow the matrix can drive.
type route struct {
	name    string
	args    any
	answers map[string]mcp.InputResponse
	want    mrtr.Outcome
	// steer are the check outcomes handed to Fixtures.Steer before the
	// first round (nil: the handler's own); steered routes only.
	steer map[string][]uint8
	// leave says, for the n-th round that answers, how the state that
	// asked is left: "" (answered, or a gate confirmed), "decline" or
	// "cancel". Past its end, "".
	leave []string
}

// edge is a transition by state name.
type edge struct {
	from, to string
	on       vocab.Edge
}

// graph is the state table of a descriptor (states numbered from 0 in
// descriptor order: state number n of the descriptor is n-1 here).
type graph struct {
	d *mrtrimpl.Descriptor
	*machine.Graph
}

func newGraph(d *mrtrimpl.Descriptor) *graph {
	return &graph{d: d, Graph: d.Graph()}
}

func (g *graph) initial() string {
	if i := g.Initial(); i >= 0 {
		return g.Name(i)
	}
	return ""
}

// takeable reports whether a test can make the machine take e: declining
// or cancelling an ask needs a form to decline.
func (g *graph) takeable(e machine.Edge) bool {
	if e.On == vocab.AskAgain || e.On == vocab.Exhausted {
		return false // a refused answer, which a route of valid answers never gives
	}
	s := &g.d.States[e.From]
	if s.Kind == vocab.StateAsk && e.On.Leaves() {
		return slices.ContainsFunc(s.Requests, func(q mrtrimpl.RequestInfo) bool { return q.Kind.Elicitation() })
	}
	return true
}

// shortest is the shortest list of takeable edges from a state to one done
// accepts, preferring paths that answer and confirm over ones that decline
// or cancel.
func (g *graph) shortest(from string, done func(string) bool) ([]edge, bool) {
	i, ok := g.Index(from)
	if !ok {
		return nil, done(from)
	}
	at := func(j int) bool { return done(g.Name(j)) }
	p, ok := g.Path(i, at, func(e machine.Edge) bool { return g.takeable(e) && !e.On.Leaves() })
	if !ok {
		p, ok = g.Path(i, at, g.takeable)
	}
	if !ok {
		return nil, false
	}
	out := make([]edge, len(p))
	for k, e := range p {
		out[k] = edge{from: g.Name(e.From), to: g.Name(e.To), on: e.On}
	}
	return out, true
}

// reaches reports whether to can be reached from from.
func (g *graph) reaches(from, to string) bool {
	_, ok := g.shortest(from, func(s string) bool { return s == to })
	return ok
}

// reachable lists the states reachable from the initial one that ok
// accepts, in descriptor order.
func (g *graph) reachable(ok func(*mrtrimpl.StateInfo) bool) []*mrtrimpl.StateInfo {
	var out []*mrtrimpl.StateInfo
	for i := range g.d.States {
		s := &g.d.States[i]
		if ok(s) && g.reaches(g.initial(), s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// interactiveStates are the reachable states that ask.
func (g *graph) interactiveStates() []*mrtrimpl.StateInfo {
	return g.reachable(func(s *mrtrimpl.StateInfo) bool { return s.Kind.Interactive() })
}

// effectStates are the reachable effects.
func (g *graph) effectStates() []*mrtrimpl.StateInfo {
	return g.reachable(func(s *mrtrimpl.StateInfo) bool { return s.Kind == vocab.StateEffect })
}

// askerBefore is a reachable state that asks from which effect can be
// reached, so that the effect can run in a round that continues a
// requestState ("" when the effect only ever runs in a first round).
func (g *graph) askerBefore(effect string) string {
	best, bestLen := "", 1<<30
	for _, s := range g.interactiveStates() {
		head, ok1 := g.shortest(g.initial(), func(x string) bool { return x == s.Name })
		tail, ok2 := g.shortest(s.Name, func(x string) bool { return x == effect })
		if ok1 && ok2 && len(head)+len(tail) < bestLen {
			best, bestLen = s.Name, len(head)+len(tail)
		}
	}
	return best
}

// plan is the route from the initial state through each of via, in order,
// to an end (a successful one when there is one), or false when there is
// none. Its check outcomes are steered.
func (g *graph) plan(fx *Fixtures, via ...string) (route, bool) {
	var path []edge
	cur := g.initial()
	for _, v := range via {
		p, ok := g.shortest(cur, func(s string) bool { return s == v })
		if !ok {
			return route{}, false
		}
		path, cur = append(path, p...), v
	}
	terminal := func(success bool) func(string) bool {
		return func(name string) bool {
			s := stateNamed(g.d, name)
			return s != nil && s.Kind == vocab.StateTerminal && (!success || s.End == mrtr.OutcomeSuccess)
		}
	}
	tail, ok := g.shortest(cur, terminal(true))
	if !ok {
		if tail, ok = g.shortest(cur, terminal(false)); !ok {
			return route{}, false
		}
	}
	path = append(path, tail...)
	r := route{args: fx.Args, answers: fx.Answers, steer: valueSteer(fx.Values)}
	var name strings.Builder
	name.WriteString(g.initial())
	for _, e := range path {
		s := stateNamed(g.d, e.from)
		name.WriteString(">")
		label := e.on.Label()
		if e.on != vocab.Next {
			name.WriteString("(" + label + ")")
		}
		name.WriteString(e.to)
		switch {
		case s.Kind == vocab.StateCheck && len(s.Outcomes) > 0:
			r.steer[s.Check] = append(r.steer[s.Check], uint8(slices.Index(s.Outcomes, label)+1))
		case s.Kind.Interactive():
			leave := ""
			if e.on.Leaves() {
				leave = string(e.on)
			}
			r.leave = append(r.leave, leave)
		}
	}
	r.name = name.String()
	end := cur
	if len(path) > 0 {
		end = path[len(path)-1].to
	}
	r.want = stateNamed(g.d, end).End
	return r, true
}

// hasArguments reports whether a program takes arguments a requestState is
// bound to (the "inputs" argument of non-interactive tools is not one).
func hasArguments(d *mrtrimpl.Descriptor) bool {
	if d.Kind == vocab.KindPrompt {
		return len(d.PromptArguments) > 0
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
		return true // the matrix then asks for OtherArgs rather than guess
	}
	for name := range schema.Properties {
		if !(d.NonInteractive && name == "inputs") {
			return true
		}
	}
	return false
}

// stepStates are the reachable checks and effects: what a broken
// dependency can fail.
func (g *graph) stepStates() []*mrtrimpl.StateInfo {
	return g.reachable(func(s *mrtrimpl.StateInfo) bool { return s.Kind == vocab.StateCheck || s.Kind == vocab.StateEffect })
}

func stateNames(states []*mrtrimpl.StateInfo) []string {
	var out []string
	for _, s := range states {
		out = append(out, s.Name)
	}
	return out
}

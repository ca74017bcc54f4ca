package lint

import (
	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Graph questions the rules ask about one workflow's state machine.
//
// A workflow can have thousands of states, and several rules ask about
// every state or pair of states, so the graph (machine.Graph, states
// numbered in t.States order) is built once per workflow, and reachability
// from each state is computed at most once, as a bit set. Every question is
// then at most one breadth-first walk (O(states + edges)), and the rules
// stay within O(states × (states + edges)) per workflow.

// bitset is a set of state indices.
type bitset = machine.Set

func newBitset(n int) bitset { return machine.NewSet(n) }

// graph is one workflow's state machine, indexed, with the spec's states.
// Rules about consent and answers must tell a gate's or ask's accept edge
// (next) from its decline and cancel edges, where nothing was agreed or
// answered: Out gives each edge's kind.
type graph struct {
	*machine.Graph
	t      *spec.Tool
	states []*spec.State
}

func newGraph(t *spec.Tool) *graph {
	return &graph{Graph: t.Graph(), t: t, states: t.States}
}

// graph returns the (cached) graph of a workflow.
func (c *checker) graph(t *spec.Tool) *graph {
	if g, ok := c.graphs[t]; ok {
		return g
	}
	g := newGraph(t)
	c.graphs[t] = g
	return g
}

// reachFrom returns the states reachable from state i, i included.
func (g *graph) reachFrom(i int) bitset { return g.Reach(i) }

// reachable returns the states reachable from the initial state.
func (g *graph) reachable() bitset { return g.Reachable() }

// after returns the states reachable from i's successors (not i itself,
// unless a cycle leads back to it).
func (g *graph) after(i int) bitset { return g.afterAll(g.targets(g.Out(i))) }

// afterNext is after for the successor by i's next edge only: for an ask
// or a gate, what can follow once it was answered or accepted.
func (g *graph) afterNext(i int) bitset { return g.afterAll(g.nextOf(i)) }

// handlerAfterNext reports whether a check or an effect can follow state
// i by its next edge: whether a handler can read what i was answered.
func (g *graph) handlerAfterNext(i int) bool {
	found := false
	g.afterNext(i).Each(func(j int) bool {
		found = isKind(vocab.StateCheck, vocab.StateEffect)(g.states[j])
		return !found
	})
	return found
}

func (g *graph) afterAll(starts []int) bitset {
	out := newBitset(len(g.states))
	for _, j := range starts {
		out.Or(g.reachFrom(j))
	}
	return out
}

// targets are the states edges lead to.
func (g *graph) targets(es []machine.Edge) []int {
	out := make([]int, len(es))
	for k, e := range es {
		out[k] = e.To
	}
	return out
}

// nextOf returns the successor of i by its next edge (none or one).
func (g *graph) nextOf(i int) []int {
	if e, ok := g.NextOf(i); ok {
		return []int{e.To}
	}
	return nil
}

// reachedAvoiding returns the states a walk from from's successors arrives
// at when it never goes on from a state for which avoid is true: such
// states are arrived at, but not passed through.
func (g *graph) reachedAvoiding(from int, avoid func(*spec.State) bool) bitset {
	return g.arrivedAvoiding(g.targets(g.Out(from)), avoid)
}

// arrivedAvoiding is reachedAvoiding from the given start states.
func (g *graph) arrivedAvoiding(starts []int, avoid func(*spec.State) bool) bitset {
	return g.Spread(starts, func(e machine.Edge) bool { return !avoid(g.states[e.From]) })
}

// pathAvoiding returns the states that can be arrived at from the initial
// state through states none of which satisfies avoid (the state arrived at
// itself may satisfy it). The initial state is in the set.
func (g *graph) pathAvoiding(avoid func(*spec.State) bool) bitset {
	if g.Initial() < 0 {
		return newBitset(len(g.states))
	}
	return g.arrivedAvoiding([]int{g.Initial()}, avoid)
}

// reachCutting returns the states reachable from the initial state, the
// initial state included, by walks that never take an edge for which cut
// is true (from is the state the edge leaves, on its kind as in spec.Edge).
func (g *graph) reachCutting(cut func(from *spec.State, on vocab.Edge) bool) bitset {
	if g.Initial() < 0 {
		return newBitset(len(g.states))
	}
	return g.Spread([]int{g.Initial()}, func(e machine.Edge) bool { return !cut(g.states[e.From], e.On) })
}

// must is a must-analysis over the state machine: for every state, the
// facts (bits of n) that hold on entry on every path from the initial
// state to it, the intersection over its incoming edges, computed to a
// fixed point with a worklist. out gives the facts after edge e's state,
// entered with in, is left by e. The initial state is entered with
// none, whatever loops back to it (the first call starts from nothing).
// States no walk reaches get nil. Each state's set only shrinks, so the
// work is bounded by states × n × edges / 64. answer-not-given and
// value-not-set ask it which answers and which continuation values exist.
func (g *graph) must(n int, out func(e machine.Edge, in bitset) bitset) []bitset {
	given := make([]bitset, len(g.states))
	initial := g.Initial()
	if initial < 0 {
		return given
	}
	given[initial] = newBitset(n)
	queue := []int{initial}
	queued := newBitset(len(g.states))
	queued.Add(initial)
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		queued.Del(i)
		for _, e := range g.Out(i) {
			j := e.To
			if j == initial {
				continue
			}
			o := out(e, given[i])
			changed := false
			if given[j] == nil {
				given[j], changed = o, true
			} else {
				changed = given[j].And(o)
			}
			if changed && !queued.Has(j) {
				queued.Add(j)
				queue = append(queue, j)
			}
		}
	}
	return given
}

// walkTo returns a shortest walk from the initial state to state i that
// never takes an edge for which cut is true, written like the generated
// tests' walks ("lookup>confirm>(cancel)recheck>wipe"), or "" when there
// is none.
func (g *graph) walkTo(i int, cut func(from int, on vocab.Edge) bool) string {
	if g.Initial() < 0 {
		return ""
	}
	path, ok := g.Path(g.Initial(), func(j int) bool { return j == i }, func(e machine.Edge) bool { return !cut(e.From, e.On) })
	if !ok {
		return ""
	}
	return g.Walk(g.Initial(), path)
}

// acceptsGate reports whether an edge is a confirmation gate's accept
// edge: the only way through a gate that is consent.
func acceptsGate(from *spec.State, on vocab.Edge) bool {
	return from.Kind == vocab.StateConfirm && on == vocab.Next
}

// canEnd returns the states from which some terminal state is reachable.
func (g *graph) canEnd() bitset {
	terminal := newBitset(len(g.states))
	for i, s := range g.states {
		if s.Kind == vocab.StateTerminal {
			terminal.Add(i)
		}
	}
	return g.Reaching(terminal)
}

func isKind(kinds ...vocab.StateKind) func(*spec.State) bool {
	return func(s *spec.State) bool {
		for _, k := range kinds {
			if s.Kind == k {
				return true
			}
		}
		return false
	}
}

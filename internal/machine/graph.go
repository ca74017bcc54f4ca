// Package machine is the indexed state machine of one workflow, and the
// walks every part of mrtrgen asks of it: lint's rules, breaking's rules,
// the generator's test walks, mrtrtest's routes and walks, and the
// runtime's capabilities every way through a workflow needs.
//
// A Graph knows states by number and name, and each state's outgoing
// edges (typed vocab.Edge) with their targets. It is built from a list of
// state names and one Connect per edge, in the order of the one place that
// lists a state's edges: spec.State.Edges for a spec (spec.Tool.Graph), the
// descriptor's Transitions for a generated program (mrtrimpl's
// Descriptor.Graph, which mrtrtest and the runtime ask). A new kind of
// state or edge is added there, not here.
//
// It imports only vocab, so that the runtime and generated test binaries
// stay light. Every question is at most one breadth-first walk
// (O(states + edges)); reachability from a state is computed once.
package machine

import (
	"strings"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// Edge is one transition of a Graph.
type Edge struct {
	From, To int // state numbers
	On       vocab.Edge
	// K is the edge's place among the edges Connect was given for From,
	// edges to undeclared states included: for a spec, the index of the
	// edge in From's spec.State.Edges.
	K int
}

// Graph is one workflow's state machine, indexed. States are numbered
// from 0 in the order New was given their names.
type Graph struct {
	names   []string
	index   map[string]int
	out     [][]Edge
	given   []int // edges Connect was given per state, for Edge.K
	in      [][]Edge
	initial int
	reach   []Set
}

// New returns a graph of the states named names, without edges, that
// starts in the state named initial. Of two states with one name, the
// name finds the first.
func New(names []string, initial string) *Graph {
	g := &Graph{
		names:   names,
		index:   make(map[string]int, len(names)),
		out:     make([][]Edge, len(names)),
		given:   make([]int, len(names)),
		reach:   make([]Set, len(names)),
		initial: -1,
	}
	for i, n := range names {
		if _, dup := g.index[n]; !dup {
			g.index[n] = i
		}
	}
	if i, ok := g.index[initial]; ok {
		g.initial = i
	}
	return g
}

// Connect adds the edge on from state from to the state named to. An edge
// to a name no state has is left out (lint reports it), but counts for
// Edge.K.
func (g *Graph) Connect(from int, to string, on vocab.Edge) {
	k := g.given[from]
	g.given[from]++
	if j, ok := g.index[to]; ok {
		g.out[from] = append(g.out[from], Edge{From: from, To: j, On: on, K: k})
		g.in, g.reach = nil, make([]Set, len(g.names))
	}
}

// Len is the number of states.
func (g *Graph) Len() int { return len(g.names) }

// Name is the name of state i.
func (g *Graph) Name(i int) string { return g.names[i] }

// Index returns the number of the state named name.
func (g *Graph) Index(name string) (int, bool) {
	i, ok := g.index[name]
	return i, ok
}

// Initial is the number of the initial state, or -1 when no state has its
// name.
func (g *Graph) Initial() int { return g.initial }

// Out is the edges that leave state i, in the order they were connected.
func (g *Graph) Out(i int) []Edge { return g.out[i] }

// In is the edges that enter state i.
func (g *Graph) In(i int) []Edge {
	if g.in == nil {
		g.in = make([][]Edge, len(g.names))
		for _, es := range g.out {
			for _, e := range es {
				g.in[e.To] = append(g.in[e.To], e)
			}
		}
	}
	return g.in[i]
}

// NextOf returns the edge by which state i is left when it is done (an
// ask answered, a gate accepted), if it has one.
func (g *Graph) NextOf(i int) (Edge, bool) {
	for _, e := range g.out[i] {
		if e.On == vocab.Next {
			return e, true
		}
	}
	return Edge{}, false
}

// Any takes every edge.
func Any(Edge) bool { return true }

// Reach returns the states reachable from state i, i included.
func (g *Graph) Reach(i int) Set {
	if g.reach[i] == nil {
		g.reach[i] = g.Spread([]int{i}, Any)
	}
	return g.reach[i]
}

// Reachable returns the states reachable from the initial state (none
// when it is not declared).
func (g *Graph) Reachable() Set {
	if g.initial < 0 {
		return NewSet(g.Len())
	}
	return g.Reach(g.initial)
}

// Spread returns the states reachable from starts, starts included, by
// walks that take only edges take accepts.
func (g *Graph) Spread(starts []int, take func(Edge) bool) Set {
	out := NewSet(g.Len())
	queue := append([]int(nil), starts...)
	for _, s := range starts {
		out.Add(s)
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range g.out[n] {
			if !out.Has(e.To) && take(e) {
				out.Add(e.To)
				queue = append(queue, e.To)
			}
		}
	}
	return out
}

// Reaching returns the states from which some state of targets is
// reachable, targets included.
func (g *Graph) Reaching(targets Set) Set {
	out := targets.Clone()
	var queue []int
	targets.Each(func(i int) bool { queue = append(queue, i); return true })
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range g.In(n) {
			if !out.Has(e.From) {
				out.Add(e.From)
				queue = append(queue, e.From)
			}
		}
	}
	return out
}

// Path returns a shortest walk from state from to a state done accepts
// that takes only edges take accepts, preferring edges in the order they
// were connected; false when there is none. A from that done accepts
// gives the empty walk.
func (g *Graph) Path(from int, done func(int) bool, take func(Edge) bool) ([]Edge, bool) {
	if done(from) {
		return nil, true
	}
	return g.search(from, done, take)
}

// Cycle returns a shortest walk from state i back to itself, of one edge
// or more, that takes only edges take accepts; false when there is none.
func (g *Graph) Cycle(i int, take func(Edge) bool) ([]Edge, bool) {
	return g.search(i, func(j int) bool { return j == i }, take)
}

// search is a breadth-first walk from state from (not itself tested by
// done) to the first state done accepts; each state is entered once, by
// the first edge that arrives at it.
func (g *Graph) search(from int, done func(int) bool, take func(Edge) bool) ([]Edge, bool) {
	by := make([]Edge, g.Len()) // the edge each state was first arrived at by
	seen := NewSet(g.Len())
	seen.Add(from)
	queue := []int{from}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range g.out[n] {
			if !take(e) {
				continue
			}
			if done(e.To) {
				return g.walkBack(by, from, e), true
			}
			if !seen.Has(e.To) {
				seen.Add(e.To)
				by[e.To] = e
				queue = append(queue, e.To)
			}
		}
	}
	return nil, false
}

// walkBack is the walk from state from that ends with edge last, by the
// edges by.
func (g *Graph) walkBack(by []Edge, from int, last Edge) []Edge {
	path := []Edge{last}
	for n := last.From; n != from; n = by[n].From {
		path = append(path, by[n])
	}
	for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
		path[l], path[r] = path[r], path[l]
	}
	return path
}

// Walk writes a walk from state from the way generated tests, mrtrtest
// and lint's messages name walks: the states it passes, with the label of
// each edge but next in parentheses before the state it leads to
// ("lookup>(refundable)askReason>confirmRefund>(decline)kept").
func (g *Graph) Walk(from int, path []Edge) string {
	var b strings.Builder
	b.WriteString(g.names[from])
	for _, e := range path {
		b.WriteString(">")
		if e.On != vocab.Next {
			b.WriteString("(" + e.On.Label() + ")")
		}
		b.WriteString(g.names[e.To])
	}
	return b.String()
}

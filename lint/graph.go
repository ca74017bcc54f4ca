package lint

import (
	"math/bits"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Graph questions the rules ask about one workflow's state machine.
//
// A workflow can have thousands of states, and several rules ask about
// every state or pair of states, so the graph is built once per workflow
// with states numbered in t.States order, and reachability from each state
// is computed at most once, as a bit set. Every question is then at most
// one breadth-first walk (O(states + edges)), and the rules stay within
// O(states × (states + edges)) per workflow.

// bitset is a set of state indices.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) add(i int)      { b[i/64] |= 1 << (i % 64) }

func (b bitset) del(i int)     { b[i/64] &^= 1 << (i % 64) }
func (b bitset) clone() bitset { return append(make(bitset, 0, len(b)), b...) } // never nil: nil means "not computed"

func (b bitset) andNot(o bitset) {
	for i := range b {
		b[i] &^= o[i]
	}
}

// and keeps the members of b that are in o, and reports whether b changed.
func (b bitset) and(o bitset) bool {
	changed := false
	for i := range b {
		if w := b[i] & o[i]; w != b[i] {
			b[i], changed = w, true
		}
	}
	return changed
}

func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}

// each calls f for every member, in increasing order (t.States order).
func (b bitset) each(f func(int) bool) {
	for w, word := range b {
		for word != 0 {
			i := w*64 + bits.TrailingZeros64(word)
			if !f(i) {
				return
			}
			word &= word - 1
		}
	}
}

// graph is one workflow's state machine, indexed.
type graph struct {
	t      *spec.Tool
	states []*spec.State
	index  map[string]int
	next   [][]int // successors, in Edges order; undeclared targets dropped
	// on says which edge each successor is ("next", "outcome:x",
	// "decline", "cancel"), parallel to next. Rules about consent and
	// answers must tell a gate's or ask's accept edge (next) from its
	// decline and cancel edges, where nothing was agreed or answered.
	on      [][]vocab.Edge
	initial int // -1 when the initial state is not declared
	reach   []bitset
}

func newGraph(t *spec.Tool) *graph {
	g := &graph{t: t, states: t.States, index: make(map[string]int, len(t.States)), initial: -1}
	for i, s := range t.States {
		if _, dup := g.index[s.Name]; !dup {
			g.index[s.Name] = i
		}
	}
	g.next = make([][]int, len(t.States))
	g.on = make([][]vocab.Edge, len(t.States))
	for i, s := range t.States {
		for _, e := range s.Edges() {
			if j, ok := g.index[e.To]; ok {
				g.next[i] = append(g.next[i], j)
				g.on[i] = append(g.on[i], e.On)
			}
		}
	}
	if i, ok := g.index[t.Initial]; ok {
		g.initial = i
	}
	g.reach = make([]bitset, len(t.States))
	return g
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
func (g *graph) reachFrom(i int) bitset {
	if r := g.reach[i]; r != nil {
		return r
	}
	r := newBitset(len(g.states))
	r.add(i)
	queue := []int{i}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range g.next[n] {
			if !r.has(m) {
				r.add(m)
				queue = append(queue, m)
			}
		}
	}
	g.reach[i] = r
	return r
}

// reachable returns the states reachable from the initial state.
func (g *graph) reachable() bitset {
	if g.initial < 0 {
		return newBitset(len(g.states))
	}
	return g.reachFrom(g.initial)
}

// after returns the states reachable from i's successors (not i itself,
// unless a cycle leads back to it).
func (g *graph) after(i int) bitset { return g.afterAll(g.next[i]) }

// afterNext is after for the successor by i's next edge only: for an ask
// or a gate, what can follow once it was answered or accepted.
func (g *graph) afterNext(i int) bitset { return g.afterAll(g.nextOf(i)) }

func (g *graph) afterAll(starts []int) bitset {
	out := newBitset(len(g.states))
	for _, j := range starts {
		out.or(g.reachFrom(j))
	}
	return out
}

// nextOf returns the successor of i by its next edge (none or one).
func (g *graph) nextOf(i int) []int {
	for k, on := range g.on[i] {
		if on == vocab.Next {
			return g.next[i][k : k+1]
		}
	}
	return nil
}

// reachedAvoiding returns the states a walk from from's successors arrives
// at when it never goes on from a state for which avoid is true: such
// states are arrived at, but not passed through.
func (g *graph) reachedAvoiding(from int, avoid func(*spec.State) bool) bitset {
	return g.arrivedAvoiding(g.next[from], avoid)
}

// arrivedAvoiding is reachedAvoiding from the given start states.
func (g *graph) arrivedAvoiding(starts []int, avoid func(*spec.State) bool) bitset {
	arrived := newBitset(len(g.states))
	passed := newBitset(len(g.states))
	queue := append([]int(nil), starts...)
	for _, j := range queue {
		arrived.add(j)
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if passed.has(n) || avoid(g.states[n]) {
			continue
		}
		passed.add(n)
		for _, m := range g.next[n] {
			arrived.add(m)
			if !passed.has(m) {
				queue = append(queue, m)
			}
		}
	}
	return arrived
}

// pathAvoiding returns the states that can be arrived at from the initial
// state through states none of which satisfies avoid (the state arrived at
// itself may satisfy it). The initial state is in the set.
func (g *graph) pathAvoiding(avoid func(*spec.State) bool) bitset {
	if g.initial < 0 {
		return newBitset(len(g.states))
	}
	var out bitset
	if avoid(g.states[g.initial]) {
		out = newBitset(len(g.states))
	} else {
		out = g.reachedAvoiding(g.initial, avoid)
	}
	out.add(g.initial)
	return out
}

// reachCutting returns the states reachable from the initial state, the
// initial state included, by walks that never take an edge for which cut
// is true (from is the state the edge leaves, on its kind as in spec.Edge).
func (g *graph) reachCutting(cut func(from *spec.State, on vocab.Edge) bool) bitset {
	out := newBitset(len(g.states))
	if g.initial < 0 {
		return out
	}
	out.add(g.initial)
	queue := []int{g.initial}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for k, m := range g.next[n] {
			if !out.has(m) && !cut(g.states[n], g.on[n][k]) {
				out.add(m)
				queue = append(queue, m)
			}
		}
	}
	return out
}

// must is a must-analysis over the state machine: for every state, the
// facts (bits of n) that hold on entry on every path from the initial
// state to it, the intersection over its incoming edges, computed to a
// fixed point with a worklist. out gives the facts after state i, entered
// with in, is left by its k-th edge. The initial state is entered with
// none, whatever loops back to it (the first call starts from nothing).
// States no walk reaches get nil. Each state's set only shrinks, so the
// work is bounded by states × n × edges / 64. answer-not-given and
// value-not-set ask it which answers and which continuation values exist.
func (g *graph) must(n int, out func(i, k int, in bitset) bitset) []bitset {
	given := make([]bitset, len(g.states))
	if g.initial < 0 {
		return given
	}
	given[g.initial] = newBitset(n)
	queue := []int{g.initial}
	queued := newBitset(len(g.states))
	queued.add(g.initial)
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		queued.del(i)
		for k, j := range g.next[i] {
			if j == g.initial {
				continue
			}
			o := out(i, k, given[i])
			changed := false
			if given[j] == nil {
				given[j], changed = o, true
			} else {
				changed = given[j].and(o)
			}
			if changed && !queued.has(j) {
				queued.add(j)
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
	if g.initial < 0 {
		return ""
	}
	type step struct{ from, edge int }
	seen := newBitset(len(g.states))
	prev := make([]step, len(g.states))
	seen.add(g.initial)
	prev[g.initial] = step{-1, -1}
	queue := []int{g.initial}
	for len(queue) > 0 && !seen.has(i) {
		n := queue[0]
		queue = queue[1:]
		for k, m := range g.next[n] {
			if seen.has(m) || cut(n, g.on[n][k]) {
				continue
			}
			seen.add(m)
			prev[m] = step{n, k}
			queue = append(queue, m)
		}
	}
	if !seen.has(i) {
		return ""
	}
	var steps []string
	for n := i; prev[n].from >= 0; n = prev[n].from {
		name := g.states[n].Name
		if on := g.on[prev[n].from][prev[n].edge]; on != vocab.Next {
			name = "(" + on.Label() + ")" + name
		}
		steps = append(steps, name)
	}
	steps = append(steps, g.states[g.initial].Name)
	for l, r := 0, len(steps)-1; l < r; l, r = l+1, r-1 {
		steps[l], steps[r] = steps[r], steps[l]
	}
	return strings.Join(steps, ">")
}

// acceptsGate reports whether an edge is a confirmation gate's accept
// edge: the only way through a gate that is consent.
func acceptsGate(from *spec.State, on vocab.Edge) bool {
	return from.Kind == vocab.StateConfirm && on == vocab.Next
}

// canEnd returns the states from which some terminal state is reachable.
func (g *graph) canEnd() bitset {
	prev := make([][]int, len(g.states))
	for i, ns := range g.next {
		for _, j := range ns {
			prev[j] = append(prev[j], i)
		}
	}
	ok := newBitset(len(g.states))
	var queue []int
	for i, s := range g.states {
		if s.Kind == vocab.StateTerminal {
			ok.add(i)
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, p := range prev[n] {
			if !ok.has(p) {
				ok.add(p)
				queue = append(queue, p)
			}
		}
	}
	return ok
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

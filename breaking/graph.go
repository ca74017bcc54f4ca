package breaking

import (
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// graph is one workflow's state machine, indexed, with the questions the
// rules ask of it. Every question is one walk (O(states + edges)), computed
// at most once, so a comparison stays linear in the size of the specs but
// for gates × walks in gate-after-effect.
type graph struct {
	t     *spec.Tool
	index map[string]int
	next  [][]int        // successors in Edges order; undeclared targets dropped
	on    [][]vocab.Edge // the edge each successor is (next, decline...)
	init  int            // -1 when the initial state is not declared

	reach   []bool // reachable from the initial state
	canWait []bool // an interactive state is reachable from here (itself included)
	cut     map[int][]bool
}

func newGraph(t *spec.Tool) *graph {
	g := &graph{t: t, index: make(map[string]int, len(t.States)), init: -1, cut: map[int][]bool{}}
	for i, s := range t.States {
		g.index[s.Name] = i
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
		g.init = i
	}
	g.reach = g.walk(-1)
	g.canWait = g.reverseFromInteractive()
	return g
}

// walk marks the states reachable from the initial state without taking
// the accept (next) edge of state cutNext (-1: cut nothing).
func (g *graph) walk(cutNext int) []bool {
	seen := make([]bool, len(g.t.States))
	if g.init < 0 {
		return seen
	}
	stack := []int{g.init}
	seen[g.init] = true
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k, j := range g.next[i] {
			if seen[j] || (i == cutNext && g.on[i][k] == vocab.Next) {
				continue
			}
			seen[j] = true
			stack = append(stack, j)
		}
	}
	return seen
}

// reverseFromInteractive marks the states from which an ask or gate can be
// reached.
func (g *graph) reverseFromInteractive() []bool {
	prev := make([][]int, len(g.t.States))
	var stack []int
	out := make([]bool, len(g.t.States))
	for i, s := range g.t.States {
		for _, j := range g.next[i] {
			prev[j] = append(prev[j], i)
		}
		if s.Interactive() {
			out[i] = true
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range prev[i] {
			if !out[j] {
				out[j] = true
				stack = append(stack, j)
			}
		}
	}
	return out
}

// state returns the state named name and whether the initial state
// reaches it.
func (g *graph) state(name string) (*spec.State, bool) {
	i, ok := g.index[name]
	if !ok {
		return nil, false
	}
	return g.t.States[i], g.reach[i]
}

// mayWait reports whether a workflow can wait for a next round: some ask or
// gate is reachable. Without one no token is ever minted.
func (g *graph) mayWait() bool {
	for i, s := range g.t.States {
		if g.reach[i] && s.Interactive() {
			return true
		}
	}
	return false
}

// waitsAfter reports whether a workflow that left the named state by its
// next edge (an ask answered, a gate accepted) can still wait for a round,
// so what the state produced is carried in a token.
func (g *graph) waitsAfter(name string) bool {
	i, ok := g.index[name]
	if !ok || !g.reach[i] {
		return false
	}
	for k, j := range g.next[i] {
		if g.on[i][k] == vocab.Next && g.canWait[j] {
			return true
		}
	}
	return false
}

// guards reports whether every path from the initial state to the state
// named effect passes the gate named gate and accepts it.
func (g *graph) guards(gate, effect string) bool {
	gi, ok1 := g.index[gate]
	ei, ok2 := g.index[effect]
	if !ok1 || !ok2 || !g.reach[ei] {
		return false
	}
	seen, ok := g.cut[gi]
	if !ok {
		seen = g.walk(gi)
		g.cut[gi] = seen
	}
	return !seen[ei]
}

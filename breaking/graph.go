package breaking

import (
	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// graph is one workflow's state machine, indexed, with the questions the
// rules ask of it. Every question is one walk (O(states + edges)), computed
// at most once, so a comparison stays linear in the size of the specs but
// for gates × walks in gate-after-effect.
type graph struct {
	*machine.Graph
	t *spec.Tool

	reach   machine.Set // reachable from the initial state
	canWait machine.Set // an interactive state is reachable from here (itself included)
	cut     map[int]machine.Set
}

func newGraph(t *spec.Tool) *graph {
	g := &graph{Graph: t.Graph(), t: t, cut: map[int]machine.Set{}}
	g.reach = g.Reachable()
	interactive := machine.NewSet(g.Len())
	for i, s := range t.States {
		if s.Interactive() {
			interactive.Add(i)
		}
	}
	g.canWait = g.Reaching(interactive)
	return g
}

// state returns the state named name and whether the initial state
// reaches it.
func (g *graph) state(name string) (*spec.State, bool) {
	i, ok := g.Index(name)
	if !ok {
		return nil, false
	}
	return g.t.States[i], g.reach.Has(i)
}

// mayWait reports whether a workflow can wait for a next round: some ask or
// gate is reachable. Without one no token is ever minted.
func (g *graph) mayWait() bool {
	for i, s := range g.t.States {
		if g.reach.Has(i) && s.Interactive() {
			return true
		}
	}
	return false
}

// waitsAfter reports whether a workflow that left the named state by its
// next edge (an ask answered, a gate accepted) can still wait for a round,
// so what the state produced is carried in a token.
func (g *graph) waitsAfter(name string) bool {
	i, ok := g.Index(name)
	if !ok || !g.reach.Has(i) {
		return false
	}
	e, ok := g.NextOf(i)
	return ok && g.canWait.Has(e.To)
}

// guards reports whether every path from the initial state to the state
// named effect passes the gate named gate and accepts it.
func (g *graph) guards(gate, effect string) bool {
	gi, ok1 := g.Index(gate)
	ei, ok2 := g.Index(effect)
	if !ok1 || !ok2 || !g.reach.Has(ei) {
		return false
	}
	seen, ok := g.cut[gi]
	if !ok {
		seen = g.Spread([]int{g.Initial()}, func(e machine.Edge) bool { return e.From != gi || e.On != vocab.Next })
		g.cut[gi] = seen
	}
	return !seen.Has(ei)
}

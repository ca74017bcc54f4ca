package spec

import "github.com/mrtrgen/mrtrgen/internal/machine"

// Graph returns t's state machine, indexed: states numbered in t.States
// order, each with the edges State.Edges lists (Edge.K is the index in
// that list).
func (t *Tool) Graph() *machine.Graph {
	names := make([]string, len(t.States))
	for i, s := range t.States {
		names[i] = s.Name
	}
	g := machine.New(names, t.Initial)
	for i, s := range t.States {
		for _, e := range s.Edges() {
			g.Connect(i, e.To, e.On)
		}
	}
	return g
}

package lint

import (
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Loops through a question. A check's askAgain edge is bounded: the
// generated code counts its refusals in the continuation and takes the
// exhausted edge instead once maxAttempts answers were refused. Any other
// cycle through a state that asks can ask the user forever.

// bounded reports whether an edge is bounded by a maximum of attempts.
func bounded(on vocab.Edge) bool { return on == vocab.AskAgain }

// unboundedCycle returns the shortest cycle from state i back to itself
// that takes no bounded edge, as a walk ("askTicket>verify>(retry)askTicket"),
// and the edge that closes it; ok is false when there is none.
func (g *graph) unboundedCycle(i int) (walk string, closing spec.Edge, ok bool) {
	type step struct{ from, edge int }
	prev := make([]step, len(g.states))
	seen := newBitset(len(g.states))
	var queue []int
	last := step{-1, -1}
	push := func(from, k int) bool {
		j := g.next[from][k]
		if bounded(g.on[from][k]) {
			return false
		}
		if j == i {
			last = step{from, k}
			return true
		}
		if !seen.has(j) {
			seen.add(j)
			prev[j] = step{from, k}
			queue = append(queue, j)
		}
		return false
	}
	found := false
	for k := range g.next[i] {
		if push(i, k) {
			found = true
			break
		}
	}
	for len(queue) > 0 && !found {
		n := queue[0]
		queue = queue[1:]
		for k := range g.next[n] {
			if push(n, k) {
				found = true
				break
			}
		}
	}
	if !found {
		return "", spec.Edge{}, false
	}
	// Walk back from the closing edge to i.
	label := func(s step) string {
		name := g.states[g.next[s.from][s.edge]].Name
		if on := g.on[s.from][s.edge]; on != vocab.Next {
			name = "(" + on.Label() + ")" + name
		}
		return name
	}
	steps := []string{label(last)}
	for n := last.from; n != i; n = prev[n].from {
		steps = append(steps, label(prev[n]))
	}
	steps = append(steps, g.states[i].Name)
	for l, r := 0, len(steps)-1; l < r; l, r = l+1, r-1 {
		steps[l], steps[r] = steps[r], steps[l]
	}
	from := g.states[last.from]
	closing = from.Edges()[edgeIndex(g, last.from, last.edge)]
	return strings.Join(steps, ">"), closing, true
}

// edgeIndex maps the k-th successor of state i (undeclared targets
// dropped) back to its index in the state's Edges.
func edgeIndex(g *graph, i, k int) int {
	n := -1
	for e, edge := range g.states[i].Edges() {
		if _, ok := g.index[edge.To]; ok {
			n++
		}
		if n == k {
			return e
		}
	}
	return 0
}

// checkUnboundedAskCycle reports, once per loop, a state that asks and can
// be entered again and again without a bound.
func checkUnboundedAskCycle(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		g := c.graph(t)
		reach := g.reachable()
		var reported []int
		for i, s := range t.States {
			if !s.Interactive() || !reach.has(i) {
				continue
			}
			walk, closing, ok := g.unboundedCycle(i)
			if !ok {
				continue
			}
			// One finding per loop: a state that asks on a loop already
			// reported (each reaches the other) is the same finding.
			same := false
			for _, j := range reported {
				if g.reachFrom(i).has(j) && g.reachFrom(j).has(i) {
					same = true
				}
			}
			if same {
				continue
			}
			reported = append(reported, i)
			c.report(r, closing.Pos, c.toolScope(t, s.Lint), "%s %q: state %q can ask again and again without a bound: %s", t.Kind, t.Name, s.Name, walk)
		}
	}
	checkUnboundedValidators(c, r)
}

// checkAskAgainTarget reports an askAgain that names an ask the check does
// not follow: going there would not be asking again.
func checkAskAgainTarget(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		g := c.graph(t)
		for i, s := range t.States {
			a := s.AskAgain
			if a == nil {
				continue
			}
			j, ok := g.index[a.State.Name]
			if !ok || g.states[j].Kind != vocab.StateAsk {
				continue // the loader reports it
			}
			// The check must follow the ask's answer: reachable from it by
			// its next edge, without going through the askAgain edge.
			if g.afterNext(j).has(i) {
				continue
			}
			c.report(r, a.State.Pos, c.toolScope(t, s.Lint), "%s %q: check %s of state %q asks again at %q, but no path from that ask's answer leads to the check", t.Kind, t.Name, s.Check.Name, s.Name, a.State.Name)
		}
	}
}

package lint

import (
	"github.com/mrtrgen/mrtrgen/internal/machine"
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
	path, ok := g.Cycle(i, func(e machine.Edge) bool { return !bounded(e.On) })
	if !ok {
		return "", spec.Edge{}, false
	}
	last := path[len(path)-1]
	return g.Walk(i, path), g.states[last.From].Edges()[last.K], true
}

// checkUnboundedAskCycle reports, once per loop, a state that asks and can
// be entered again and again without a bound.
func checkUnboundedAskCycle(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		g := c.graph(t)
		reach := g.reachable()
		var reported []int
		for i, s := range t.States {
			if !s.Interactive() || !reach.Has(i) {
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
				if g.reachFrom(i).Has(j) && g.reachFrom(j).Has(i) {
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
			j, ok := g.Index(a.State.Name)
			if !ok || g.states[j].Kind != vocab.StateAsk {
				continue // the loader reports it
			}
			// The check must follow the ask's answer: reachable from it by
			// its next edge, without going through the askAgain edge.
			if g.afterNext(j).Has(i) {
				continue
			}
			c.report(r, a.State.Pos, c.toolScope(t, s.Lint), "%s %q: check %s of state %q asks again at %q, but no path from that ask's answer leads to the check", t.Kind, t.Name, s.Check.Name, s.Name, a.State.Name)
		}
	}
}

// checkAskAgainUnexplained reports an askAgain back to an ask whose
// requests carry no text the check's message could be added to: roots
// (roots/list has no message). The user is asked the same thing again
// without being told what was wrong.
func checkAskAgainUnexplained(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			a := s.AskAgain
			if a == nil {
				continue
			}
			target := t.State(a.State.Name)
			if target == nil || target.Kind != vocab.StateAsk || len(target.Requests) == 0 {
				continue // the loader or ask-again-not-earlier reports it
			}
			explained := false
			for _, q := range target.Requests {
				explained = explained || q.Kind != vocab.Roots
			}
			if !explained {
				c.report(r, a.State.Pos, c.toolScope(t, s.Lint), "%s %q: check %s of state %q asks again at %q, which asks only for roots: roots/list carries no message, so the user is asked again without being told why (the message of mrtr.AskAgain is lost)",
					t.Kind, t.Name, s.Check.Name, s.Name, a.State.Name)
			}
		}
	}
}

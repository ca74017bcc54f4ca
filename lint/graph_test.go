package lint

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// randomTool builds a workflow of n states of random kinds with random
// transitions (some to undeclared states, as a tool that failed to resolve
// could have).
func randomTool(r *rand.Rand, n int) *spec.Tool {
	kinds := []vocab.StateKind{vocab.StateCheck, vocab.StateAsk, vocab.StateConfirm, vocab.StateEffect, vocab.StateTerminal}
	t := &spec.Tool{Name: "random", Initial: "s0"}
	name := func() string { return fmt.Sprintf("s%d", r.IntN(n+1)) } // s<n> is undeclared
	ref := func() *spec.StateRef { return &spec.StateRef{Name: name()} }
	for i := range n {
		s := &spec.State{Name: fmt.Sprintf("s%d", i), Kind: kinds[r.IntN(len(kinds))]}
		if s.Kind != vocab.StateTerminal {
			if r.IntN(3) == 0 {
				for o := range 1 + r.IntN(3) {
					s.Outcomes = append(s.Outcomes, &spec.Branch{Name: fmt.Sprintf("o%d", o), Target: *ref()})
				}
			} else {
				s.Next = ref()
			}
			if r.IntN(4) == 0 {
				s.OnDecline = ref()
			}
			if r.IntN(5) == 0 {
				s.OnCancel = ref()
			}
		}
		t.States = append(t.States, s)
	}
	if r.IntN(10) == 0 {
		t.Initial = "nowhere"
	}
	return t
}

// The reference answers: plain walks over names, as the questions are
// phrased.
func refSucc(t *spec.Tool, name string) []string {
	if s := t.State(name); s != nil {
		var out []string
		for _, e := range s.Edges() {
			out = append(out, e.To)
		}
		return out
	}
	return nil
}

func refReach(t *spec.Tool, start string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if seen[n] || t.State(n) == nil {
			return
		}
		seen[n] = true
		for _, m := range refSucc(t, n) {
			walk(m)
		}
	}
	walk(start)
	return seen
}

// refPathBetween: is there a path from's successors → … → target whose
// states before target all fail avoid?
func refPathBetween(t *spec.Tool, from, target string, avoid func(*spec.State) bool) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(n string) bool {
		if n == target {
			return true
		}
		s := t.State(n)
		if s == nil || seen[n] || avoid(s) {
			return false
		}
		seen[n] = true
		for _, m := range refSucc(t, n) {
			if walk(m) {
				return true
			}
		}
		return false
	}
	for _, m := range refSucc(t, from) {
		if walk(m) {
			return true
		}
	}
	return false
}

// refReachByEdges: the states reachable from start by edges keep allows.
func refReachByEdges(t *spec.Tool, start string, keep func(spec.Edge) bool) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		s := t.State(n)
		if seen[n] || s == nil {
			return
		}
		seen[n] = true
		for _, e := range s.Edges() {
			if keep(e) {
				walk(e.To)
			}
		}
	}
	walk(start)
	return seen
}

func TestGraphAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	avoids := []func(*spec.State) bool{isKind(vocab.StateConfirm), isKind(vocab.StateCheck), isKind(vocab.StateCheck, vocab.StateEffect)}
	for iter := range 300 {
		tool := randomTool(r, 1+r.IntN(30))
		g := newGraph(tool)
		reach := g.reachable()
		for i, s := range tool.States {
			wantReach := refReach(tool, tool.Initial)[s.Name]
			if reach.Has(i) != wantReach {
				t.Fatalf("iter %d: reachable(%s) = %v", iter, s.Name, !wantReach)
			}
			after := g.after(i)
			for j, u := range tool.States {
				want := false
				for _, m := range refSucc(tool, s.Name) {
					want = want || refReach(tool, m)[u.Name]
				}
				if after.Has(j) != want {
					t.Fatalf("iter %d: after(%s) has %s = %v", iter, s.Name, u.Name, !want)
				}
			}
			// By the next edge only: what follows an answer or a consent.
			var nextTo string
			if s.Next != nil {
				nextTo = s.Next.Name
			}
			afterNext := g.afterNext(i)
			for j, u := range tool.States {
				want := nextTo != "" && refReach(tool, nextTo)[u.Name]
				if afterNext.Has(j) != want {
					t.Fatalf("iter %d: afterNext(%s) has %s = %v", iter, s.Name, u.Name, !want)
				}
			}
			gated := refReachByEdges(tool, tool.Initial, func(e spec.Edge) bool {
				return !(tool.State(e.From).Kind == vocab.StateConfirm && e.On == "next")
			})
			if g.reachCutting(acceptsGate).Has(i) != gated[s.Name] {
				t.Fatalf("iter %d: reachCutting(acceptsGate) has %s = %v", iter, s.Name, !gated[s.Name])
			}
			ends := false
			for n := range refReach(tool, s.Name) {
				ends = ends || tool.State(n).Kind == vocab.StateTerminal
			}
			if g.canEnd().Has(i) != ends {
				t.Fatalf("iter %d: canEnd(%s) = %v", iter, s.Name, !ends)
			}
			for ai, avoid := range avoids {
				between := g.reachedAvoiding(i, avoid)
				for j, u := range tool.States {
					if want := refPathBetween(tool, s.Name, u.Name, avoid); between.Has(j) != want {
						t.Fatalf("iter %d avoid %d: path %s→%s = %v", iter, ai, s.Name, u.Name, !want)
					}
				}
				// From the next edge only: a path from next's target (itself
				// included) through states that fail avoid.
				nextBetween := g.arrivedAvoiding(g.nextOf(i), avoid)
				for j, u := range tool.States {
					want := nextTo != "" && tool.State(nextTo) != nil && (nextTo == u.Name || !avoid(tool.State(nextTo)) && refPathBetween(tool, nextTo, u.Name, avoid))
					if nextBetween.Has(j) != want {
						t.Fatalf("iter %d avoid %d: path %s-next→%s = %v", iter, ai, s.Name, u.Name, !want)
					}
				}
				// From the initial state: the initial state itself counts,
				// and an avoided initial state blocks everything else.
				init := tool.State(tool.Initial)
				want := s.Name == tool.Initial || init != nil && !avoid(init) && refPathBetween(tool, tool.Initial, s.Name, avoid)
				if g.pathAvoiding(avoid).Has(i) != want {
					t.Fatalf("iter %d avoid %d: pathAvoiding(%s) = %v", iter, ai, s.Name, !want)
				}
			}
		}
	}
}

// A workflow of thousands of states lints in well under a second: the
// rules are O(states × (states + edges)), not worse.
func TestLintLargeWorkflow(t *testing.T) {
	const steps = 500 // 4 states each
	var b strings.Builder
	b.WriteString("version: 1\npackage: big\ntools:\n  big:\n    description: A long chain.\n    arguments: {id: {type: string, maxLength: 10}}\n    continuation: {ttl: 5m}\n    initial: c0\n    states:\n")
	for i := range steps {
		fmt.Fprintf(&b, "      c%d: {check: check%d, next: a%d}\n", i, i, i)
		fmt.Fprintf(&b, "      a%d: {ask: {q%d: {elicit: {message: 'Give the count for {id}', fields: {v: {type: integer}}}}}, next: g%d}\n", i, i, i)
		fmt.Fprintf(&b, "      g%d: {confirm: {message: 'Run step %d for {id}?', key: k%d}, next: e%d}\n", i, i, i, i)
		fmt.Fprintf(&b, "      e%d: {effect: effect%d, irreversible: true, next: c%d}\n", i, i, i+1)
	}
	fmt.Fprintf(&b, "      c%d: {terminal: success, message: done}\n", steps)
	f, ds := spec.Parse("big.mrtr.yaml", []byte(b.String()), spec.Options{})
	if f == nil {
		t.Fatal(ds.Error())
	}
	start := time.Now()
	ds = Run(f)
	if took := time.Since(start); took > 2*time.Second*slowdown {
		t.Errorf("linting %d states took %v", len(f.Tools[0].States), took)
	}
	// Every effect but the last runs before a later ask.
	n := 0
	for _, d := range ds {
		if d.Rule == "effect-before-input" {
			n++
		}
	}
	if n != steps-1 {
		t.Errorf("%d effect-before-input findings, want %d", n, steps-1)
	}
}

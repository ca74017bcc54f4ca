package machine

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// lookup ─(ok)→ ask ─next→ check ─next→ done
//
//	ask ─decline→ kept; check ─askAgain→ ask; lookup ─(no)→ nowhere (undeclared)
func sample() *Graph {
	g := New([]string{"lookup", "ask", "check", "done", "kept", "island"}, "lookup")
	g.Connect(0, "nowhere", vocab.OutcomeEdge("no"))
	g.Connect(0, "ask", vocab.OutcomeEdge("ok"))
	g.Connect(1, "check", vocab.Next)
	g.Connect(1, "kept", vocab.Decline)
	g.Connect(2, "ask", vocab.AskAgain)
	g.Connect(2, "done", vocab.Next)
	return g
}

func TestEdgesAndIndex(t *testing.T) {
	g := sample()
	if out := g.Out(0); len(out) != 1 || out[0].To != 1 || out[0].K != 1 {
		t.Fatalf("lookup's edges %+v: the undeclared target is left out, K counts it", out)
	}
	if in := g.In(1); len(in) != 2 || in[0].From != 0 || in[1].From != 2 {
		t.Fatalf("ask's predecessors %+v", in)
	}
	if e, ok := g.NextOf(1); !ok || e.To != 2 {
		t.Fatalf("NextOf(ask) = %+v, %v", e, ok)
	}
	if _, ok := g.NextOf(0); ok {
		t.Fatal("lookup has no next edge")
	}
	if i, ok := g.Index("check"); !ok || i != 2 || g.Initial() != 0 {
		t.Fatalf("Index(check) = %d, %v; Initial %d", i, ok, g.Initial())
	}
	if New([]string{"a"}, "b").Initial() != -1 {
		t.Fatal("an undeclared initial state is -1")
	}
}

func TestReach(t *testing.T) {
	g := sample()
	r := g.Reachable()
	for i, want := range []bool{true, true, true, true, true, false} {
		if r.Has(i) != want {
			t.Errorf("reachable %s = %v", g.Name(i), !want)
		}
	}
	terminal := NewSet(g.Len())
	terminal.Add(3)
	ends := g.Reaching(terminal)
	for i, want := range []bool{true, true, true, true, false, false} {
		if ends.Has(i) != want {
			t.Errorf("reaches done: %s = %v", g.Name(i), !want)
		}
	}
	noDecline := g.Spread([]int{0}, func(e Edge) bool { return e.On != vocab.Decline })
	if noDecline.Has(4) || !noDecline.Has(3) {
		t.Errorf("spread without declining: %v", noDecline)
	}
}

func TestPathsAndWalks(t *testing.T) {
	g := sample()
	p, ok := g.Path(0, func(i int) bool { return i == 3 }, Any)
	if got := g.Walk(0, p); !ok || got != "lookup>(ok)ask>check>done" {
		t.Fatalf("path to done %q, %v", got, ok)
	}
	if p, ok := g.Path(0, func(i int) bool { return i == 0 }, Any); !ok || len(p) != 0 {
		t.Fatalf("a path to where it starts is empty: %v %v", p, ok)
	}
	if _, ok := g.Path(0, func(i int) bool { return i == 5 }, Any); ok {
		t.Fatal("a path to an unreachable state")
	}
	c, ok := g.Cycle(1, Any)
	if got := g.Walk(1, c); !ok || got != "ask>check>(askAgain)ask" {
		t.Fatalf("cycle through ask %q, %v", got, ok)
	}
	if _, ok := g.Cycle(1, func(e Edge) bool { return e.On != vocab.AskAgain }); ok {
		t.Fatal("a cycle without the askAgain edge")
	}
}

package generator

import (
	"path/filepath"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// The transition walks take every transition of the state table that can
// be taken (a gate's or form's every exit, each arm of a value branch,
// each askAgain and exhausted edge), and the data of each walk takes the
// very arms the walk names: a walk through two branches on one value never
// asks it to be two things.
func TestWalksCoverEveryEdge(t *testing.T) {
	paths, err := filepath.Glob("../examples/specs/*" + spec.Ext)
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "testdata/golden/value_branches/routing"+spec.Ext, "testdata/golden/ask_again/releases"+spec.Ext,
		"testdata/golden/check_outcomes/review"+spec.Ext, "testdata/golden/effect_loops/loops"+spec.Ext)
	for _, p := range paths {
		f, ds, err := spec.LoadFile(p, spec.Options{})
		if err != nil || f == nil {
			t.Fatalf("%s: %v %v", p, err, ds)
		}
		for _, tool := range f.Workflows() {
			t.Run(tool.Name, func(t *testing.T) {
				w := newWorkflow(&gen{f: f}, tool)
				covered := map[spec.Edge]bool{}
				for _, wk := range w.walks().transitions {
					for _, e := range wk.path {
						covered[edgeKey(e)] = true
						if s := tool.State(e.From); s.Branch != nil {
							if got := w.armAt(s, wk.arms); got == nil || edgeKey(*got) != edgeKey(e) {
								t.Errorf("walk %s takes %s>(%s)%s, but its data takes %v", wk.name, e.From, e.On.Label(), e.To, got)
							}
						}
					}
				}
				for _, e := range w.allEdges() {
					if s := tool.State(e.From); s.Kind == vocab.StateAsk && e.On.Leaves() && !w.takeable(s, e.On) && !hasForm(s) {
						continue // no form to decline: the walks cannot take it
					}
					if !covered[edgeKey(e)] {
						t.Errorf("no walk takes %s>(%s)%s", e.From, e.On.Label(), e.To)
					}
				}
			})
		}
	}
}

// edgeKey is an edge without its position.
func edgeKey(e spec.Edge) spec.Edge { return spec.Edge{From: e.From, To: e.To, On: e.On} }

func hasForm(s *spec.State) bool {
	for _, q := range s.Requests {
		if q.Kind == vocab.Elicit {
			return true
		}
	}
	return false
}

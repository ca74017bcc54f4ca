package evolve_test

import (
	"slices"
	"testing"

	"github.com/mrtrgen/mrtrgen/breaking"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/evolve/evolvetest"
	"github.com/mrtrgen/mrtrgen/spec"
)

// The checker and the runtime agree: every change the two builds refuse a
// waiting workflow for is an error of mrtrgen breaking with the case's
// rule, in that tool; a change every case finds compatible is no error or
// warning at all.
func TestBreakingFlagsWhatTheRuntimeRefuses(t *testing.T) {
	load := func(path string) *spec.File {
		f, ds, err := spec.LoadFile(path, spec.Options{})
		if err != nil || f == nil {
			t.Fatalf("%s: %v %v", path, err, ds)
		}
		return f
	}
	before, after := load("before/evolve.mrtr.yaml"), load("after/evolve.mrtr.yaml")
	findings := breaking.Compare(before, after)
	// A finding belongs to the tool whose declaration comes last before it.
	toolAt := func(p spec.Pos) string {
		name, line := "", 0
		for _, tl := range after.Tools {
			if tl.Pos.Line <= p.Line && tl.Pos.Line > line {
				name, line = tl.Name, tl.Pos.Line
			}
		}
		return name
	}
	flagged := map[string][]string{} // tool -> rules of errors and warnings
	for _, f := range findings {
		if f.Severity != breaking.Info {
			flagged[toolAt(f.Pos)] = append(flagged[toolAt(f.Pos)], f.Rule)
		}
	}
	refused := map[string]bool{}
	for _, c := range evolvetest.Cases {
		if c.Rule != "" {
			refused[c.Tool] = true
			if !slices.Contains(flagged[c.Tool], c.Rule) {
				t.Errorf("%s: the runtime refuses it (%s) but breaking does not report %s in %s; it reports %v", c.Name, c.Reason, c.Rule, c.Tool, flagged[c.Tool])
			}
		}
	}
	for _, c := range evolvetest.Cases {
		if c.Rule == "" && !refused[c.Tool] && len(flagged[c.Tool]) > 0 {
			t.Errorf("%s: every build continues it, but breaking reports %v in %s", c.Name, flagged[c.Tool], c.Tool)
		}
	}
}

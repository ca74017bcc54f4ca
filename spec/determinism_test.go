package spec_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/spec"
)

// shuffleKeys reorders the keys of every mapping in the tree (sequences keep
// their order: it means something).
func shuffleKeys(n *yaml.Node, r *rand.Rand) {
	if n.Kind == yaml.MappingNode {
		pairs := len(n.Content) / 2
		perm := r.Perm(pairs)
		c := make([]*yaml.Node, 0, len(n.Content))
		for _, i := range perm {
			c = append(c, n.Content[2*i], n.Content[2*i+1])
		}
		n.Content = c
	}
	for _, ch := range n.Content {
		shuffleKeys(ch, r)
	}
}

// The model does not depend on the order keys are written in: tools,
// fields, requests and outcomes are sorted by name and states follow the
// flow from the initial state.
func TestKeyOrderDoesNotMatter(t *testing.T) {
	paths, _ := filepath.Glob("../examples/specs/*.mrtr.yaml")
	paths = append(paths, "../lint/testdata/rules/no-terminal-path.mrtr.yaml", "../lint/testdata/rules/unreachable-state.mrtr.yaml")
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, ds := spec.Parse("spec.mrtr.yaml", data, spec.Options{})
			if f == nil {
				t.Fatal(ds.Error())
			}
			checkOrder(t, f)
			want := dump(f)
			for seed := range uint64(20) {
				var doc yaml.Node
				if err := yaml.Unmarshal(data, &doc); err != nil {
					t.Fatal(err)
				}
				shuffleKeys(&doc, rand.New(rand.NewPCG(seed, 7)))
				shuffled, err := yaml.Marshal(&doc)
				if err != nil {
					t.Fatal(err)
				}
				g, ds := spec.Parse("spec.mrtr.yaml", shuffled, spec.Options{})
				if g == nil {
					t.Fatalf("seed %d: shuffled spec does not load:\n%s\n%s", seed, ds.Error(), shuffled)
				}
				if got := dump(g); got != want {
					t.Fatalf("seed %d: model differs after shuffling keys\n%s", seed, firstDiff(got, want))
				}
			}
		})
	}
}

// checkOrder verifies the documented orders independently of the loader.
// It is a list, one check per documented order; split, the list would be
// scattered.
func checkOrder(t *testing.T, f *spec.File) {
	t.Helper()
	sortedBy := func(what string, names []string) {
		if !slices.IsSorted(names) {
			t.Errorf("%s not sorted: %v", what, names)
		}
	}
	var tools, prompts, validators []string
	for _, x := range f.Tools {
		tools = append(tools, x.Name)
	}
	for _, x := range f.Prompts {
		prompts = append(prompts, x.Name)
	}
	for _, v := range f.Validators {
		validators = append(validators, v.Name)
	}
	sortedBy("tools", tools)
	sortedBy("prompts", prompts)
	sortedBy("validators", validators)
	fieldNames := func(fs []*spec.Field) []string {
		var out []string
		for _, x := range fs {
			out = append(out, x.Name)
		}
		return out
	}
	for _, w := range f.Workflows() {
		sortedBy(w.Name+" arguments", fieldNames(w.Arguments))
		sortedBy(w.Name+" continuation", fieldNames(w.Continuation.Fields))
		// States: breadth-first from the initial state, following next,
		// outcomes by name, a branch's arms and default, decline, cancel,
		// ask again and exhausted (a check's, or an ask's own); the rest by
		// name.
		var want []string
		seen := map[string]bool{}
		queue := []string{w.Initial}
		for len(queue) > 0 {
			name := queue[0]
			queue = queue[1:]
			s := w.State(name)
			if s == nil || seen[name] {
				continue
			}
			seen[name] = true
			want = append(want, name)
			if s.Next != nil {
				queue = append(queue, s.Next.Name)
			}
			var outs []string
			for _, o := range s.Outcomes {
				outs = append(outs, o.Name)
			}
			sortedBy(w.Name+"."+s.Name+" outcomes", outs)
			for _, o := range s.Outcomes {
				queue = append(queue, o.Target.Name)
			}
			if b := s.Branch; b != nil {
				// Cases by value, ranges from the lowest, then the default.
				var values []string
				for _, c := range b.Cases {
					values = append(values, c.Value)
					queue = append(queue, c.Target.Name)
				}
				sortedBy(w.Name+"."+s.Name+" cases", values)
				for i, r := range b.Ranges {
					if i > 0 && b.Ranges[i-1].Lower != nil && (r.Lower == nil || r.Lower.Value < b.Ranges[i-1].Lower.Value) {
						t.Errorf("%s.%s: ranges not from the lowest", w.Name, s.Name)
					}
					queue = append(queue, r.Target.Name)
				}
				if b.Default != nil {
					queue = append(queue, b.Default.Name)
				}
			}
			if s.OnDecline != nil {
				queue = append(queue, s.OnDecline.Name)
			}
			if s.OnCancel != nil {
				queue = append(queue, s.OnCancel.Name)
			}
			if s.OnExpire != nil {
				queue = append(queue, s.OnExpire.Name)
			}
			if a := s.AskAgain; a != nil {
				queue = append(queue, a.State.Name, a.OnExhausted.Name)
			}
			if s.OnExhausted != nil { // an ask bounding its validators with context
				queue = append(queue, s.OnExhausted.Name)
			}
		}
		var rest []string
		for _, s := range w.States {
			if !seen[s.Name] {
				rest = append(rest, s.Name)
			}
		}
		slices.Sort(rest)
		var got []string
		for _, s := range w.States {
			got = append(got, s.Name)
			var keys []string
			for _, q := range s.Requests {
				keys = append(keys, q.Key)
				sortedBy(w.Name+"."+q.Key+" fields", fieldNames(q.Fields))
			}
			sortedBy(w.Name+"."+s.Name+" requests", keys)
		}
		if want = append(want, rest...); !slices.Equal(got, want) {
			t.Errorf("%s: states in order %v, want %v", w.Name, got, want)
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			lo := max(0, i-5)
			return "got:\n" + strings.Join(al[lo:min(len(al), i+3)], "\n") + "\nwant:\n" + strings.Join(bl[lo:min(len(bl), i+3)], "\n")
		}
	}
	return "lengths differ"
}

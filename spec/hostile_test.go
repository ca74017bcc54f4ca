package spec_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/hostile")

// hostileBudget bounds the time one hostile input may take. It is a
// robustness bound (the loader's work is bounded whatever the input), not a
// benchmark, so it is generous.
const hostileBudget = 2 * time.Second

// hostileCase is one input of the corpus.
type hostileCase struct {
	name string // file name; diagnostics name it
	data []byte
}

// generatedHostile builds the inputs too big to commit.
func generatedHostile() []hostileCase {
	const deep = 100_000
	var cs []hostileCase
	add := func(name string, data []byte) { cs = append(cs, hostileCase{name, data}) }

	// One byte over the 8 MiB limit; refused before it is parsed.
	big := bytes.Repeat([]byte("# padding padding padding padding\n"), (8<<20)/34+1)
	add("gen-oversized.mrtr.yaml", append([]byte("version: 1\npackage: hostile\n"), big...))

	add("gen-deep-sequences.mrtr.yaml", []byte("version: 1\npackage: hostile\nx: "+strings.Repeat("[", deep)+strings.Repeat("]", deep)+"\n"))
	add("gen-deep-mappings.mrtr.yaml", []byte("version: 1\npackage: hostile\nx: "+strings.Repeat("{a: ", deep)+"1"+strings.Repeat("}", deep)+"\n"))

	var b strings.Builder
	b.WriteString("version: 1\npackage: hostile\nx:\n")
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "%sk:\n", strings.Repeat(" ", i))
	}
	fmt.Fprintf(&b, "%sv: 1\n", strings.Repeat(" ", 1001))
	add("gen-deep-block.mrtr.yaml", []byte(b.String()))

	// A 2 MiB line, then an error after it.
	add("gen-long-line.mrtr.yaml", []byte("version: 1\npackage: hostile\noutput: "+strings.Repeat("a", 2<<20)+"\nnot_a_key: 1\n"))
	// A key past YAML's 1024-character limit for implicit keys.
	add("gen-long-key.mrtr.yaml", []byte("version: 1\npackage: hostile\n"+strings.Repeat("k", 100_000)+": 1\n"))

	// 10,000 malformed tools: the report is capped, and quick.
	b.Reset()
	b.WriteString("version: 1\npackage: hostile\ntools:\n")
	for i := range 10_000 {
		fmt.Fprintf(&b, "  t%d: 1\n", i)
	}
	add("gen-many-errors.mrtr.yaml", []byte(b.String()))

	// A flat list of 200,000 scalars.
	add("gen-many-nodes.mrtr.yaml", []byte("version: 1\npackage: hostile\nx: ["+strings.Repeat("1,", 200_000)+"1]\n"))
	return cs
}

func hostileCorpus(t testing.TB) []hostileCase {
	t.Helper()
	paths, err := filepath.Glob("testdata/hostile/*.mrtr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cs []hostileCase
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, hostileCase{filepath.Base(p), data})
	}
	return append(cs, generatedHostile()...)
}

// formatText renders diagnostics as `mrtrgen lint` does in text format.
func formatText(ds spec.Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s: %s: %s [%s]\n", d.Pos, d.Severity, d.Message, d.Rule)
		if d.Hint != "" {
			fmt.Fprintf(&b, "\thint: %s\n", d.Hint)
		}
	}
	return b.String()
}

// Every hostile input is refused with positioned diagnostics, quickly, and
// without a panic; what is said about it is pinned by a golden file.
func TestHostileCorpus(t *testing.T) {
	cs := hostileCorpus(t)
	if len(cs) < 25 {
		t.Fatalf("corpus has %d cases, want at least 25", len(cs))
	}
	for _, c := range cs {
		t.Run(strings.TrimSuffix(c.name, spec.Ext), func(t *testing.T) {
			var (
				f  *spec.File
				ds spec.Diagnostics
			)
			parse := func() time.Duration {
				start := time.Now()
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Parse panicked: %v", r)
					}
				}()
				f, ds = spec.Parse(c.name, c.data, spec.Options{})
				return time.Since(start)
			}
			// On a busy machine one run can be slow for reasons of its
			// neighbours: the bound holds if the best of three runs is in it.
			took := parse()
			for i := 0; i < 2 && took > hostileBudget*slowdown; i++ {
				took = min(took, parse())
			}
			if took > hostileBudget*slowdown {
				t.Errorf("took %v, over the %v bound", took, hostileBudget*slowdown)
			}
			if f != nil {
				t.Fatalf("hostile input loaded; diagnostics:\n%s", ds.Error())
			}
			if !ds.HasErrors() {
				t.Fatal("no error reported")
			}
			if len(ds) > 102 {
				t.Errorf("%d diagnostics: the report is not capped", len(ds))
			}
			for _, d := range ds {
				if d.Pos.File != c.name {
					t.Errorf("diagnostic names %q, not the file: %s", d.Pos.File, d)
				}
				wholeFile := d.Pos.Line == 0 && d.Pos.Col == 0 && d.Rule == "input"
				if !wholeFile && (d.Pos.Line < 1 || d.Pos.Col < 1) {
					t.Errorf("diagnostic has no line:col: %s", d)
				}
				if d.Rule == "" || d.Message == "" {
					t.Errorf("diagnostic without rule or message: %#v", d)
				}
			}
			got := formatText(ds)
			golden := filepath.Join("testdata", "hostile", strings.TrimSuffix(c.name, spec.Ext)+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./spec -run TestHostileCorpus -update)", err)
			}
			if got != string(want) {
				t.Errorf("diagnostics changed\n--- got\n%s--- want\n%s", got, want)
			}
			// Same bytes, same answer.
			_, again := spec.Parse(c.name, c.data, spec.Options{})
			if formatText(again) != got {
				t.Errorf("a second load reports differently:\n%s", formatText(again))
			}
		})
	}
}

// Limits are configurable and each is enforced with its own message.
func TestLimits(t *testing.T) {
	const doc = "version: 1\npackage: hostile\nx: {a: {b: [1, 2, 3]}}\n"
	for _, tc := range []struct {
		lim  spec.Limits
		want string
	}{
		{spec.Limits{MaxFileBytes: 10}, "file is larger than 10 bytes"},
		{spec.Limits{MaxDepth: 2}, "nesting deeper than 2 levels"},
		{spec.Limits{MaxNodes: 5}, "the document has more than 5 nodes"},
	} {
		_, ds := spec.Parse("x.mrtr.yaml", []byte(doc), spec.Options{Limits: tc.lim})
		if len(ds) != 1 || !strings.Contains(ds[0].Message, tc.want) || ds[0].Rule != "input" {
			t.Errorf("limits %+v: got %v, want one input error %q", tc.lim, ds, tc.want)
		}
	}
}

// LoadFile reports files it cannot read as errors, not diagnostics, and
// reads no more than the limit of an oversized file.
func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := spec.LoadFile(filepath.Join(dir, "missing.mrtr.yaml"), spec.Options{}); err == nil {
		t.Error("missing file: no error")
	}
	if _, _, err := spec.LoadFile(dir, spec.Options{}); err == nil {
		t.Error("directory: no error")
	}
	p := filepath.Join(dir, "big.mrtr.yaml")
	if err := os.WriteFile(p, bytes.Repeat([]byte("#\n"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	f, ds, err := spec.LoadFile(p, spec.Options{Limits: spec.Limits{MaxFileBytes: 50}})
	if err != nil || f != nil || len(ds) != 1 || ds[0].Pos != (spec.Pos{File: p}) {
		t.Errorf("oversized: f=%v err=%v ds=%v", f, err, ds)
	}
}

package breaking

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// compareExamples loads every example spec twice, as mrtrgen breaking
// does (the work tree's and the revision's), and compares them.
func compareExamples(tb testing.TB, files map[string][]byte) int {
	n := 0
	for p, data := range files {
		old := mustParse(tb, p+"@main", data)
		cur := mustParse(tb, p, data)
		n += len(Compare(old, cur))
	}
	return n
}

func readExamples(tb testing.TB) map[string][]byte {
	files := map[string][]byte{}
	for _, p := range exampleSpecs(tb) {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		files[p] = data
	}
	return files
}

// The whole examples tree is compared in well under a second, loading
// included (the bound; the benchmark below gives the figure).
func TestExamplesCompareFast(t *testing.T) {
	files := readExamples(t)
	start := time.Now()
	compareExamples(t, files)
	if d := time.Since(start); d > slowdown*time.Second {
		t.Errorf("comparing examples/specs took %v, want < %v", d, slowdown*time.Second)
	}
}

func BenchmarkCompareExamples(b *testing.B) {
	files := readExamples(b)
	for b.Loop() {
		compareExamples(b, files)
	}
}

// manyTools repeats the tool of a fixture n times under different names.
func manyTools(data []byte, n int) []byte {
	head, tool, _ := strings.Cut(string(data), "tools:\n")
	var b strings.Builder
	b.WriteString(head + "tools:\n")
	for i := range n {
		b.WriteString(strings.Replace(tool, "  refund_order:", fmt.Sprintf("  refund_order_%d:", i), 1))
	}
	return []byte(b.String())
}

// A spec of 1000 waiting tools, each with a removed state: compare only
// (loading is the loader's benchmark).
func BenchmarkCompare1000Tools(b *testing.B) {
	fx := loadFixtures(b, "rules")
	var state fixture
	for _, f := range fx {
		if f.name == "state-removed" {
			state = f
		}
	}
	old := mustParse(b, "old.mrtr.yaml", manyTools(state.old, 1000))
	cur := mustParse(b, "new.mrtr.yaml", manyTools(state.new, 1000))
	var got []Finding
	for b.Loop() {
		got = Compare(old, cur)
	}
	if len(got) != 1000 {
		b.Fatalf("%d findings, want 1000", len(got))
	}
}

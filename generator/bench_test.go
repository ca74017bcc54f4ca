package generator_test

import (
	"fmt"
	"go/format"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/generator"
	"github.com/mrtrgen/mrtrgen/internal/benchspec"
	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

// generateAll is what generate does in memory: load, lint, generate.
func generateAll(tb testing.TB, data []byte) []generator.File {
	f, ds := spec.Parse("bench.mrtr.yaml", data, spec.Options{})
	if f == nil {
		tb.Fatalf("the benchmark spec does not load:\n%v", ds)
	}
	findings := lint.Run(f)
	if findings.HasErrors() {
		tb.Fatalf("the benchmark spec has lint errors:\n%v", findings)
	}
	files, err := generator.Generate(f, generator.Options{SpecPath: "bench.mrtr.yaml", Linted: true, Findings: findings})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// BenchmarkGenerate measures load + lint + generate of synthetic specs of
// 10, 100 and 1,000 tools, and reports the time per tool (which should
// not grow with the spec).
func BenchmarkGenerate(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		data := benchspec.Refunds(n)
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var files []generator.File
			for b.Loop() {
				files = generateAll(b, data)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
			if want := 4*n + 3; len(files) != want { // per tool its code, tests, handler and handler test scaffolds
				b.Fatalf("%d files, want %d", len(files), want)
			}
		})
	}
}

// BenchmarkGenerateVsGofmt puts the 1,000-tool figure next to a baseline
// measured in the same run: gofmt alone (go/format.Source, on as many
// goroutines as generate uses) of the Go files generate produced. Most of
// generating is formatting; the ratio says how much the rest adds.
func BenchmarkGenerateVsGofmt(b *testing.B) {
	data := benchspec.Refunds(1000)
	files := generateAll(b, data)
	var goFiles [][]byte
	for _, f := range files {
		if strings.HasSuffix(f.Path, ".go") {
			goFiles = append(goFiles, f.Content)
		}
	}
	var gen, fmtd time.Duration
	for b.Loop() {
		start := time.Now()
		generateAll(b, data)
		gen += time.Since(start)
		start = time.Now()
		gofmtAll(b, goFiles)
		fmtd += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(gen.Seconds()/n, "generate-s")
	b.ReportMetric(fmtd.Seconds()/n, "gofmt-s")
	b.ReportMetric(float64(gen)/float64(fmtd), "generate/gofmt")
}

// BenchmarkGenerateParts times generate and gofmt of its output apart, on
// 100 tools, for instruction counts (bench/instructions.sh runs one
// sub-benchmark at two iteration counts on one P; setup cancels out):
//
//	GOGC=400 bash bench/instructions.sh ./generator 'BenchmarkGenerateParts/generate$' 1 2
//	GOGC=400 bash bench/instructions.sh ./generator 'BenchmarkGenerateParts/gofmt$' 1 2
func BenchmarkGenerateParts(b *testing.B) {
	data := benchspec.Refunds(100)
	b.Run("generate", func(b *testing.B) {
		for b.Loop() {
			generateAll(b, data)
		}
	})
	b.Run("gofmt", func(b *testing.B) {
		var goFiles [][]byte
		for _, f := range generateAll(b, data) {
			if strings.HasSuffix(f.Path, ".go") {
				goFiles = append(goFiles, f.Content)
			}
		}
		for b.Loop() {
			gofmtAll(b, goFiles)
		}
	})
}

// gofmtAll formats srcs with go/format on every CPU.
func gofmtAll(tb testing.TB, srcs [][]byte) {
	next := make(chan []byte)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for src := range next {
				if _, err := format.Source(src); err != nil {
					tb.Error(err)
				}
			}
		})
	}
	for _, src := range srcs {
		next <- src
	}
	close(next)
	wg.Wait()
}

// The benchmark's spec is lint-clean and generates (so the benchmark
// measures what it says), and a 100-tool spec stays well within budget
// even on a loaded machine (the benchmark reports the real figures).
func TestBenchSpec(t *testing.T) {
	data := benchspec.Refunds(100)
	start := time.Now()
	f, ds := spec.Parse("bench.mrtr.yaml", data, spec.Options{})
	if f == nil {
		t.Fatal(ds)
	}
	if ds := lint.Run(f); len(ds) > 0 {
		t.Fatalf("lint findings:\n%v", ds)
	}
	if files := generateAll(t, data); len(files) != 3+4*100 { // the package files; per tool its code, tests, handler and handler test scaffolds
		t.Fatalf("%d files", len(files))
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("100 tools took %v", took)
	}
}

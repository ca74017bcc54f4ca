package lint

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/internal/benchspec"
	"github.com/mrtrgen/mrtrgen/spec"
)

// BenchmarkLint1000Tools loads and lints a 1,000-tool spec: the YAML
// parser, the schema, the model and every rule. Target: under 0.5 s a run.
//
//	go test ./lint -run '^$' -bench Lint1000Tools -benchmem
func BenchmarkLint1000Tools(b *testing.B) {
	const tools = 1000
	data := benchspec.Refunds(tools)
	f, ds := loadAndLint("bench.mrtr.yaml", data)
	if f == nil || len(f.Tools) != tools || len(ds) != 0 {
		b.Fatalf("synthetic spec: %d tools, findings:\n%s", len(f.Tools), ds.Error())
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		f, ds := spec.Parse("bench.mrtr.yaml", data, spec.Options{})
		if f == nil {
			b.Fatal(ds.Error())
		}
		if ds := Run(f); len(ds) != 0 {
			b.Fatal(ds.Error())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/tools, "ns/tool")
	// CPU time, all threads (the garbage collector's too): on a busy
	// machine wall time says more about the neighbours than about the code.
	if c := cpuTime(); c > 0 {
		b.ReportMetric(float64(c-cpu)/float64(b.N), "cpu-ns/op")
	}
}

// The benchmark spec (benchspec.Refunds) is what the benchmark says it is, and a tenth of it
// lints clean in a test run (so the benchmark cannot rot unnoticed).
func TestSyntheticSpec(t *testing.T) {
	f, ds := loadAndLint("bench.mrtr.yaml", benchspec.Refunds(100))
	if f == nil || len(ds) != 0 {
		t.Fatalf("findings:\n%s", ds.Error())
	}
	if len(f.Tools) != 100 || len(f.Tools[0].States) != 8 || len(f.Tools[0].State("askReason").Requests[0].Fields) != 4 {
		t.Errorf("unexpected shape: %d tools", len(f.Tools))
	}
}

// BenchmarkRun1000Tools is the lint rules alone on the same spec, loaded
// once.
func BenchmarkRun1000Tools(b *testing.B) {
	const tools = 1000
	f, ds := spec.Parse("bench.mrtr.yaml", benchspec.Refunds(tools), spec.Options{})
	if f == nil {
		b.Fatal(ds.Error())
	}
	b.ReportAllocs()
	for b.Loop() {
		if ds := Run(f); len(ds) != 0 {
			b.Fatal(ds.Error())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/tools, "ns/tool")
}

package spec

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/internal/benchspec"
)

// BenchmarkParse1000Tools loads a 1,000-tool spec: YAML, schema and model.
//
//	go test ./spec -run '^$' -bench 1000Tools -benchmem
func BenchmarkParse1000Tools(b *testing.B) {
	data := benchspec.Refunds(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if f, ds := Parse("bench.mrtr.yaml", data, Options{}); f == nil {
			b.Fatal(ds.Error())
		}
	}
}

// BenchmarkDecode1000Tools is the model phase alone (the decoder and the
// resolver) of a 1,000-tool spec, which Parse runs beside the schema.
func BenchmarkDecode1000Tools(b *testing.B) {
	data := benchspec.Refunds(1000)
	root, ds := parseYAML("bench.mrtr.yaml", data, Limits{}.withDefaults())
	if ds != nil {
		b.Fatal(ds.Error())
	}
	b.ReportAllocs()
	for b.Loop() {
		d := &decoder{file: "bench.mrtr.yaml"}
		f := d.decodeFile(root)
		r := &resolver{f: f}
		r.resolveFile()
		if d.diags.HasErrors() || r.diags.HasErrors() {
			b.Fatal(d.diags.Error(), r.diags.Error())
		}
	}
}

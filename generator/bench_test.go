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
	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

// benchSpec is a spec of n realistic tools: arguments with constraints, a
// continuation, a check, an ask with a form of several field types, a
// confirmation gate, a recheck, an irreversible effect with a business
// idempotency key, and success, cancelled and failed ends.
func benchSpec(n int) []byte {
	var b strings.Builder
	b.WriteString("version: 1\npackage: bench\nvalidators:\n  noSecrets: {type: string, description: Rejects secrets.}\ntools:\n")
	for i := range n {
		fmt.Fprintf(&b, `  refund_order_%[1]d:
    title: Refund order %[1]d
    description: Refunds an order after the customer confirms the amount; never twice.
    destructive: true
    arguments:
      orderId: {type: string, required: true, pattern: 'ord_[0-9]{1,12}', maxLength: 16}
      note: {type: string, maxLength: 200, validate: [noSecrets]}
      priority: {type: enum, values: [low, normal, high], default: normal}
    continuation:
      ttl: 10m
      fields:
        amountCents: {type: integer, minimum: 1, maximum: 100000000}
        currency: {type: enum, values: [EUR, GBP, USD]}
        customer: {type: string, maxLength: 64}
    initial: lookup
    states:
      lookup:
        description: The order exists, was paid, and can be refunded.
        check: orderRefundable
        outcomes:
          refundable: askReason
          notRefundable: refused
      askReason:
        ask:
          reason:
            elicit:
              message: Choose why order {orderId} of {customer} is refunded.
              fields:
                why: {type: enum, required: true, values: [damaged, late, wrong_item, other], titles: {damaged: Arrived damaged, late: Arrived late}}
                detail: {type: string, maxLength: 300, title: Details for the warehouse}
                items: {type: integer, minimum: 1, maximum: 50, default: 1}
                channels: {type: array, maxItems: 2, items: {type: enum, values: [mail, phone]}}
        next: confirmRefund
        onDecline: kept
      confirmRefund:
        confirm:
          message: Refund {amountCents} cents ({currency}) for order {orderId} ({reason.why})?
        next: recheck
        onDecline: kept
        onCancel: kept
      recheck:
        description: The order may have been refunded while the customer decided.
        check: stillRefundable
        next: refund
      refund:
        effect: refundPayment
        irreversible: true
        idempotency:
          key: refund-{orderId}
          retain: 72h
        next: refunded
      refunded:
        terminal: success
        message: Refunded {amountCents} cents for order {orderId} ({reason.why}, {reason.items} items).
      kept:
        terminal: cancelled
        message: Order {orderId} was not refunded.
      refused:
        terminal: failed
        message: Order {orderId} cannot be refunded.
`, i)
	}
	return []byte(b.String())
}

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
		data := benchSpec(n)
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
	data := benchSpec(1000)
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
	data := benchSpec(100)
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

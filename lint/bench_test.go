package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// syntheticSpec writes a spec of n realistic tools: arguments, continuation
// fields, a check, an ask with a form of a few fields, a confirmation gate,
// a recheck, an irreversible effect with a business idempotency key, and
// two terminal states.
func syntheticSpec(n int) []byte {
	var b strings.Builder
	b.WriteString(`# Generated for BenchmarkLint1000Tools.
version: 1
package: bench
validators:
  noSecrets: {type: string, description: Rejects text that looks like a secret.}
tools:
`)
	for i := range n {
		fmt.Fprintf(&b, `  refund_order_%[1]d:
    title: Refund order (%[1]d)
    description: Refund an order after the customer confirms the amount; never refunds twice.
    destructive: true
    arguments:
      orderId: {type: string, required: true, pattern: 'ord_[0-9]{1,12}', maxLength: 16, description: The order to refund.}
      note: {type: string, maxLength: 200, validate: [noSecrets]}
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

// BenchmarkLint1000Tools loads and lints a 1,000-tool spec: the YAML
// parser, the schema, the model and every rule. Target: under 0.5 s a run.
//
//	go test ./lint -run '^$' -bench Lint1000Tools -benchmem
func BenchmarkLint1000Tools(b *testing.B) {
	const tools = 1000
	data := syntheticSpec(tools)
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

// The synthetic spec is what the benchmark says it is, and a tenth of it
// lints clean in a test run (so the benchmark cannot rot unnoticed).
func TestSyntheticSpec(t *testing.T) {
	f, ds := loadAndLint("bench.mrtr.yaml", syntheticSpec(100))
	if f == nil || len(ds) != 0 {
		t.Fatalf("findings:\n%s", ds.Error())
	}
	if len(f.Tools) != 100 || len(f.Tools[0].States) != 8 || len(f.Tools[0].State("askReason").Requests[0].Fields) != 3 {
		t.Errorf("unexpected shape: %d tools", len(f.Tools))
	}
}

// BenchmarkRun1000Tools is the lint rules alone on the same spec, loaded
// once.
func BenchmarkRun1000Tools(b *testing.B) {
	const tools = 1000
	f, ds := spec.Parse("bench.mrtr.yaml", syntheticSpec(tools), spec.Options{})
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

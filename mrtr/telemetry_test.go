package mrtr_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// One span per round with tool, round, outcome and workflow id; counters
// labelled by tool and outcome only.
// One workflow, then what its spans and counters say, in the order the
// rounds ran: one function.
func TestTelemetry(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{
		Audience: "telemetry", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet,
		Store:          store.NewMemory(store.Options{Now: clock.Now}),
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
		Instance:       "instance-a",
	})
	if err != nil {
		t.Fatal(err)
	}
	h := &mrtrtest.Harness[*testprog.TransferFlow]{Program: testprog.NewTransferProgram(&testprog.TransferImpl{}), Engine: e, Clock: clock, Principal: "alice", Capabilities: mrtrtest.AllCapabilities()}
	gate := toGate(t, h)
	call(t, h, transferArgs, gate.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
	// A tampered continuation counts as failed.
	if _, err := h.Call(context.Background(), transferArgs, mrtrtest.Tamper(gate.RequestState), nil); err == nil {
		t.Fatal("tampered state accepted")
	}

	ended := spans.Ended()
	if len(ended) != 4 {
		t.Fatalf("%d spans for 4 rounds", len(ended))
	}
	workflow := ""
	wantOutcomes := []string{"input_required", "input_required", "success", "invalid_state"}
	for i, s := range ended[:3] {
		attrs := map[attribute.Key]attribute.Value{}
		for _, kv := range s.Attributes() {
			attrs[kv.Key] = kv.Value
		}
		if s.Name() != "tools/call transfer" || attrs["gen_ai.tool.name"].AsString() != "transfer" {
			t.Errorf("span %d: %s %v", i, s.Name(), attrs)
		}
		if got := attrs["mrtr.round"].AsInt64(); got != int64(i+1) {
			t.Errorf("span %d: round %d", i, got)
		}
		if got := attrs["mrtr.outcome"].AsString(); got != wantOutcomes[i] {
			t.Errorf("span %d: outcome %s, want %s", i, got, wantOutcomes[i])
		}
		id := attrs["mrtr.workflow.id"].AsString()
		if len(id) != 32 || (workflow != "" && id != workflow) {
			t.Errorf("span %d: workflow id %q (first %q): one id must tie the rounds together", i, id, workflow)
		}
		workflow = id
		if attrs["service.instance.id"].AsString() != "instance-a" {
			t.Errorf("span %d lacks the instance", i)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				t.Fatalf("%s is not an int64 sum", m.Name)
			}
			for _, dp := range sum.DataPoints {
				for _, kv := range dp.Attributes.ToSlice() {
					if kv.Key != "tool" && kv.Key != "outcome" {
						t.Errorf("%s has label %s: only tool and outcome are allowed", m.Name, kv.Key)
					}
				}
				outcome, _ := dp.Attributes.Value("outcome")
				got[m.Name+"/"+outcome.AsString()] += dp.Value
			}
		}
	}
	want := map[string]int64{
		"mcp.mrtr.started/":             1,
		"mcp.mrtr.input_required/":      2,
		"mcp.mrtr.completed/success":    1,
		"mcp.mrtr.failed/invalid_state": 1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}

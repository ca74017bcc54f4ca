package mrtr

import (
	"context"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/otelx"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Telemetry: one span per round, carrying the tool, round number, outcome
// and workflow id (so the rounds of one workflow can be found together),
// and the mcp.mrtr.* counters. Counters are labelled by tool name and
// outcome only: ids go to spans and logs, never to metric labels.

const instrumentation = "github.com/mrtrgen/mrtrgen/mrtr"

type telemetry struct {
	tracer                                                        trace.Tracer
	started, inputRequired, completed, expired, cancelled, failed metric.Int64Counter
	// labels holds the attribute set of each (tool, outcome) pair seen:
	// built once, not on every round (attribute.NewSet sorts and copies).
	labels sync.Map // labelKey → metric.MeasurementOption
	// spans holds the span name and start options of each program seen,
	// likewise built once: they depend only on the program's kind and name
	// and the engine.
	spans sync.Map // spanKey → *spanStart
}

type spanKey struct {
	kind vocab.Kind
	name string
}

// spanStart is how a program's rounds start their span.
type spanStart struct {
	name string
	opts []trace.SpanStartOption
}

// spanStartOf is the span name and options of d's rounds.
func (t *telemetry) spanStartOf(e *Engine, d *mrtrimpl.Descriptor) *spanStart {
	k := spanKey{d.Kind, d.Name}
	if s, ok := t.spans.Load(k); ok {
		return s.(*spanStart)
	}
	// The options are shared by every round: trace.WithAttributes' option
	// appends its attributes to each span's own configuration, never to
	// the slice it holds.
	s, _ := t.spans.LoadOrStore(k, &spanStart{
		name: d.Kind.Method() + " " + d.Name,
		opts: []trace.SpanStartOption{
			trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(
				attribute.String("mcp.method.name", d.Kind.Method()),
				attribute.String(nameAttr(d.Kind), d.Name),
				attribute.String("service.instance.id", e.cfg.Instance),
			),
		},
	})
	return s.(*spanStart)
}

type labelKey struct{ tool, outcome string }

// labelled is the measurement option labelling a counter with tool, and
// with outcome unless it is "".
func (t *telemetry) labelled(tool, outcome string) metric.MeasurementOption {
	k := labelKey{tool, outcome}
	if o, ok := t.labels.Load(k); ok {
		return o.(metric.MeasurementOption)
	}
	attrs := []attribute.KeyValue{attribute.String("tool", tool)}
	if outcome != "" {
		attrs = append(attrs, attribute.String("outcome", outcome))
	}
	o, _ := t.labels.LoadOrStore(k, metric.WithAttributeSet(attribute.NewSet(attrs...)))
	return o.(metric.MeasurementOption)
}

func newTelemetry(tp trace.TracerProvider, mp metric.MeterProvider) (*telemetry, error) {
	t := &telemetry{}
	if err := otelx.Instruments(tp, mp, instrumentation, "{round}", &t.tracer, t.counters()); err != nil {
		return nil, err
	}
	return t, nil
}

// roundTelemetry follows one round.
type roundTelemetry struct {
	t        *telemetry
	d        *mrtrimpl.Descriptor
	span     trace.Span
	outcome  string
	replayed bool
	states   []string
}

func (t *telemetry) begin(ctx context.Context, e *Engine, d *mrtrimpl.Descriptor, first bool) (context.Context, *roundTelemetry) {
	ss := t.spanStartOf(e, d)
	ctx, span := t.tracer.Start(ctx, ss.name, ss.opts...)
	if first {
		t.started.Add(ctx, 1, t.labelled(d.Name, ""))
	}
	return ctx, &roundTelemetry{t: t, d: d, span: span}
}

func nameAttr(k vocab.Kind) string {
	switch k {
	case vocab.KindPrompt:
		return "mcp.prompt.name"
	case vocab.KindResource:
		return "mcp.resource.name"
	}
	return "gen_ai.tool.name"
}

func (rt *roundTelemetry) workflow(id string, round int) {
	if rt.span.IsRecording() {
		rt.span.SetAttributes(attribute.String("mrtr.workflow.id", id), attribute.Int("mrtr.round", round))
	}
}

// visit notes a state the round ran, for the span (only when it records).
func (rt *roundTelemetry) visit(state string) {
	if rt.span.IsRecording() {
		rt.states = append(rt.states, state)
	}
}

func (rt *roundTelemetry) end(ctx context.Context, reply *Reply, err error) {
	defer rt.span.End()
	outcome := rt.outcome
	switch {
	case rt.replayed:
		outcome = "replayed"
	case outcome == "" && err != nil:
		outcome = "error"
	}
	if rt.span.IsRecording() { // no attributes built for a no-op tracer
		rt.span.SetAttributes(
			attribute.String("mrtr.outcome", outcome),
			attribute.Bool("mrtr.replayed", rt.replayed),
			attribute.String("mrtr.states", strings.Join(rt.states, " > ")),
		)
		if err != nil {
			rt.span.SetStatus(codes.Error, err.Error())
		}
	}
	if rt.replayed {
		return // counted when it first ran
	}
	t, tool := rt.t, rt.d.Name
	switch {
	case outcome == "input_required":
		t.inputRequired.Add(ctx, 1, t.labelled(tool, ""))
	case outcome == "task":
		// The round handed the workflow to a task: counted by the tasks
		// extension (mcp.mrtr.tasks.created).
	case outcome == "expired":
		t.expired.Add(ctx, 1, t.labelled(tool, ""))
	case outcome == "cancelled" && reply == nil:
		t.cancelled.Add(ctx, 1, t.labelled(tool, ""))
	case reply != nil && reply.Final != nil && !reply.Final.IsError() || outcome == string(OutcomeFailed):
		t.completed.Add(ctx, 1, t.labelled(tool, outcome))
	default:
		t.failed.Add(ctx, 1, t.labelled(tool, outcome))
	}
}

// counters are the round counters newTelemetry makes.
func (t *telemetry) counters() []otelx.Counter {
	return []otelx.Counter{
		{Dst: &t.started, Name: "mcp.mrtr.started", Desc: "Workflows started (first rounds)."},
		{Dst: &t.inputRequired, Name: "mcp.mrtr.input_required", Desc: "Rounds that ended asking for input."},
		{Dst: &t.completed, Name: "mcp.mrtr.completed", Desc: "Workflows that reached a terminal state (success, cancelled by the user, or a designed failure)."},
		{Dst: &t.expired, Name: "mcp.mrtr.expired", Desc: "Rounds refused because their requestState expired."},
		{Dst: &t.cancelled, Name: "mcp.mrtr.cancelled", Desc: "Rounds abandoned because the client cancelled the request."},
		{Dst: &t.failed, Name: "mcp.mrtr.failed", Desc: "Rounds that failed: rejected, unauthorized, invalid input or state, dependency errors."},
	}
}

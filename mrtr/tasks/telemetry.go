package tasks

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/otelx"
)

// Telemetry: a span per task transition (created, asked, answered, ended)
// carrying the tool, task id and status, and the mcp.mrtr.tasks.*
// counters labelled by tool and outcome only (ids go to spans, never to
// metric labels).

const instrumentation = "github.com/mrtrgen/mrtrgen/mrtr/tasks"

type telemetry struct {
	tracer                        trace.Tracer
	createdN, transitions, endedN metric.Int64Counter
}

func newTelemetry(tp trace.TracerProvider, mp metric.MeterProvider) (*telemetry, error) {
	t := &telemetry{}
	if err := otelx.Instruments(tp, mp, instrumentation, "{task}", &t.tracer, t.counters()); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *telemetry) span(ctx context.Context, name string, r *Record) trace.Span {
	_, s := t.tracer.Start(ctx, "task "+name+" "+r.Tool, trace.WithAttributes(
		attribute.String("gen_ai.tool.name", r.Tool),
		attribute.String("mcp.task.id", r.ID),
		attribute.String("mcp.task.status", string(r.Status)),
		attribute.String("service.instance.id", r.Owner),
	))
	return s
}

func (t *telemetry) created(ctx context.Context, r *Record) {
	t.span(ctx, "created", r).End()
	t.createdN.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", r.Tool)))
}

func (t *telemetry) transition(ctx context.Context, r *Record, what string) {
	t.span(ctx, what, r).End()
	t.transitions.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", r.Tool), attribute.String("outcome", what)))
}

func (t *telemetry) ended(ctx context.Context, r *Record) {
	s := t.span(ctx, "ended", r)
	if r.Status == StatusFailed && r.Error != nil {
		s.SetStatus(codes.Error, r.Error.Message)
	}
	s.End()
	t.endedN.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", r.Tool), attribute.String("outcome", string(r.Status))))
}

// counters are the task counters newTelemetry makes.
func (t *telemetry) counters() []otelx.Counter {
	return []otelx.Counter{
		{Dst: &t.createdN, Name: "mcp.mrtr.tasks.created", Desc: "Tasks created."},
		{Dst: &t.transitions, Name: "mcp.mrtr.tasks.transitions", Desc: "Task transitions other than creation and end (asked for input, answered)."},
		{Dst: &t.endedN, Name: "mcp.mrtr.tasks.ended", Desc: "Tasks that reached a terminal status (completed, failed, cancelled)."},
	}
}

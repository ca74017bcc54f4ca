package tasks

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
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
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(instrumentation)
	t := &telemetry{tracer: tp.Tracer(instrumentation)}
	for _, c := range []struct {
		dst        *metric.Int64Counter
		name, desc string
	}{
		{&t.createdN, "mcp.mrtr.tasks.created", "Tasks created."},
		{&t.transitions, "mcp.mrtr.tasks.transitions", "Task transitions other than creation and end (asked for input, answered)."},
		{&t.endedN, "mcp.mrtr.tasks.ended", "Tasks that reached a terminal status (completed, failed, cancelled)."},
	} {
		ctr, err := m.Int64Counter(c.name, metric.WithDescription(c.desc), metric.WithUnit("{task}"))
		if err != nil {
			return nil, err
		}
		*c.dst = ctr
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

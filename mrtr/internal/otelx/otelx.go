// Package otelx is what the telemetry of mrtr and mrtr/tasks shares:
// taking the tracer and the counters of an instrumentation scope from the
// providers a Config names, or from the global ones.
package otelx

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Counter is one counter Instruments makes: where it goes, its name and
// its description.
type Counter struct {
	Dst        *metric.Int64Counter
	Name, Desc string
}

// Instruments sets tracer to the tracer of instrumentation from tp and
// makes each of counters, counting unit, from mp's meter of
// instrumentation. A nil tp or mp is the global provider.
func Instruments(tp trace.TracerProvider, mp metric.MeterProvider, instrumentation, unit string, tracer *trace.Tracer, counters []Counter) error { //nolint:gocritic // ptrToRefParam: tracer is set where it goes, as the counters are
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	*tracer = tp.Tracer(instrumentation)
	m := mp.Meter(instrumentation)
	for _, c := range counters {
		ctr, err := m.Int64Counter(c.Name, metric.WithDescription(c.Desc), metric.WithUnit(unit))
		if err != nil {
			return err
		}
		*c.Dst = ctr
	}
	return nil
}

package otlp

import (
	"context"
	"math"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// MetricExporter sends metrics as an ExportMetricsServiceRequest, with
// the SDK's default temporality (cumulative) and aggregations.
type MetricExporter struct{ c *Client }

var _ sdkmetric.Exporter = (*MetricExporter)(nil)

// NewMetricExporter sends to c.
func NewMetricExporter(c *Client) *MetricExporter { return &MetricExporter{c: c} }

// Temporality is the SDK's default: cumulative.
func (x *MetricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

// Aggregation is the SDK's default for k.
func (x *MetricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

// Export sends one request with rm.
func (x *MetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	b, n := encodeMetrics(rm)
	if n == 0 {
		return nil
	}
	return x.c.Send(ctx, b)
}

// ForceFlush has nothing buffered.
func (x *MetricExporter) ForceFlush(context.Context) error { return nil }

// Shutdown has nothing to release.
func (x *MetricExporter) Shutdown(context.Context) error { return nil }

// encodeMetrics is collector.metrics.v1.ExportMetricsServiceRequest
// {resource_metrics = 1}: ResourceMetrics {resource = 1, scope_metrics =
// 2}, ScopeMetrics {scope = 1, metrics = 2}. n is how many metrics it
// holds.
func encodeMetrics(rm *metricdata.ResourceMetrics) (b []byte, n int) {
	var req buf
	req.msg(1, func(r *buf) {
		resourceMsg(r, 1, rm.Resource)
		for _, sm := range rm.ScopeMetrics {
			r.msg(2, func(s *buf) {
				scopeMsg(s, 1, sm.Scope)
				for _, m := range sm.Metrics {
					if metric(s, m) {
						n++
					}
				}
			})
		}
	})
	return req.b, n
}

// metric writes metrics.v1.Metric {name = 1, description = 2, unit = 3,
// gauge = 5 | sum = 7 | histogram = 9}; false for data it does not know.
func metric(s *buf, m metricdata.Metrics) bool {
	var body func(*buf)
	field := 0
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		field, body = 7, func(b *buf) { sum(b, d.DataPoints, d.Temporality, d.IsMonotonic) }
	case metricdata.Sum[float64]:
		field, body = 7, func(b *buf) { sum(b, d.DataPoints, d.Temporality, d.IsMonotonic) }
	case metricdata.Gauge[int64]:
		field, body = 5, func(b *buf) { numberPoints(b, d.DataPoints) }
	case metricdata.Gauge[float64]:
		field, body = 5, func(b *buf) { numberPoints(b, d.DataPoints) }
	case metricdata.Histogram[int64]:
		field, body = 9, func(b *buf) { histogram(b, d) }
	case metricdata.Histogram[float64]:
		field, body = 9, func(b *buf) { histogram(b, d) }
	default:
		return false
	}
	s.msg(2, func(mb *buf) {
		mb.str(1, m.Name)
		mb.str(2, m.Description)
		mb.str(3, m.Unit)
		mb.msg(field, body)
	})
	return true
}

// temporality maps the SDK's temporality to OTLP's (DELTA 1, CUMULATIVE 2).
func temporality(t metricdata.Temporality) uint64 {
	if t == metricdata.DeltaTemporality {
		return 1
	}
	return 2
}

// sum writes metrics.v1.Sum {data_points = 1, aggregation_temporality = 2,
// is_monotonic = 3}.
func sum[N int64 | float64](b *buf, pts []metricdata.DataPoint[N], t metricdata.Temporality, mono bool) {
	numberPoints(b, pts)
	b.varint(2, temporality(t))
	if mono {
		b.boolv(3, true)
	}
}

// numberPoints writes NumberDataPoint {start_time_unix_nano = 2,
// time_unix_nano = 3, as_double = 4 | as_int = 6, attributes = 7} for
// each point, as field 1.
func numberPoints[N int64 | float64](b *buf, pts []metricdata.DataPoint[N]) {
	for _, p := range pts {
		b.msg(1, func(d *buf) {
			d.fixed64(2, uint64(p.StartTime.UnixNano()))
			d.fixed64(3, uint64(p.Time.UnixNano()))
			switch v := any(p.Value).(type) {
			case int64:
				d.fixed64Always(6, uint64(v))
			case float64:
				d.double(4, v)
			}
			attrs(d, 7, p.Attributes.ToSlice())
		})
	}
}

// histogram writes metrics.v1.Histogram {data_points = 1,
// aggregation_temporality = 2} with HistogramDataPoint {start 2, time 3,
// count 4, sum 5, bucket_counts 6, explicit_bounds 7, attributes 9, min
// 11, max 12}.
func histogram[N int64 | float64](b *buf, h metricdata.Histogram[N]) {
	for _, p := range h.DataPoints {
		b.msg(1, func(d *buf) {
			d.fixed64(2, uint64(p.StartTime.UnixNano()))
			d.fixed64(3, uint64(p.Time.UnixNano()))
			d.fixed64Always(4, p.Count)
			d.double(5, float64(p.Sum))
			d.packedFixed64(6, p.BucketCounts)
			bounds := make([]uint64, len(p.Bounds))
			for i, f := range p.Bounds {
				bounds[i] = math.Float64bits(f)
			}
			d.packedFixed64(7, bounds)
			attrs(d, 9, p.Attributes.ToSlice())
			if v, ok := p.Min.Value(); ok {
				d.double(11, float64(v))
			}
			if v, ok := p.Max.Value(); ok {
				d.double(12, float64(v))
			}
		})
	}
	b.varint(2, temporality(h.Temporality))
}

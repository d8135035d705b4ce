package otlp

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
)

// LogExporter sends log records (clawdcode's events) as an
// ExportLogsServiceRequest.
type LogExporter struct{ c *Client }

var _ sdklog.Exporter = (*LogExporter)(nil)

// NewLogExporter sends to c.
func NewLogExporter(c *Client) *LogExporter { return &LogExporter{c: c} }

// Export sends one request with recs.
func (x *LogExporter) Export(ctx context.Context, recs []sdklog.Record) error {
	if len(recs) == 0 {
		return nil
	}
	return x.c.Send(ctx, encodeLogs(recs))
}

// ForceFlush has nothing buffered.
func (x *LogExporter) ForceFlush(context.Context) error { return nil }

// Shutdown has nothing to release.
func (x *LogExporter) Shutdown(context.Context) error { return nil }

// encodeLogs is collector.logs.v1.ExportLogsServiceRequest
// {resource_logs = 1}: ResourceLogs {resource = 1, scope_logs = 2},
// ScopeLogs {scope = 1, log_records = 2}.
func encodeLogs(recs []sdklog.Record) []byte {
	order, idx := byScope(len(recs), func(i int) instrumentation.Scope { return recs[i].InstrumentationScope() })
	var req buf
	req.msg(1, func(rl *buf) {
		resourceMsg(rl, 1, recs[0].Resource())
		for _, sc := range order {
			rl.msg(2, func(sl *buf) {
				scopeMsg(sl, 1, sc)
				for _, i := range idx[sc] {
					sl.msg(2, func(m *buf) { logRecord(m, &recs[i]) })
				}
			})
		}
	})
	return req.b
}

// logRecord writes logs.v1.LogRecord {time 1, severity_number 2,
// severity_text 3, body 5, attributes 6, dropped 7, flags 8, trace_id 9,
// span_id 10, observed_time 11, event_name 12}.
func logRecord(m *buf, r *sdklog.Record) {
	m.fixed64(1, uint64(r.Timestamp().UnixNano()))
	m.varint(2, uint64(r.Severity()))
	m.str(3, r.SeverityText())
	if body := r.Body(); body.Type() != attribute.EMPTY {
		m.msg(5, func(v *buf) { attrValue(v, body) })
	}
	r.WalkAttributes(func(kv attribute.KeyValue) bool {
		keyValue(m, 6, kv)
		return true
	})
	m.varint(7, uint64(r.DroppedAttributes()))
	m.fixed32(8, uint32(r.TraceFlags()))
	if tid := r.TraceID(); tid.IsValid() {
		m.bytes(9, tid[:])
	}
	if sid := r.SpanID(); sid.IsValid() {
		m.bytes(10, sid[:])
	}
	m.fixed64(11, uint64(r.ObservedTimestamp().UnixNano()))
	m.str(12, r.EventName())
}

package otlp

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// SpanExporter sends spans as an ExportTraceServiceRequest.
type SpanExporter struct{ c *Client }

var _ sdktrace.SpanExporter = (*SpanExporter)(nil)

// NewSpanExporter sends to c.
func NewSpanExporter(c *Client) *SpanExporter { return &SpanExporter{c: c} }

// ExportSpans sends one request with spans.
func (x *SpanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return x.c.Send(ctx, encodeSpans(spans))
}

// Shutdown has nothing to release: each export is one request.
func (x *SpanExporter) Shutdown(context.Context) error { return nil }

// encodeSpans is collector.trace.v1.ExportTraceServiceRequest
// {resource_spans = 1}: ResourceSpans {resource = 1, scope_spans = 2},
// ScopeSpans {scope = 1, spans = 2}. The spans of one provider share its
// resource; they are grouped by scope in the order met.
func encodeSpans(spans []sdktrace.ReadOnlySpan) []byte {
	order, idx := byScope(len(spans), func(i int) instrumentation.Scope { return spans[i].InstrumentationScope() })
	var req buf
	req.msg(1, func(rs *buf) {
		resourceMsg(rs, 1, spans[0].Resource())
		for _, sc := range order {
			rs.msg(2, func(ss *buf) {
				scopeMsg(ss, 1, sc)
				for _, i := range idx[sc] {
					ss.msg(2, func(m *buf) { span(m, spans[i]) })
				}
			})
		}
	})
	return req.b
}

// span writes trace.v1.Span.
func span(m *buf, s sdktrace.ReadOnlySpan) {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	m.bytes(1, tid[:])
	m.bytes(2, sid[:])
	m.str(3, sc.TraceState().String())
	if p := s.Parent(); p.IsValid() {
		psid := p.SpanID()
		m.bytes(4, psid[:])
	}
	m.str(5, s.Name())
	m.varint(6, uint64(s.SpanKind()))
	m.fixed64(7, uint64(s.StartTime().UnixNano()))
	m.fixed64(8, uint64(s.EndTime().UnixNano()))
	attrs(m, 9, s.Attributes())
	m.varint(10, uint64(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		m.msg(11, func(e *buf) {
			e.fixed64(1, uint64(ev.Time.UnixNano()))
			e.str(2, ev.Name)
			attrs(e, 3, ev.Attributes)
			e.varint(4, uint64(ev.DroppedAttributeCount))
		})
	}
	m.varint(12, uint64(s.DroppedEvents()))
	for _, l := range s.Links() {
		m.msg(13, func(e *buf) {
			ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			e.bytes(1, ltid[:])
			e.bytes(2, lsid[:])
			e.str(3, l.SpanContext.TraceState().String())
			attrs(e, 4, l.Attributes)
			e.varint(5, uint64(l.DroppedAttributeCount))
		})
	}
	m.varint(14, uint64(s.DroppedLinks()))
	st := s.Status()
	if st.Code != codes.Unset {
		m.msg(15, func(e *buf) {
			e.str(2, st.Description)
			// OTLP's codes: OK 1, ERROR 2 (the API's: Error 1, Ok 2).
			if st.Code == codes.Ok {
				e.varint(3, 1)
			} else {
				e.varint(3, 2)
			}
		})
	}
	// flags: the W3C trace flags, and that the parent's remoteness is known.
	flags := uint32(sc.TraceFlags()) | 0x100
	if s.Parent().IsRemote() {
		flags |= 0x200
	}
	m.fixed32(16, flags)
}

package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otellog "go.opentelemetry.io/otel/log"
	otelmetric "go.opentelemetry.io/otel/metric"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// sink is an OTLP/HTTP endpoint that keeps each request's decompressed
// body and headers.
type sink struct {
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
}

func newSink(t *testing.T) (*sink, *httptest.Server) {
	s := &sink{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		s.mu.Lock()
		s.bodies = append(s.bodies, b)
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *sink) last(t *testing.T) ([]byte, http.Header) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		t.Fatal("nothing was exported")
	}
	return s.bodies[len(s.bodies)-1], s.headers[len(s.headers)-1]
}

func attrMap(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

var res = resource.NewSchemaless(attribute.String("service.name", "clawdcode"))

// What the span exporter writes decodes, with the generated OTLP types,
// into the spans the SDK recorded: names, ids, parents, kind, times,
// attributes of every type, events and status.
func TestSpansDecodeAsOTLP(t *testing.T) {
	s, srv := newSink(t)
	c := NewClient(srv.URL+"/v1/traces", map[string]string{"x-team": "a b"}, true, 5*time.Second)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(NewSpanExporter(c)), sdktrace.WithResource(res))
	tr := tp.Tracer("scope", trace.WithInstrumentationVersion("1.2"))
	ctx, parent := tr.Start(context.Background(), "invoke_agent clawdcode")
	_, child := tr.Start(ctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.request.model", "gpt-4o"), attribute.Int("gen_ai.usage.input_tokens", 1234),
		attribute.Float64("f", 1.5), attribute.Bool("b", true), attribute.StringSlice("gen_ai.response.finish_reasons", []string{"stop"}),
		attribute.Int("zero", 0), attribute.String("empty", "")))
	child.AddEvent("retry", trace.WithAttributes(attribute.Int("attempt", 2)))
	child.SetStatus(codes.Error, "model call failed")
	child.End()
	parent.End()

	// The syncer exports each span as it ends: the child first.
	s.mu.Lock()
	body, hdr := s.bodies[0], s.headers[0]
	s.mu.Unlock()
	if hdr.Get("Content-Type") != "application/x-protobuf" || hdr.Get("X-Team") != "a b" {
		t.Errorf("headers %v", hdr)
	}
	var d tracepb.TracesData
	if err := proto.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	rs := d.ResourceSpans[0]
	if a := attrMap(rs.Resource.Attributes); a["service.name"].GetStringValue() != "clawdcode" {
		t.Errorf("resource %v", rs.Resource)
	}
	ss := rs.ScopeSpans[0]
	if ss.Scope.Name != "scope" || ss.Scope.Version != "1.2" || len(ss.Spans) != 1 {
		t.Fatalf("scope spans %v", ss)
	}
	got := ss.Spans[0]
	psc := parent.SpanContext()
	psid, ptid := psc.SpanID(), psc.TraceID()
	if got.Name != "chat gpt-4o" || !bytes.Equal(got.ParentSpanId, psid[:]) || !bytes.Equal(got.TraceId, ptid[:]) ||
		got.Kind != tracepb.Span_SPAN_KIND_CLIENT || got.EndTimeUnixNano <= got.StartTimeUnixNano {
		t.Errorf("span %v", got)
	}
	a := attrMap(got.Attributes)
	if a["gen_ai.request.model"].GetStringValue() != "gpt-4o" || a["gen_ai.usage.input_tokens"].GetIntValue() != 1234 ||
		a["f"].GetDoubleValue() != 1.5 || !a["b"].GetBoolValue() || a["gen_ai.response.finish_reasons"].GetArrayValue().GetValues()[0].GetStringValue() != "stop" {
		t.Errorf("attributes %v", got.Attributes)
	}
	if v, ok := a["zero"].GetValue().(*commonpb.AnyValue_IntValue); !ok || v.IntValue != 0 {
		t.Errorf("a zero int is not an int: %v", a["zero"])
	}
	if v, ok := a["empty"].GetValue().(*commonpb.AnyValue_StringValue); !ok || v.StringValue != "" {
		t.Errorf("an empty string is not a string: %v", a["empty"])
	}
	if len(got.Events) != 1 || got.Events[0].Name != "retry" || attrMap(got.Events[0].Attributes)["attempt"].GetIntValue() != 2 {
		t.Errorf("events %v", got.Events)
	}
	if got.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || got.Status.GetMessage() != "model call failed" {
		t.Errorf("status %v", got.Status)
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Counters decode as monotonic cumulative sums, integer and floating, per
// attribute set.
func TestMetricsDecodeAsOTLP(t *testing.T) {
	s, srv := newSink(t)
	exp := NewMetricExporter(NewClient(srv.URL+"/v1/metrics", nil, false, 5*time.Second))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
	m := mp.Meter("scope")
	tok, _ := m.Int64Counter("clawdcode.token.usage")
	cost, _ := m.Float64Counter("clawdcode.cost.usage")
	ctx := context.Background()
	tok.Add(ctx, 100, metricAttrs("type", "input"))
	tok.Add(ctx, 50, metricAttrs("type", "input"))
	tok.Add(ctx, 7, metricAttrs("type", "output"))
	cost.Add(ctx, 0.25)
	if err := mp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	body, _ := s.last(t)
	var d metricspb.MetricsData
	if err := proto.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	got := map[string]*metricspb.Metric{}
	for _, mm := range d.ResourceMetrics[0].ScopeMetrics[0].Metrics {
		got[mm.Name] = mm
	}
	sum := got["clawdcode.token.usage"].GetSum()
	if sum == nil || !sum.IsMonotonic || sum.AggregationTemporality != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
		t.Fatalf("token.usage %v", got["clawdcode.token.usage"])
	}
	byType := map[string]int64{}
	for _, p := range sum.DataPoints {
		byType[attrMap(p.Attributes)["type"].GetStringValue()] = p.GetAsInt()
	}
	if byType["input"] != 150 || byType["output"] != 7 {
		t.Errorf("token.usage points %v", byType)
	}
	if c := got["clawdcode.cost.usage"].GetSum().GetDataPoints()[0].GetAsDouble(); c != 0.25 {
		t.Errorf("cost.usage %v", c)
	}
}

func metricAttrs(k, v string) otelmetric.AddOption {
	return otelmetric.WithAttributes(attribute.String(k, v))
}

// A log record decodes with its event name, body, attributes and the
// span it was emitted under.
func TestLogsDecodeAsOTLP(t *testing.T) {
	s, srv := newSink(t)
	exp := NewLogExporter(NewClient(srv.URL+"/v1/logs", nil, false, 5*time.Second))
	lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewSimpleProcessor(exp)), sdklog.WithResource(res))
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("t").Start(context.Background(), "turn")
	var r otellog.Record
	r.SetEventName("clawdcode.compaction")
	r.SetTimestamp(time.Now())
	r.SetSeverity(otellog.SeverityInfo)
	r.SetBody(attribute.StringValue("clawdcode.compaction"))
	r.AddAttributes(attribute.String("session.id", "s1"), attribute.Int("pre_tokens", 3000))
	lp.Logger("scope").Emit(ctx, r)
	span.End()
	tid := span.SpanContext().TraceID()
	body, _ := s.last(t)
	var d logspb.LogsData
	if err := proto.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	got := d.ResourceLogs[0].ScopeLogs[0].LogRecords[0]
	a := attrMap(got.Attributes)
	if got.EventName != "clawdcode.compaction" || got.Body.GetStringValue() != "clawdcode.compaction" ||
		a["session.id"].GetStringValue() != "s1" || a["pre_tokens"].GetIntValue() != 3000 ||
		got.SeverityNumber != logspb.SeverityNumber_SEVERITY_NUMBER_INFO || !bytes.Equal(got.TraceId, tid[:]) {
		t.Errorf("log record %v", got)
	}
	if err := lp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

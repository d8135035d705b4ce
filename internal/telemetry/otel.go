package telemetry

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutlog"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/log"
	lognoop "go.opentelemetry.io/otel/log/noop"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/clawdcode/clawdcode/internal/telemetry/otlp"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// ExitFlush bounds the export of what is left when the process ends:
// whatever the collector does (down, slow, refusing), Shutdown returns
// within it.
const ExitFlush = 2 * time.Second

// scopeName names clawdcode's instruments, tracer and logger.
const scopeName = "github.com/clawdcode/clawdcode"

// Telemetry is telemetry switched on: the SDK's providers, clawdcode's
// instruments, and the Hooks the engine calls.
type Telemetry struct {
	set     Settings
	prices  tokens.Prices
	tp      *sdktrace.TracerProvider
	mp      *sdkmetric.MeterProvider
	lp      *sdklog.LoggerProvider
	clients []*otlp.Client

	tracer trace.Tracer
	logger log.Logger
	inst   instruments
	// counted are the sessions already counted by clawdcode.session.count.
	counted sync.Map
	// current is the session of a call made outside any turn (a slash
	// command's: /compact's summary call); see SessionFallback.
	current atomic.Pointer[func() string]
}

// SessionFallback names the session of model calls made outside a turn
// (a slash command's), so that they carry session.id too: current is
// asked at each such call.
func (t *Telemetry) SessionFallback(current func() string) { t.current.Store(&current) }

// session is ctx's turn's session, else the fallback's.
func (t *Telemetry) session(ctx context.Context) string {
	if s := SessionOf(ctx); s != "" {
		return s
	}
	if f := t.current.Load(); f != nil {
		return (*f)()
	}
	return ""
}

var _ Hooks = (*Telemetry)(nil)

type instruments struct {
	sessions, tokens, compactions, decisions, lines metric.Int64Counter
	cost                                            metric.Float64Counter
}

// Start builds the providers that set asks for. It is called only when
// telemetry is on: a run with it off never reaches the SDK. Console
// exporters write to errOut; the SDK's own errors (an export that
// failed) go to logger, never to the terminal. version is clawdcode's.
func Start(set Settings, version string, prices tokens.Prices, errOut io.Writer, logger *slog.Logger) (*Telemetry, error) {
	otel.SetLogger(logr.Discard())
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		if logger != nil {
			logger.Warn("telemetry export", "err", err)
		}
	}))
	res := newResource(set, version)
	t := &Telemetry{set: set, prices: prices}
	var err error
	if t.tp, err = t.traces(res, errOut); err != nil {
		return nil, err
	}
	if t.mp, err = t.metrics(res, errOut); err != nil {
		return nil, err
	}
	if t.lp, err = t.logs(res, errOut); err != nil {
		return nil, err
	}
	t.tracer = tracenoop.NewTracerProvider().Tracer(scopeName)
	if t.tp != nil {
		t.tracer = t.tp.Tracer(scopeName, trace.WithInstrumentationVersion(version))
	}
	var mp metric.MeterProvider = metricnoop.NewMeterProvider()
	if t.mp != nil {
		mp = t.mp
	}
	var lp log.LoggerProvider = lognoop.NewLoggerProvider()
	if t.lp != nil {
		lp = t.lp
	}
	t.logger = lp.Logger(scopeName, log.WithInstrumentationVersion(version))
	if err := t.inst.make(mp.Meter(scopeName, metric.WithInstrumentationVersion(version))); err != nil {
		return nil, err
	}
	return t, nil
}

// newResource is service.name clawdcode, its version, the process's own
// service.instance.id (each run's counters start from zero: a collector
// tells one run's cumulative series from the next by it), and
// OTEL_RESOURCE_ATTRIBUTES (which cannot rename the service).
func newResource(set Settings, version string) *resource.Resource {
	kvs := make([]attribute.KeyValue, 0, len(set.ResourceAttributes)+2)
	for k, v := range set.ResourceAttributes {
		if k != "service.name" {
			kvs = append(kvs, attribute.String(k, v))
		}
	}
	kvs = append(kvs, attribute.String("service.name", "clawdcode"), attribute.String("service.version", version),
		attribute.String("service.instance.id", uuid.NewString()))
	return resource.NewSchemaless(kvs...)
}

func (t *Telemetry) client(s Signal) *otlp.Client {
	c := otlp.NewClient(s.URL, s.Headers, s.Gzip, s.Timeout)
	t.clients = append(t.clients, c)
	return c
}

func (t *Telemetry) traces(res *resource.Resource, errOut io.Writer) (*sdktrace.TracerProvider, error) {
	var exp sdktrace.SpanExporter
	switch t.set.Traces.Exporter {
	case ExporterOTLP:
		exp = otlp.NewSpanExporter(t.client(t.set.Traces))
	case ExporterConsole:
		e, err := stdouttrace.New(stdouttrace.WithWriter(errOut))
		if err != nil {
			return nil, err
		}
		exp = e
	default:
		return nil, nil
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

func (t *Telemetry) metrics(res *resource.Resource, errOut io.Writer) (*sdkmetric.MeterProvider, error) {
	var exp sdkmetric.Exporter
	switch t.set.Metrics.Exporter {
	case ExporterOTLP:
		exp = otlp.NewMetricExporter(t.client(t.set.Metrics))
	case ExporterConsole:
		e, err := stdoutmetric.New(stdoutmetric.WithWriter(errOut))
		if err != nil {
			return nil, err
		}
		exp = e
	default:
		return nil, nil
	}
	var opts []sdkmetric.PeriodicReaderOption
	if t.set.MetricInterval > 0 {
		opts = append(opts, sdkmetric.WithInterval(t.set.MetricInterval))
	}
	return sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, opts...)), sdkmetric.WithResource(res)), nil
}

func (t *Telemetry) logs(res *resource.Resource, errOut io.Writer) (*sdklog.LoggerProvider, error) {
	var exp sdklog.Exporter
	switch t.set.Logs.Exporter {
	case ExporterOTLP:
		exp = otlp.NewLogExporter(t.client(t.set.Logs))
	case ExporterConsole:
		e, err := stdoutlog.New(stdoutlog.WithWriter(errOut))
		if err != nil {
			return nil, err
		}
		exp = e
	default:
		return nil, nil
	}
	return sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewBatchProcessor(exp)), sdklog.WithResource(res)), nil
}

func (in *instruments) make(m metric.Meter) error {
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	in.sessions, err = m.Int64Counter("clawdcode.session.count", metric.WithDescription("Sessions started or resumed"), metric.WithUnit("{session}"))
	add(err)
	in.tokens, err = m.Int64Counter("clawdcode.token.usage", metric.WithDescription("Tokens the model calls used: input not served from the cache, cache_read, output"), metric.WithUnit("{token}"))
	add(err)
	in.cost, err = m.Float64Counter("clawdcode.cost.usage", metric.WithDescription("What the model calls cost at the price table"), metric.WithUnit("USD"))
	add(err)
	in.compactions, err = m.Int64Counter("clawdcode.compaction.count", metric.WithDescription("Steps of the context ladder: clear, summary, fallback"), metric.WithUnit("{compaction}"))
	add(err)
	in.decisions, err = m.Int64Counter("clawdcode.tool.decision", metric.WithDescription("Permission decisions on tool calls"), metric.WithUnit("{decision}"))
	add(err)
	in.lines, err = m.Int64Counter("clawdcode.lines_of_code.count", metric.WithDescription("Lines Write and Edit added and removed"), metric.WithUnit("{line}"))
	add(err)
	return errors.Join(errs...)
}

// Shutdown exports what is left and stops the providers, all at once,
// returning by ctx's deadline (see ExitFlush) whatever the collector does.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	run := func(f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- f(ctx)
		}()
	}
	if t.tp != nil {
		run(t.tp.Shutdown)
	}
	if t.mp != nil {
		run(t.mp.Shutdown)
	}
	if t.lp != nil {
		run(t.lp.Shutdown)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		// An exporter stuck past the deadline is left behind: the
		// process is ending.
		return ctx.Err()
	}
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	for _, c := range t.clients {
		c.Close()
	}
	return errors.Join(all...)
}

package telemetry

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/tokens"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestReadFollowsTheStandardVariables(t *testing.T) {
	t.Parallel()
	s, warns := Read(env(map[string]string{
		EnvEnable:                             "1",
		"OTEL_EXPORTER_OTLP_ENDPOINT":         "http://collector:4318/",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "https://metrics.example/custom",
		"OTEL_EXPORTER_OTLP_HEADERS":          "authorization=Bearer%20abc, x-team = core",
		"OTEL_EXPORTER_OTLP_LOGS_HEADERS":     "x-logs=1",
		"OTEL_EXPORTER_OTLP_COMPRESSION":      "gzip",
		"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT":   "1500",
		"OTEL_LOGS_EXPORTER":                  "console",
		"OTEL_METRIC_EXPORT_INTERVAL":         "5000",
		"OTEL_RESOURCE_ATTRIBUTES":            "team=core,service.name=other",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL":  "http/protobuf",
	}), false)
	if len(warns) != 0 || !s.Enabled {
		t.Fatalf("enabled %v, warnings %q", s.Enabled, warns)
	}
	if s.Traces.URL != "http://collector:4318/v1/traces" || s.Metrics.URL != "https://metrics.example/custom" {
		t.Errorf("urls %q %q", s.Traces.URL, s.Metrics.URL)
	}
	if s.Traces.Headers["authorization"] != "Bearer abc" || s.Traces.Headers["x-team"] != "core" || !s.Traces.Gzip {
		t.Errorf("traces %+v", s.Traces)
	}
	if s.Traces.Timeout != 1500*time.Millisecond || s.Metrics.Timeout != defaultTimeout {
		t.Errorf("timeouts %v %v", s.Traces.Timeout, s.Metrics.Timeout)
	}
	if s.Logs.Exporter != ExporterConsole || s.MetricInterval != 5*time.Second || s.ResourceAttributes["team"] != "core" {
		t.Errorf("settings %+v", s)
	}
}

func TestReadIsOffUnlessTurnedOn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  map[string]string
		user bool
		want bool
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}, false, false},
		{nil, true, true},
		{map[string]string{EnvEnable: "0"}, true, false},
		{map[string]string{EnvEnable: "1", "OTEL_SDK_DISABLED": "true"}, false, false},
	} {
		if s, _ := Read(env(c.env), c.user); s.Enabled != c.want {
			t.Errorf("env %v, user %v: enabled %v", c.env, c.user, s.Enabled)
		}
	}
}

func TestReadWarnsAndDropsWhatItCannotSend(t *testing.T) {
	t.Parallel()
	s, warns := Read(env(map[string]string{
		EnvEnable:                     "1",
		"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_LOGS_EXPORTER":          "zipkin",
	}), false)
	if s.Traces.Exporter != ExporterNone || s.Metrics.Exporter != ExporterNone || s.Logs.Exporter != ExporterNone {
		t.Errorf("exporters %q %q %q", s.Traces.Exporter, s.Metrics.Exporter, s.Logs.Exporter)
	}
	if all := strings.Join(warns, "\n"); !strings.Contains(all, `"grpc" is not supported`) || !strings.Contains(all, `"zipkin"`) {
		t.Errorf("warnings %q", warns)
	}
}

// Shutdown returns by its context's deadline whatever the collector does:
// here one that accepts and never answers, with exports allowed an hour.
func TestShutdownIsBoundedByItsContext(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	set, _ := Read(env(map[string]string{EnvEnable: "1", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + l.Addr().String(),
		"OTEL_EXPORTER_OTLP_TIMEOUT": "3600000"}), false)
	tel, err := Start(set, "test", tokens.Prices{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, end := tel.Turn(context.Background(), Turn{Session: "s1", Model: "gpt-4o", Prompt: "hi"})
	end(nil)
	tel.Decision(ctx, Decision{Tool: "Read", Allowed: true, Source: SourceFree})
	sctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- tel.Shutdown(sctx) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Shutdown reported success to a collector that never answered")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown outlived its context by 30 s")
	}
}

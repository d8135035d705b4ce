package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/fixtures"
)

// collector is a real OpenTelemetry Collector (tools/otelcol: the OTLP
// receiver and the file exporter) listening on loopback for one test, its
// traces, metrics and logs written to files of their own.
type collector struct {
	Endpoint string // http://127.0.0.1:port
	dir      string
	cmd      *exec.Cmd
	exited   chan struct{}
}

// otelcolBinary is the collector `make otelcol` builds (CLAWDCODE_OTELCOL
// names another).
func otelcolBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CLAWDCODE_OTELCOL"); p != "" {
		return p
	}
	root, err := harness.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, ".cache", "otelcol", "otelcol")
	if _, err := os.Stat(p); err != nil {
		fixtures.Missing(t, "no OpenTelemetry Collector at %s: `make otelcol` builds it (.ci/run does)", p)
	}
	return p
}

// freePort is a loopback port nothing listens on as it returns.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

const collectorConfig = `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file/traces:
    path: %s/traces.jsonl
  file/metrics:
    path: %s/metrics.jsonl
  file/logs:
    path: %s/logs.jsonl
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    traces: {receivers: [otlp], exporters: [file/traces]}
    metrics: {receivers: [otlp], exporters: [file/metrics]}
    logs: {receivers: [otlp], exporters: [file/logs]}
`

// startCollector runs the collector until the test ends (or Stop), once
// its receiver accepts connections. The port freePort found may be taken
// by another process before the collector binds it: then it tries another,
// three times in all.
func startCollector(t *testing.T) *collector {
	t.Helper()
	bin := otelcolBinary(t)
	var lastErr string
	for range 3 {
		c, errText := tryCollector(t, bin)
		if c != nil {
			return c
		}
		lastErr = errText
	}
	t.Fatalf("the collector did not start:\n%s", lastErr)
	return nil
}

// tryCollector starts the collector on a free port; it returns nil and
// the collector's stderr when the collector exits before listening.
func tryCollector(t *testing.T, bin string) (*collector, string) {
	t.Helper()
	dir := t.TempDir()
	port := freePort(t)
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(collectorConfig, port, dir, dir, dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &collector{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), dir: dir, exited: make(chan struct{})}
	c.cmd = exec.Command(bin, "--config", cfg)
	var stderr bytes.Buffer
	c.cmd.Stderr = &stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() { c.Stop(t) })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	// Up to 60 s for the receiver, on a loaded machine.
	for i := 0; ; i++ {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return c, ""
		}
		select {
		case <-c.exited:
			return nil, stderr.String()
		case <-time.After(100 * time.Millisecond):
		}
		if i == 600 {
			t.Fatalf("the collector does not listen on %s:\n%s", addr, stderr.String())
		}
	}
}

// Stop ends the collector, which writes out what it received.
func (c *collector) Stop(t *testing.T) {
	select {
	case <-c.exited:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(60 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
		t.Error("the collector did not stop on SIGTERM")
	}
}

// lines decodes each line of one of the collector's files (OTLP JSON).
func (c *collector) lines(t *testing.T, name string, into func([]byte)) {
	t.Helper()
	f, err := os.Open(filepath.Join(c.dir, name))
	if err != nil {
		t.Fatalf("the collector wrote no %s: %v", name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		into(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// OTLP JSON, as much of it as the tests read.
type otlpKV struct {
	Key   string `json:"key"`
	Value struct {
		String *string          `json:"stringValue"`
		Int    *json.RawMessage `json:"intValue"`
		Double *float64         `json:"doubleValue"`
		Bool   *bool            `json:"boolValue"`
	} `json:"value"`
}

type otlpAttrs []otlpKV

func (a otlpAttrs) get(key string) (string, bool) {
	for _, kv := range a {
		if kv.Key != key {
			continue
		}
		switch v := kv.Value; {
		case v.String != nil:
			return *v.String, true
		case v.Int != nil:
			s := string(*v.Int)
			if uq, err := strconv.Unquote(s); err == nil {
				s = uq
			}
			return s, true
		case v.Double != nil:
			return strconv.FormatFloat(*v.Double, 'g', -1, 64), true
		case v.Bool != nil:
			return strconv.FormatBool(*v.Bool), true
		}
	}
	return "", false
}

type otlpSpan struct {
	TraceID    string    `json:"traceId"`
	SpanID     string    `json:"spanId"`
	ParentID   string    `json:"parentSpanId"`
	Name       string    `json:"name"`
	Attributes otlpAttrs `json:"attributes"`
}

type otlpPoint struct {
	// instance is the exporting process's service.instance.id.
	instance   string
	Attributes otlpAttrs       `json:"attributes"`
	AsInt      json.RawMessage `json:"asInt"`
	AsDouble   *float64        `json:"asDouble"`
	Time       string          `json:"timeUnixNano"`
}

func (p otlpPoint) value() float64 {
	if p.AsDouble != nil {
		return *p.AsDouble
	}
	s := string(p.AsInt)
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

type otlpLog struct {
	EventName  string    `json:"eventName"`
	Attributes otlpAttrs `json:"attributes"`
}

// received is what the collector got.
type received struct {
	spans []otlpSpan
	// points of each metric, by name, in the order exported.
	points map[string][]otlpPoint
	logs   []otlpLog
}

func (c *collector) received(t *testing.T) received {
	t.Helper()
	var r received
	r.points = map[string][]otlpPoint{}
	c.lines(t, "traces.jsonl", func(b []byte) {
		var d struct {
			RS []struct {
				SS []struct {
					Spans []otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("traces: %v", err)
		}
		for _, rs := range d.RS {
			for _, ss := range rs.SS {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
	})
	c.lines(t, "metrics.jsonl", func(b []byte) {
		var d struct {
			RM []struct {
				Resource struct {
					Attributes otlpAttrs `json:"attributes"`
				} `json:"resource"`
				SM []struct {
					Metrics []struct {
						Name string `json:"name"`
						Sum  *struct {
							Points []otlpPoint `json:"dataPoints"`
						} `json:"sum"`
					} `json:"metrics"`
				} `json:"scopeMetrics"`
			} `json:"resourceMetrics"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("metrics: %v", err)
		}
		for _, rm := range d.RM {
			inst, _ := rm.Resource.Attributes.get("service.instance.id")
			for _, sm := range rm.SM {
				for _, m := range sm.Metrics {
					if m.Sum == nil {
						continue
					}
					for _, p := range m.Sum.Points {
						p.instance = inst
						r.points[m.Name] = append(r.points[m.Name], p)
					}
				}
			}
		}
	})
	c.lines(t, "logs.jsonl", func(b []byte) {
		var d struct {
			RL []struct {
				SL []struct {
					Records []otlpLog `json:"logRecords"`
				} `json:"scopeLogs"`
			} `json:"resourceLogs"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("logs: %v", err)
		}
		for _, rl := range d.RL {
			for _, sl := range rl.SL {
				r.logs = append(r.logs, sl.Records...)
			}
		}
	})
	return r
}

// sums is a cumulative counter's total per value of keys: each series'
// (a process's attribute set's) latest point, added up over the series
// that share those values.
func (r received) sums(metric string, keys ...string) map[string]float64 {
	type point struct {
		key  string
		time string
		v    float64
	}
	latest := map[string]point{}
	for _, p := range r.points[metric] {
		all, _ := json.Marshal(p.Attributes)
		all = append(all, p.instance...)
		k := ""
		for _, key := range keys {
			v, _ := p.Attributes.get(key)
			k += v + "|"
		}
		if old, ok := latest[string(all)]; !ok || p.Time >= old.time {
			latest[string(all)] = point{k, p.Time, p.value()}
		}
	}
	out := map[string]float64{}
	for _, p := range latest {
		out[p.key] += p.v
	}
	return out
}

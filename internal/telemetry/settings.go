package telemetry

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Exporter kinds a signal may have (OTEL_TRACES_EXPORTER and its kin).
const (
	ExporterOTLP    = "otlp"
	ExporterConsole = "console"
	ExporterNone    = "none"
)

// Signal is how one signal (traces, metrics or logs) leaves the process.
type Signal struct {
	Exporter string // ExporterOTLP, ExporterConsole or ExporterNone
	URL      string // the OTLP/HTTP URL (ExporterOTLP)
	Headers  map[string]string
	Gzip     bool
	Timeout  time.Duration
}

// Settings are telemetry's, read from the standard OTEL_* variables and
// clawdcode's switch. The zero value is off.
type Settings struct {
	Enabled               bool
	Traces, Metrics, Logs Signal
	MetricInterval        time.Duration // 0: the SDK's default (60 s)
	ResourceAttributes    map[string]string
	LogUserPrompts        bool
}

// Names of the variables (CONTRACT.md section 16).
const (
	EnvEnable         = "CLAWDCODE_ENABLE_TELEMETRY"
	envLogUserPrompts = "OTEL_LOG_USER_PROMPTS"
)

// defaultEndpoint is OTLP/HTTP's: a collector on this machine.
const defaultEndpoint = "http://localhost:4318"

// defaultTimeout is an export request's bound when OTEL_EXPORTER_OTLP_TIMEOUT
// says nothing (the specification's 10 s).
const defaultTimeout = 10 * time.Second

// Read resolves the settings from getenv and the user's configuration
// file's [telemetry] enabled (userEnabled; a project's file has no say).
// The environment's CLAWDCODE_ENABLE_TELEMETRY wins over the file, and
// OTEL_SDK_DISABLED=true turns everything off. A value it cannot use is a
// warning, and that signal is not exported; telemetry never stops a run.
func Read(getenv func(string) string, userEnabled bool) (Settings, []string) {
	var s Settings
	var warns []string
	s.Enabled = userEnabled
	if v := strings.TrimSpace(getenv(EnvEnable)); v != "" {
		s.Enabled = truthy(v)
	}
	if truthy(getenv("OTEL_SDK_DISABLED")) {
		s.Enabled = false
	}
	if !s.Enabled {
		return s, nil
	}
	s.LogUserPrompts = truthy(getenv(envLogUserPrompts))
	base := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	if base == "" {
		base = defaultEndpoint
	}
	for _, sig := range []struct {
		name, path string
		into       *Signal
	}{{"TRACES", "v1/traces", &s.Traces}, {"METRICS", "v1/metrics", &s.Metrics}, {"LOGS", "v1/logs", &s.Logs}} {
		sg, w := readSignal(getenv, sig.name, base, sig.path)
		*sig.into = sg
		warns = append(warns, w...)
	}
	if v := strings.TrimSpace(getenv("OTEL_METRIC_EXPORT_INTERVAL")); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			warns = append(warns, fmt.Sprintf("OTEL_METRIC_EXPORT_INTERVAL=%q is not a number of milliseconds; using 60000", v))
		} else {
			s.MetricInterval = time.Duration(ms) * time.Millisecond
		}
	}
	attrs, err := parsePairs(getenv("OTEL_RESOURCE_ATTRIBUTES"))
	if err != nil {
		warns = append(warns, fmt.Sprintf("OTEL_RESOURCE_ATTRIBUTES: %v; left out", err))
	}
	s.ResourceAttributes = attrs
	return s, warns
}

// readSignal reads one signal's exporter, URL, headers, compression and
// timeout: its own variable first, then the one for every signal.
func readSignal(getenv func(string) string, sig, base, path string) (Signal, []string) {
	var warns []string
	get := func(name string) string {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + sig + "_" + name)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name))
	}
	s := Signal{Exporter: strings.ToLower(strings.TrimSpace(getenv("OTEL_" + sig + "_EXPORTER")))}
	switch s.Exporter {
	case "":
		s.Exporter = ExporterOTLP
	case ExporterOTLP, ExporterConsole, ExporterNone:
	default:
		warns = append(warns, fmt.Sprintf("OTEL_%s_EXPORTER=%q is not otlp, console or none; %s are not exported", sig, s.Exporter, strings.ToLower(sig)))
		s.Exporter = ExporterNone
	}
	if s.Exporter != ExporterOTLP {
		return s, warns
	}
	if p := get("PROTOCOL"); p != "" && p != "http/protobuf" {
		warns = append(warns, fmt.Sprintf("OTLP protocol %q is not supported (clawdcode sends http/protobuf); %s are not exported", p, strings.ToLower(sig)))
		s.Exporter = ExporterNone
		return s, warns
	}
	if u := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + sig + "_ENDPOINT")); u != "" {
		s.URL = u // a signal's own endpoint is the whole URL
	} else {
		s.URL = strings.TrimRight(base, "/") + "/" + path
	}
	if pu, err := url.Parse(s.URL); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		warns = append(warns, fmt.Sprintf("OTLP endpoint %q is not an http(s) URL; %s are not exported", s.URL, strings.ToLower(sig)))
		s.Exporter = ExporterNone
		return s, warns
	}
	h, err := parsePairs(get("HEADERS"))
	if err != nil {
		warns = append(warns, fmt.Sprintf("OTEL_EXPORTER_OTLP_HEADERS: %v; left out", err))
	}
	s.Headers = h
	switch c := strings.ToLower(get("COMPRESSION")); c {
	case "", "none":
	case "gzip":
		s.Gzip = true
	default:
		warns = append(warns, fmt.Sprintf("OTLP compression %q is not gzip or none; sent uncompressed", c))
	}
	s.Timeout = defaultTimeout
	if v := get("TIMEOUT"); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
			s.Timeout = time.Duration(ms) * time.Millisecond
		} else {
			warns = append(warns, fmt.Sprintf("OTLP timeout %q is not a number of milliseconds; using 10000", v))
		}
	}
	return s, warns
}

// parsePairs reads "k1=v1,k2=v2" with percent-encoded values (the form
// of OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES).
func parsePairs(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return out, fmt.Errorf("%q is not key=value", strings.TrimSpace(part))
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return out, fmt.Errorf("the value of %s: %v", k, err)
		}
		out[k] = dv
	}
	return out, nil
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

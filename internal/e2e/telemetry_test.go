package e2e

import (
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

func telemetryEnv(endpoint string) []string {
	return []string{"CLAWDCODE_ENABLE_TELEMETRY=1", "OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint}
}

// A -p run with telemetry on, against a real collector: a subagent, tool
// calls and a compaction. The collector receives the token and cost
// counters with the sums the server reported, a compaction event, and a
// turn span whose children are the model calls and the tool calls, with
// the GenAI attributes, the subagent's turn under its Task call; every
// span, point and event carries a session id.
func TestTelemetryReachesTheCollector(t *testing.T) {
	t.Parallel()
	col := startCollector(t)
	w := newWorld(t, llmtest.Options{})
	w.ExtraEnv = append(w.ExtraEnv, telemetryEnv(col.Endpoint)...)
	tl := busyRun(t, w)
	// A slash command's model call (the summary of /compact) is outside
	// any turn, and carries the session all the same.
	w.MustRun("-c", "-p", "/compact")
	col.Stop(t)
	got := col.received(t)

	byType := got.sums("clawdcode.token.usage", "type")
	want := map[string]float64{
		"input|":      float64(tl.all.InputTokens - tl.all.CacheReadInputTokens),
		"cache_read|": float64(tl.all.CacheReadInputTokens),
		"output|":     float64(tl.all.OutputTokens),
	}
	for k, v := range want {
		if byType[k] != v {
			t.Errorf("clawdcode.token.usage %s= %v, the server reported %v (all: %v)", k, byType[k], v, byType)
		}
	}
	p, _ := tokens.PriceOf("gpt-4o")
	wantCost := p.Cost(tl.all.InputTokens, tl.all.CacheReadInputTokens, tl.all.OutputTokens)
	if c := got.sums("clawdcode.cost.usage", "model")["gpt-4o|"]; math.Abs(c-wantCost) > 1e-9 {
		t.Errorf("clawdcode.cost.usage = %v, want %v", c, wantCost)
	}
	for name, pts := range got.points {
		for _, pt := range pts {
			if s, _ := pt.Attributes.get("session.id"); s == "" {
				t.Errorf("a point of %s without session.id", name)
			}
		}
	}
	if got.sums("clawdcode.compaction.count", "step")["summary|"] < 1 {
		t.Errorf("no summary step counted: %v", got.sums("clawdcode.compaction.count", "step"))
	}

	events := map[string]int{}
	for _, l := range got.logs {
		events[l.EventName]++
		if s, _ := l.Attributes.get("session.id"); s == "" {
			t.Errorf("event %s without session.id", l.EventName)
		}
		if l.EventName == "clawdcode.user_prompt" {
			if _, has := l.Attributes.get("prompt"); has {
				t.Error("the prompt's text was sent without OTEL_LOG_USER_PROMPTS")
			}
		}
	}
	for _, e := range []string{"clawdcode.compaction", "clawdcode.api_request", "clawdcode.tool_result", "clawdcode.user_prompt"} {
		if events[e] == 0 {
			t.Errorf("no %s event; got %v", e, events)
		}
	}
	checkTrace(t, got.spans, tl.calls)
}

// checkTrace holds the spans to the GenAI shape: one turn of the session,
// its children the model calls and the tool calls, the subagent's turn
// under the Task call, with its own model call under it.
func checkTrace(t *testing.T, spans []otlpSpan, calls int) {
	t.Helper()
	byID := map[string]otlpSpan{}
	var turns []otlpSpan
	for _, s := range spans {
		byID[s.SpanID] = s
		if sid, _ := s.Attributes.get("session.id"); sid == "" {
			t.Errorf("span %s without session.id", s.Name)
		}
		if s.Name == "invoke_agent clawdcode" {
			turns = append(turns, s)
		}
	}
	if len(turns) != 1 {
		t.Fatalf("%d turn spans, want 1: %v", len(turns), names(spans))
	}
	turn := turns[0]
	var chats, tools int
	var task otlpSpan
	for _, s := range spans {
		if s.ParentID != turn.SpanID {
			continue
		}
		op, _ := s.Attributes.get("gen_ai.operation.name")
		switch op {
		case "chat":
			chats++
			for _, k := range []string{"gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"} {
				if _, ok := s.Attributes.get(k); !ok {
					t.Errorf("chat span without %s", k)
				}
			}
		case "execute_tool":
			tools++
			if name, _ := s.Attributes.get("gen_ai.tool.name"); name == "Task" {
				task = s
			}
		default:
			t.Errorf("a child of the turn that is neither a model call nor a tool call: %s", s.Name)
		}
	}
	if chats < 3 || tools < 2 {
		t.Errorf("the turn's children: %d model calls, %d tool calls", chats, tools)
	}
	if task.SpanID == "" {
		t.Fatal("no Task call under the turn")
	}
	var sub otlpSpan
	for _, s := range spans {
		if s.ParentID == task.SpanID && strings.HasPrefix(s.Name, "invoke_agent ") {
			sub = s
		}
	}
	if sub.SpanID == "" {
		t.Fatalf("no subagent turn under the Task call: %v", names(spans))
	}
	subChats := 0
	for _, s := range spans {
		if op, _ := s.Attributes.get("gen_ai.operation.name"); s.ParentID == sub.SpanID && op == "chat" {
			subChats++
		}
	}
	if subChats != 2 {
		t.Errorf("the subagent's turn has %d model calls under it, want 2", subChats)
	}
	all := 0
	for _, s := range spans {
		if op, _ := s.Attributes.get("gen_ai.operation.name"); op == "chat" {
			all++
			// Every model call of the run is in the turn's trace; only
			// /compact's, made outside any turn, stands alone.
			if s.TraceID != turn.TraceID && s.ParentID != "" {
				t.Errorf("model call %s outside the turn's trace", s.Name)
			}
		}
	}
	if all != calls {
		t.Errorf("%d chat spans for the %d model calls the server answered", all, calls)
	}
}

func names(spans []otlpSpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// A collector that accepts connections and never answers holds no run
// up: the exit's flush gives up after its 2 s, although the export's own
// timeout is ten minutes. The bound asserted is far above that (the run
// takes seconds) and far below what an unbounded flush would take.
func TestTelemetryCollectorThatHangsDoesNotHoldTheExit(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			defer c.Close() // held open, unanswered, until the test ends
		}
	}()
	w := newWorld(t, llmtest.Options{})
	w.ExtraEnv = append(w.ExtraEnv, telemetryEnv("http://"+l.Addr().String())...)
	w.ExtraEnv = append(w.ExtraEnv, "OTEL_EXPORTER_OTLP_TIMEOUT=600000")
	w.Server.Enqueue(llmtest.Text("hello"))
	start := time.Now()
	w.MustRun("-p", "hi")
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("the run took %v with a collector that never answers", d)
	}
	if accepted.Load() == 0 {
		t.Error("nothing was exported: the test did not test the flush")
	}
}

// With telemetry off — not turned on, or turned on by a project's file
// only — nothing connects to the OTLP endpoint, even with OTEL_* set.
func TestTelemetryOffConnectsNowhere(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	w := newWorld(t, llmtest.Options{})
	w.ExtraEnv = append(w.ExtraEnv, "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+l.Addr().String())
	if err := os.MkdirAll(filepath.Join(w.Project, ".clawdcode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Project, ".clawdcode", "config.toml"), []byte("[telemetry]\nenabled = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Server.Enqueue(llmtest.Text("one"), llmtest.Text("two"))
	w.MustRun("-p", "hi")
	r := w.MustRun("-c", "-p", "--trust-project", "again")
	if !strings.Contains(r.Stderr, "[telemetry] is ignored") {
		t.Errorf("the project's [telemetry] was not said to be ignored:\n%s", r.Stderr)
	}
	l.Close()
	<-done
	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connections to the OTLP endpoint with telemetry off", n)
	}
}

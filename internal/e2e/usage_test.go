package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// tally is the usage a scripted server reported, by model, with the
// summary calls' and the subagent's apart.
type tally struct {
	mu                  sync.Mutex
	all, summary, sub   storage.Usage
	calls, summaryCalls int
}

func (t *tally) add(u llmtest.Usage, summary, sub bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := storage.Usage{InputTokens: u.PromptTokens, CacheReadInputTokens: u.CachedTokens, OutputTokens: u.CompletionTokens}
	t.all.Add(v)
	t.calls++
	if summary {
		t.summary.Add(v)
		t.summaryCalls++
	}
	if sub {
		t.sub.Add(v)
	}
}

// busyRun scripts one -p run that delegates a listing to a subagent
// (Task), then reads the project's files one a round until the context,
// in a 4,000-token window, is compacted by a summary call, and then
// answers. Every reply reports its usage (some of it cached), which the
// returned tally adds up. It returns after the run.
func busyRun(t *testing.T, w *world, extraArgs ...string) *tally {
	t.Helper()
	for i := range 40 {
		body := strings.Repeat(fmt.Sprintf("file %d: a line of words to make it weigh something in the window\n", i), 24)
		if err := os.WriteFile(filepath.Join(w.Project, fmt.Sprintf("f%02d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tl := &tally{}
	var mu sync.Mutex
	rounds, compacted := 0, false
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		var reply llmtest.Reply
		summary, sub := isSummaryRequest(r), isSubagent(r)
		switch {
		case summary:
			compacted = true
			reply = llmtest.Text(summaryText)
		case sub && !answered(r):
			reply = llmtest.ToolCalls(llmtest.Call("Glob", jsonArgs(map[string]string{"pattern": "f0*.txt"})))
		case sub:
			reply = llmtest.Text("ten files")
		case rounds == 0:
			rounds++
			reply = llmtest.ToolCalls(llmtest.Call("Task", jsonArgs(map[string]string{
				"description": "list files", "prompt": "List the f0 files.", "subagent_type": "general"})))
		case !compacted && rounds < 40:
			reply = llmtest.ToolCalls(llmtest.Call("Read", jsonArgs(map[string]string{"file_path": fmt.Sprintf("f%02d.txt", rounds)})))
			rounds++
		default:
			reply = llmtest.Text("all read")
		}
		n := len(r.Messages)
		u := llmtest.Usage{PromptTokens: 1000 + 37*n, CachedTokens: 300 + n, CompletionTokens: 20 + n}
		reply.Usage = &u
		tl.add(u, summary, sub)
		return reply
	})
	args := append([]string{"-p", "--context-window", "4000"}, extraArgs...)
	w.MustRun(append(args, "read the files")...)
	if !compacted {
		t.Fatalf("no compaction in %d rounds: the window is too large", rounds)
	}
	return tl
}

// usageReport is `clawdcode usage --json`.
type usageReport struct {
	Rows []struct {
		Model     string         `json:"model"`
		SessionID string         `json:"session_id"`
		Subs      []usageFigures `json:"subagent_sessions"`
		usageFigures
		Subagents  usageFigures `json:"subagents"`
		Compaction usageFigures `json:"compaction"`
	} `json:"rows"`
	Totals struct {
		usageFigures
		Subagents  usageFigures `json:"subagents"`
		Compaction usageFigures `json:"compaction"`
	} `json:"totals"`
}

type usageFigures struct {
	Input  int     `json:"input_tokens"`
	Cached int     `json:"cached_input_tokens"`
	Output int     `json:"output_tokens"`
	Cost   float64 `json:"cost_usd"`
}

func runUsage(t *testing.T, w *world, args ...string) usageReport {
	t.Helper()
	var rep usageReport
	if r := w.MustRun(args...); json.Unmarshal([]byte(r.Stdout), &rep) != nil {
		t.Fatalf("%v: not a report:\n%s", args, r.Stdout)
	}
	return rep
}

func figuresOf(u storage.Usage, model string) usageFigures {
	p, _ := tokens.PriceOf(model)
	return usageFigures{u.InputTokens, u.CacheReadInputTokens, u.OutputTokens, p.Cost(u.InputTokens, u.CacheReadInputTokens, u.OutputTokens)}
}

func sameFigures(a, b usageFigures) bool {
	return a.Input == b.Input && a.Cached == b.Cached && a.Output == b.Output && math.Abs(a.Cost-b.Cost) < 1e-9
}

// claudeFixtureUsage is what a Claude Code transcript reports: each reply
// (message id) once, at its last line's usage, cache writes and reads in
// the input and the reads apart.
func claudeFixtureUsage(t *testing.T, name string) (string, storage.Usage) {
	t.Helper()
	type line struct {
		Type    string `json:"type"`
		Message struct {
			ID       string          `json:"id"`
			Model    string          `json:"model"`
			RawUsage json.RawMessage `json:"usage"`
		} `json:"message"`
	}
	last := map[string]storage.Usage{}
	model := ""
	for _, l := range bytes.Split(fixtures.Read(t, "claude-code", name), []byte("\n")) {
		var ln line
		if json.Unmarshal(l, &ln) != nil || ln.Type != "assistant" || len(ln.Message.RawUsage) == 0 {
			continue
		}
		var u struct {
			In    int `json:"input_tokens"`
			Write int `json:"cache_creation_input_tokens"`
			Read  int `json:"cache_read_input_tokens"`
			Out   int `json:"output_tokens"`
		}
		if json.Unmarshal(ln.Message.RawUsage, &u) != nil {
			continue
		}
		model = ln.Message.Model
		last[ln.Message.ID] = storage.Usage{InputTokens: u.In + u.Write + u.Read, CacheReadInputTokens: u.Read, OutputTokens: u.Out}
	}
	var sum storage.Usage
	for _, u := range last {
		sum.Add(u)
	}
	return model, sum
}

// codexFixtureUsage is a Codex rollout's final running total.
func codexFixtureUsage(t *testing.T, name string) storage.Usage {
	t.Helper()
	var total storage.Usage
	for _, l := range bytes.Split(fixtures.Read(t, "codex", name), []byte("\n")) {
		var ev struct {
			Payload struct {
				Type string `json:"type"`
				Info *struct {
					Total struct {
						In     int `json:"input_tokens"`
						Cached int `json:"cached_input_tokens"`
						Out    int `json:"output_tokens"`
					} `json:"total_token_usage"`
				} `json:"info"`
			} `json:"payload"`
		}
		if json.Unmarshal(l, &ev) == nil && ev.Payload.Type == "token_count" && ev.Payload.Info != nil {
			tt := ev.Payload.Info.Total
			total = storage.Usage{InputTokens: tt.In, CacheReadInputTokens: tt.Cached, OutputTokens: tt.Out}
		}
	}
	return total
}

// `clawdcode usage --json --all` over sessions made through the binary (a
// subagent, a compaction) and imported Claude Code and Codex sessions:
// per model, its totals are what the server and the transcripts reported,
// cached input apart, priced at each model's price; the subagent's and the
// summary calls' parts are shown apart.
func TestUsageReportsWhatTheServerReported(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	tl := busyRun(t, w)

	cc, cx := filepath.Join(w.Root, "claude"), filepath.Join(w.Root, "codex")
	ccName := "spotter_real_tool_heavy.jsonl"
	cxName := "rollout-2026-11-23T15-58-06-01a20920-faf5-7b82-b470-7899bbb2e813.jsonl"
	other := filepath.Join(w.Root, "elsewhere")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	installSource(t, []string{"claude-code", ccName}, cc, "p/"+ccName, other)
	installSource(t, []string{"codex", cxName}, cx, "2026/11/23/"+cxName, other)
	w.MustRun("import", "claude-code", cc)
	w.MustRun("import", "codex", cx)

	ccModel, ccUsage := claudeFixtureUsage(t, ccName)
	cxUsage := codexFixtureUsage(t, cxName)
	// The scripted server answers as gpt-4o, and so did the Codex
	// rollout's model: the two add up under one model.
	gpt := tl.all
	gpt.Add(cxUsage)
	want := map[string]usageFigures{"gpt-4o": figuresOf(gpt, "gpt-4o"), ccModel: figuresOf(ccUsage, ccModel)}

	byModel := runUsage(t, w, "usage", "model", "--json", "--all")
	if len(byModel.Rows) != len(want) {
		t.Fatalf("models %+v, want %v", byModel.Rows, want)
	}
	var total usageFigures
	for _, r := range byModel.Rows {
		if !sameFigures(r.usageFigures, want[r.Model]) {
			t.Errorf("%s: %+v, want %+v", r.Model, r.usageFigures, want[r.Model])
		}
		total.Input, total.Cached, total.Output, total.Cost = total.Input+r.Input, total.Cached+r.Cached, total.Output+r.Output, total.Cost+r.Cost
	}
	if !sameFigures(byModel.Totals.usageFigures, total) {
		t.Errorf("totals %+v, the rows add up to %+v", byModel.Totals.usageFigures, total)
	}
	if w := figuresOf(tl.summary, "gpt-4o"); !sameFigures(byModel.Totals.Compaction, w) || tl.summaryCalls == 0 {
		t.Errorf("compaction part %+v, the summary calls reported %+v", byModel.Totals.Compaction, w)
	}
	if w := figuresOf(tl.sub, "gpt-4o"); !sameFigures(byModel.Totals.Subagents, w) {
		t.Errorf("subagents part %+v, the subagent's calls reported %+v", byModel.Totals.Subagents, w)
	}

	// By session, this project: the subagent counts under its parent and
	// is listed under it.
	bySession := runUsage(t, w, "usage", "session", "--json")
	if len(bySession.Rows) != 1 || len(bySession.Rows[0].Subs) != 1 {
		t.Fatalf("sessions: %+v", bySession.Rows)
	}
	if r := bySession.Rows[0]; !sameFigures(r.usageFigures, figuresOf(tl.all, "gpt-4o")) ||
		!sameFigures(r.Subs[0], figuresOf(tl.sub, "gpt-4o")) {
		t.Errorf("session row %+v (subagent %+v), want %+v (%+v)", r.usageFigures, r.Subs[0], figuresOf(tl.all, "gpt-4o"), figuresOf(tl.sub, "gpt-4o"))
	}
}

// /cost and `clawdcode usage session` price a session the same way, each
// model at its own price: a session that changed model between turns
// costs, in both, 100,000 prompt tokens (40,000 cached) and 1,000
// completion tokens at gpt-4o's prices plus the same at gpt-4.1's.
func TestCostAgreesWithUsageSession(t *testing.T) {
	t.Parallel()
	w := pricedWorld(t)
	w.MustRun("--model", "gpt-4o", "-p", "first")
	w.MustRun("--model", "gpt-4.1", "-c", "-p", "second")
	rep := runUsage(t, w, "usage", "session", "--json")
	if len(rep.Rows) != 1 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	p4o, _ := tokens.PriceOf("gpt-4o")
	p41, _ := tokens.PriceOf("gpt-4.1")
	want := p4o.Cost(100_000, 40_000, 1_000) + p41.Cost(100_000, 40_000, 1_000)
	if math.Abs(rep.Rows[0].Cost-want) > 1e-9 {
		t.Fatalf("usage session: $%v, want $%v", rep.Rows[0].Cost, want)
	}
	out := w.MustRun("--model", "gpt-4.1", "-c", "-p", "/cost").Stdout
	if line := fmt.Sprintf("Estimated cost: %s at each model's prices (gpt-4.1, gpt-4o)\n", dollarsOf(want)); !strings.Contains(out, line) {
		t.Errorf("/cost lacks %q:\n%s", line, out)
	}
}

// dollarsOf is an amount as /cost and usage print it.
func dollarsOf(v float64) string {
	if v < 0.01 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

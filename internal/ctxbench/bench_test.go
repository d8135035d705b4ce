package ctxbench

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

var (
	full     = flag.Bool("ctxbench.full", false, "run the whole context bench (make bench-context) and print its table")
	windows  = flag.String("ctxbench.windows", "8000,32000,128000", "with -ctxbench.full: the windows, comma-separated")
	sessions = flag.Int("ctxbench.sessions", 20, "with -ctxbench.full: how many sessions of the corpus")
	maxTurns = flag.Int("ctxbench.turns", 200, "with -ctxbench.full: the longest session's model requests")
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(harness.Main(m, os.Stderr, "ctxbench"))
}

// seed fixes the corpus: the same seed, the same sessions, byte for byte.
const seed = 20

// corpus is n sessions, tool-heavy and chat-heavy in turn, of turns
// model requests each, from lo to hi evenly.
func corpus(n, lo, hi int) []*session {
	var out []*session
	for i := range n {
		kind := "tool"
		if i%2 == 1 {
			kind = "chat"
		}
		turns := lo
		if n > 1 {
			turns = lo + (hi-lo)*i/(n-1)
		}
		out = append(out, newSession(seed, i, kind, turns))
	}
	return out
}

// measure runs every session under cfg, as parallel subtests (go test
// -parallel bounds them), and sums them into one row. The order sessions
// finish in changes no figure: each has its own world and server.
func measure(t *testing.T, cfg config, sessions []*session) *row {
	rw := newRow(cfg)
	var mu sync.Mutex
	t.Run(fmt.Sprintf("%dk-%s", cfg.window/1000, cfg.mode), func(t *testing.T) {
		for _, s := range sessions {
			t.Run(s.name, func(t *testing.T) {
				t.Parallel()
				r := runSession(t, cfg, s)
				mu.Lock()
				defer mu.Unlock()
				rw.add(r)
			})
		}
	})
	return rw
}

// TestContextBench is make bench-context: every window, the lossy and
// the faithful summariser, the whole corpus; it prints the table.
func TestContextBench(t *testing.T) {
	if !*full {
		t.Skip("the whole bench runs with -ctxbench.full (make bench-context)")
	}
	start := time.Now()
	var rows []*row
	c := append(corpus(*sessions, 50, *maxTurns), imported(seed, 60)...)
	var ws []int
	for _, f := range strings.Split(*windows, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("-ctxbench.windows: %v", err)
		}
		ws = append(ws, w)
		rows = append(rows, measure(t, config{window: w, mode: llmtest.SummaryLossy}, c))
	}
	// The other summarisers, for comparison: the first window, the first
	// four sessions.
	for _, mode := range []llmtest.SummaryMode{llmtest.SummaryFaithful, llmtest.SummaryHallucinating,
		llmtest.SummaryFail500, llmtest.SummaryOverflow, llmtest.SummaryEmpty} {
		rows = append(rows, measure(t, config{window: ws[0], mode: mode}, c[:min(4, len(c))]))
	}
	printTable(os.Stdout, rows, time.Since(start))
}

// floor is the least (or, for costs, the most) the short bench accepts:
// today's figures with a little margin, so that a change that makes what
// reaches the model worse fails the build. A change that makes it better
// raises the floor (BENCHMARKS.md keeps the history).
type floor struct {
	recall, artifacts, continuation, decisions float64 // facts@1, percent
	rangePaths                                 float64 // range@1 paths, percent
	cachedShare                                float64 // percent
	maxReorient, maxViolations, maxRejected    int     // maxReorient: the median's ceiling
	maxInputPerTask, maxSummariesPerTurn       float64
}

// shortFloor was set from the baseline (b0c8f6a, BENCHMARKS.md): facts@1
// 100/64/100/100, range paths 100, cached 86 %, 17 676 tokens a task,
// 0.081 summaries a turn, re-orientation median 1. Issue 21 (the evidence
// ledger, the re-orientation packet, the standing instructions; 1d75f98)
// raised the artifacts kept to 100 % and, with the packet each resume adds
// and the block after each summary, the cost: 19 783 tokens a task, 0.112
// summaries a turn, 81 % cached. The floors follow, with a small margin.
var shortFloor = floor{
	recall: 95, artifacts: 95, continuation: 95, decisions: 95,
	rangePaths:  95,
	cachedShare: 78,
	maxReorient: 1, maxViolations: 0, maxRejected: 0,
	maxInputPerTask: 21000, maxSummariesPerTurn: 0.125,
}

// TestContextBenchShort is the bench's short form, part of make test: one
// window, three sessions, the lossy summariser, and floors.
func TestContextBenchShort(t *testing.T) {
	if testing.Short() {
		t.Skip("drives hundreds of clawdcode runs")
	}
	rw := measure(t, config{window: 8000, mode: llmtest.SummaryLossy}, corpus(3, 50, 120))
	var b strings.Builder
	printTable(&b, []*row{rw}, 0)
	t.Logf("\n%s", b.String())
	checkFloor(t, rw, shortFloor)
}

func checkFloor(t *testing.T, rw *row, f floor) {
	t.Helper()
	p, ok := rw.probes[1]
	if !ok {
		t.Fatal("no session reached its first compaction")
	}
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(1, b)) }
	for _, c := range []struct {
		class llmtest.FactClass
		min   float64
	}{{llmtest.FactRecall, f.recall}, {llmtest.FactArtifact, f.artifacts}, {llmtest.FactContinuation, f.continuation}, {llmtest.FactDecision, f.decisions}} {
		if got := pct(p.present[string(c.class)], p.planted[string(c.class)]); got < c.min {
			t.Errorf("after one compaction %.0f %% of the %s facts reach the model, the floor is %.0f %%", got, c.class, c.min)
		}
	}
	if got := pct(p.rangePresent["path"], p.rangePlanted["path"]); got < f.rangePaths {
		t.Errorf("%.0f %% of the compacted range's paths reach the model, the floor is %.0f %%", got, f.rangePaths)
	}
	tot := rw.total
	if got := pct(tot.cached, tot.prompt); got < f.cachedShare {
		t.Errorf("cached share %.0f %%, the floor is %.0f %%", got, f.cachedShare)
	}
	if got := perTask(tot.prompt, tot.tasks); got > f.maxInputPerTask {
		t.Errorf("%.0f input tokens a task, the ceiling is %.0f", got, f.maxInputPerTask)
	}
	if got := medianCost(rw.reorient); got > f.maxReorient {
		t.Errorf("re-orientation took a median of %s calls before the edit (%v; -1: never), the ceiling is %d", median(rw.reorient), rw.reorient, f.maxReorient)
	}
	if got := perTask(tot.summaries, tot.agentRequests); got > f.maxSummariesPerTurn {
		t.Errorf("%.3f summaries a turn, the ceiling is %.3f", got, f.maxSummariesPerTurn)
	}
	if rw.violated > f.maxViolations {
		t.Errorf("%d sessions did what the user forbade, the ceiling is %d", rw.violated, f.maxViolations)
	}
	if tot.rejected > f.maxRejected {
		t.Errorf("%d requests rejected, the ceiling is %d", tot.rejected, f.maxRejected)
	}
}

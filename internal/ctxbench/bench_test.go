package ctxbench

import (
	"flag"
	"fmt"
	"sync"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

var (
	full     = flag.Bool("ctxbench.full", false, "run the whole context bench (make bench-context) and print its table")
	windows  = flag.String("ctxbench.windows", "8000,32000,128000", "with -ctxbench.full: the windows, comma-separated")
	sessions = flag.Int("ctxbench.sessions", 20, "with -ctxbench.full: how many sessions of the corpus")
	maxTurns = flag.Int("ctxbench.turns", 500, "with -ctxbench.full: the longest session's model requests")
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
	c := corpus(*sessions, 50, *maxTurns)
	for _, f := range strings.Split(*windows, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("-ctxbench.windows: %v", err)
		}
		for _, mode := range []llmtest.SummaryMode{llmtest.SummaryLossy} {
			rows = append(rows, measure(t, config{window: w, mode: mode}, c))
		}
	}
	printTable(os.Stdout, rows, time.Since(start))
}

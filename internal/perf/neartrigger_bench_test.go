package perf

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// Near the trigger: a session grows by nearTriggerTurnBytes (~2k tokens)
// a turn in a nearTriggerWindow-token window until a turn compacts.
const (
	nearTriggerWindow    = 64000
	nearTriggerTurnBytes = 8 << 10
	nearTriggerMaxTurns  = 80
	// nearTriggerTurns is how many turns before the compacting one count
	// as near the trigger: those whose cheap byte bound already passes it,
	// so the context is sized by exact counts (the tokenizer is opened).
	nearTriggerTurns = 4
)

// BenchmarkContinuedTurnNearTrigger plays `-c -p` turns, each a new
// process, until one compacts, and compares the turns near the trigger
// (the last nearTriggerTurns before the compacting one, which must size
// the context exactly and so open the tokenizer) with ordinary turns
// (turns 2–6, sized by the server's count and byte bounds). CPU is the
// child's own (user + system), RSS its peak. Target (issue 22): a turn
// near the trigger ≤ 2× an ordinary turn's CPU and ≤ 24 MiB.
func BenchmarkContinuedTurnNearTrigger(b *testing.B) {
	w := newWorld(b)
	w.env = append(w.env, fmt.Sprintf("CLAWDCODE_CONTEXT_WINDOW=%d", nearTriggerWindow))
	w.srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Text(fmt.Sprintf("Noted: %d messages so far.", len(r.Messages)))
	})
	var ordinary, near, compacting sample
	var ordinaryCPU, nearCPU, compactCPU []time.Duration
	iter := 0
	for b.Loop() {
		w.home = filepath.Join(w.root, fmt.Sprintf("home-%d", iter))
		iter++
		turns := playUntilCompaction(b, w)
		for _, r := range turns[1:6] {
			ordinary.add(r)
			ordinaryCPU = append(ordinaryCPU, r.cpu)
		}
		last := len(turns) - 1
		for _, r := range turns[last-nearTriggerTurns : last] {
			near.add(r)
			nearCPU = append(nearCPU, r.cpu)
		}
		compacting.add(turns[last])
		compactCPU = append(compactCPU, turns[last].cpu)
	}
	ordinary.report(b, "ordinary-")
	near.report(b, "near-")
	compacting.report(b, "compacting-")
	b.ReportMetric(ms(median(ordinaryCPU)), "ordinary-cpu-ms")
	b.ReportMetric(ms(slices.Max(nearCPU)), "near-max-cpu-ms")
	b.ReportMetric(ms(median(compactCPU)), "compacting-cpu-ms")
	b.ReportMetric(float64(slices.Max(nearCPU))/float64(median(ordinaryCPU)), "near/ordinary-cpu")
}

// playUntilCompaction plays turns of one new session until a turn
// compacts, and returns every turn's run, the compacting one last.
func playUntilCompaction(b *testing.B, w *world) []run {
	var turns []run
	for i := range nearTriggerMaxTurns {
		r := w.run(b, nearTriggerTurnArgs(i)...)
		var res jsonResult
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.IsError {
			b.Fatalf("turn %d: %v, result %+v", i+1, err, res)
		}
		turns = append(turns, r)
		if res.Compactions > 0 {
			if i < 6+nearTriggerTurns {
				b.Fatalf("turn %d compacted: too early to tell ordinary turns from those near the trigger", i+1)
			}
			return turns
		}
	}
	b.Fatalf("no turn of %d compacted", nearTriggerMaxTurns)
	return nil
}

// nearTriggerTurnArgs are the arguments of the near-trigger session's
// turn i (from 0): a new session, then -c, each with ~2k tokens of prose.
func nearTriggerTurnArgs(i int) []string {
	args := []string{"-p", "--output-format", "json",
		fmt.Sprintf("Turn %d. Keep this in mind:\n%s", i+1, prose(uint64(5000+i), nearTriggerTurnBytes))}
	if i > 0 {
		args = append([]string{"-c"}, args...)
	}
	return args
}

package perf

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// BenchmarkVersion is `clawdcode --version`: process start to exit.
// Target ≤ 5 ms, ≤ 16 MiB.
func BenchmarkVersion(b *testing.B) {
	w := newWorld(b)
	var s sample
	for b.Loop() {
		r := w.run(b, "--version")
		if !strings.HasPrefix(r.stdout, "clawdcode ") {
			b.Fatalf("--version printed %q", r.stdout)
		}
		s.add(r)
	}
	s.report(b, "")
}

// BenchmarkOneShot is `clawdcode -p "…"` answered at once by the server: a
// new session, one request, the answer printed. Target ≤ 40 ms, ≤ 32 MiB.
func BenchmarkOneShot(b *testing.B) {
	w := newWorld(b)
	w.srv.SetResponder(func(llmtest.Request) llmtest.Reply {
		return llmtest.Text("The answer is 42: six times seven.")
	})
	var s sample
	for b.Loop() {
		r := w.run(b, "-p", "What is six times seven?")
		if !strings.Contains(r.stdout, "The answer is 42") {
			b.Fatalf("stdout %q", r.stdout)
		}
		s.add(r)
	}
	s.report(b, "")
}

// BenchmarkReadRoundTrip is a -p run in which the model asks for Read,
// gets the file, and answers: two requests, one tool run. Target ≤ 50 ms.
func BenchmarkReadRoundTrip(b *testing.B) {
	w := newWorld(b)
	src := code(1, 8<<10)
	if err := os.WriteFile(filepath.Join(w.project, "main.go"), []byte(src), 0o600); err != nil {
		b.Fatal(err)
	}
	w.srv.SetResponder(llmtest.Agent())
	var s sample
	for b.Loop() {
		r := w.run(b, "-p", "read main.go")
		if !strings.Contains(r.stdout, "Tool results:") {
			b.Fatalf("stdout %q", r.stdout)
		}
		s.add(r)
	}
	s.report(b, "")
	// The model must have been sent the file, not an error.
	last := w.srv.LastRequest()
	tool := last.Messages[len(last.Messages)-1]
	if !strings.Contains(tool.Content, "package example") {
		b.Fatalf("tool result sent to the model: %q", clip(tool.Content, 300))
	}
}

// continuedTurns is how many turns BenchmarkContinuedTurns plays, and
// turnPromptBytes how much each adds to the history (~4k tokens).
const (
	continuedTurns  = 30
	turnPromptBytes = 16 << 10
)

// BenchmarkContinuedTurns plays 30 turns of one session, each a new
// process (`-p` first, then `-c -p`), each adding a ~16 KB message (~4k
// tokens) to the history. The window is 200k tokens: no compaction fires
// within 30 turns (~125k tokens), but the byte bound passes the 160k
// trigger after ~10 turns, so from then on a turn must size the context
// from counts, not bytes. Reported: the wall time of turns 1, 15 and 30
// and the slowest turn. Target ≤ 60 ms, flat. Llmtest is the validating
// server; RawServer does not decode the request (the client's own time).
func BenchmarkContinuedTurns(b *testing.B) {
	b.Run("Llmtest", func(b *testing.B) {
		w := newWorld(b)
		w.srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
			return llmtest.Text(fmt.Sprintf("Noted: %d messages so far.", len(r.Messages)))
		})
		playTurns(b, w)
		b.ReportMetric(float64(w.srv.LastRequest().Tokens)/1000, "last-request-ktok")
	})
	b.Run("RawServer", func(b *testing.B) {
		w := newWorld(b)
		w.baseURL = newRawServer(b)
		playTurns(b, w)
	})
}

func playTurns(b *testing.B, w *world) {
	w.env = append(w.env, "CLAWDCODE_CONTEXT_WINDOW=200000")
	prompts := make([]string, continuedTurns)
	for i := range prompts {
		prompts[i] = fmt.Sprintf("Turn %d. Keep this in mind:\n%s", i+1, prose(uint64(1000+i), turnPromptBytes))
	}
	perTurn := make([]sample, continuedTurns)
	var worst sample
	iter := 0
	for b.Loop() {
		w.home = filepath.Join(w.root, fmt.Sprintf("home-%d", iter))
		iter++
		for i, prompt := range prompts {
			args := []string{"-p", "--output-format", "json", prompt}
			if i > 0 {
				args = append([]string{"-c"}, args...)
			}
			r := w.run(b, args...)
			var res jsonResult
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.IsError || res.Compactions != 0 {
				b.Fatalf("turn %d: %v, result %+v", i+1, err, res)
			}
			if want := fmt.Sprintf("Noted: %d messages", 2+2*i); !strings.HasPrefix(res.Result, want) {
				b.Fatalf("turn %d: answer %q, want %q…: history not continued", i+1, res.Result, want)
			}
			perTurn[i].add(r)
			worst.walls = append(worst.walls, r.wall)
		}
	}
	for _, t := range []int{1, 15, 30} {
		perTurn[t-1].report(b, fmt.Sprintf("turn%02d-", t))
	}
	b.ReportMetric(ms(maxDuration(worst.walls)), "slowest-turn-ms")
	curve := make([]string, continuedTurns)
	for i := range perTurn {
		curve[i] = fmt.Sprintf("%.0f", ms(median(perTurn[i].walls)))
	}
	b.Logf("median ms per turn: %s", strings.Join(curve, " "))
}

func maxDuration(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

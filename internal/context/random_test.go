package contextmgr

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
)

// TestRandomSessionsAlwaysFit plays seeded random sessions — tool-heavy
// turns, huge results, orphan user turns, a flaky summarizer that sometimes
// answers at full length, resumes — and checks after every step that the
// request is well formed and below the trigger, and that a resume sends
// the same request.
func TestRandomSessionsAlwaysFit(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 42))
			window := 2000 + rng.IntN(18000)
			f := newFixture(t, window, nil)
			f.llm.answer = func(n int, req llm.Request) (*llm.Response, error) {
				switch rng.IntN(5) {
				case 0:
					return nil, errServer
				case 1:
					return &llm.Response{Content: strings.Repeat("x", 4*req.MaxCompletionTokens-8)}, nil
				}
				return &llm.Response{Content: fmt.Sprintf("summary %d", n)}, nil
			}
			text := func(max int) string { return strings.Repeat("w", rng.IntN(max)) }
			for step := range 60 {
				f.user(fmt.Sprintf("step %d %s", step, text(2000)))
				if rng.IntN(6) == 0 {
					continue // an orphan turn: no reply was recorded
				}
				for range rng.IntN(4) {
					req := f.request()
					checkFits(t, f, req)
					var calls []chat.ToolCall
					for c := range rng.IntN(4) {
						calls = append(calls, chat.ToolCall{ID: fmt.Sprintf("s%d-%d-%d", step, len(f.log.recs), c), Name: "Read", Arguments: `{"file_path":"a.go"}`})
					}
					if err := f.m.AddAssistant(&llm.Response{Content: text(300), ToolCalls: calls, Usage: llm.Usage{PromptTokens: requestSize(f.counter, req)}}); err != nil {
						t.Fatal(err)
					}
					for _, c := range calls {
						if rng.IntN(10) == 0 {
							continue // lost result
						}
						size := rng.IntN(3000)
						if rng.IntN(8) == 0 {
							size = 4 * window * (1 + rng.IntN(2)) // bigger than the window
						}
						if err := f.m.AddToolResult(c.ID, strings.Repeat("r", size), ""); err != nil {
							t.Fatal(err)
						}
					}
				}
				checkFits(t, f, f.request())
				f.reply(text(400))
				if rng.IntN(10) == 0 {
					f.m = f.resume(rng.IntN(2) == 0)
				}
			}
		})
	}
}

func checkFits(t *testing.T, f *fixture, req llm.Request) {
	t.Helper()
	checkWellFormed(t, req.Messages)
	if n := requestSize(f.counter, req); n >= f.m.trigger() {
		t.Fatalf("request of %d tokens, trigger %d (window %d) compactions %d entries %d notices %v bound %d exact %d calib %+v", n, f.m.trigger(), f.m.window, f.m.Compactions(), len(f.m.entries), f.notices, f.m.requestTokens(bound), f.m.requestTokens(exact), f.m.calib)
	}
	if last := f.log.recs[len(f.log.recs)-1].Record; last.IsBoundary() {
		t.Fatal("a boundary without its summary")
	}
}

func TestFormatContext(t *testing.T) {
	t.Parallel()
	out := FormatContext(Usage{Tokens: 30000, Window: 128000, Threshold: 0.8, Trigger: 102400, System: 2000, Tools: 3000, Summary: 5000, Messages: 20000})
	for _, want := range []string{
		"Context usage: ~30000 / 128000 tokens (23%)\n",
		"[███████░",
		"system prompt",
		"summary",
		"auto-compaction at 102400 tokens (80% / 72400 tokens away)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("FormatContext lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 7 {
		t.Errorf("%d lines:\n%s", len(lines), out)
	}
	full := FormatContext(Usage{Tokens: 130000, Window: 128000, Trigger: 102400})
	if !strings.Contains(full, "reached") || strings.Contains(full, "|") {
		t.Errorf("over the trigger:\n%s", full)
	}
	fb := FormatCompact(&CompactResult{PreTokens: 1000, PostTokens: 250, Fallback: true, Err: "summary call: 500"})
	if !strings.Contains(fb, "1000 → 250 tokens (-75%)") || !strings.Contains(fb, "(fallback: summary failed: summary call: 500)") {
		t.Errorf("FormatCompact:\n%s", fb)
	}
}

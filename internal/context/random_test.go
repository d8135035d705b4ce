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
	if n := requestSize(f.counter, req); n >= f.m.guard.trigger() {
		t.Fatalf("request of %d tokens, trigger %d (window %d) compactions %d entries %d notices %v bound %d exact %d calib %+v", n, f.m.guard.trigger(), f.m.guard.effective, f.m.Compactions(), len(f.m.live.entries()), f.notices, f.m.acct.requestTokens(bound), f.m.acct.requestTokens(exact), f.m.acct.calib)
	}
	if last := f.log.recs[len(f.log.recs)-1].Record; last.IsBoundary() {
		t.Fatal("a boundary without its summary")
	}
}

//go:build unix

package repl

import (
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The status line says what today's sessions cost, as clawdcode usage
// counts them, and follows each turn: a reply of 1,000,000 prompt and
// 100,000 completion tokens at gpt-4o's prices is $3.50, two are $7.00.
func TestClawdcodeStatusLineShowsTodaysCost(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(func(llmtest.Request) llmtest.Reply {
		u := llmtest.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000}
		return llmtest.Reply{Text: "Noted.", Usage: &u}
	})
	term := startClawdcode(t, srv, "--context-window", "2000000")
	term.expect("today $0.00")
	term.send("first\r")
	term.expect("Noted.")
	term.expect("today $3.50")
	term.send("second\r")
	term.expect("today $7.00")
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("Ctrl-D: exit %d", code)
	}
}

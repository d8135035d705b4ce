//go:build unix

package repl

import (
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestHelpWrapsAtWordsAt40Columns: /help at 40 columns wraps its long
// descriptions itself, at words, instead of letting the terminal cut them
// mid-word, and lists the keys. The capture joins the rows the terminal
// wrapped (-J), so a row the terminal cut shows as one line wider than
// the pane.
func TestHelpWrapsAtWordsAt40Columns(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	s := startScreen(t, srv, 40, 30)
	s.waitPrompt()
	s.keys("/help")
	s.sendKeys("Enter")
	s.waitFor("exit on an empty line")
	scr := s.waitPrompt()
	start := strings.LastIndex(scr, "Commands:")
	end := strings.LastIndex(scr, "exit on an empty line")
	if start < 0 || end < start {
		t.Fatalf("no /help on screen:\n%s", scr)
	}
	help := scr[start:end]
	for _, line := range strings.Split(help, "\n") {
		if w := runewidth.StringWidth(line); w >= 40 {
			t.Errorf("a /help row of %d columns, wrapped by the terminal: %q", w, line)
		}
	}
	for _, want := range []string{"Keys:", "Ctrl-R", "Shift-Enter", "Ctrl-O"} {
		if !strings.Contains(help, want) {
			t.Errorf("/help lacks %q:\n%s", want, help)
		}
	}
	t.Logf("\n%s", help)
}

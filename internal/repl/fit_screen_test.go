//go:build unix

package repl

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// rows is the pane's rows as the terminal shows them (with the
// scrollback), not joined where a line ran over into the next row.
func (s *tmuxScreen) rows() []string {
	s.t.Helper()
	out := s.tmux("capture-pane", "-p", "-S", "-200", "-t", s.target)
	return strings.Split(strings.TrimRight(out, "\n "), "\n")
}

// wantWholeOnARow fails unless some row of the pane holds text whole: a
// line the terminal broke for the REPL would split it across two rows.
func wantWholeOnARow(t *testing.T, s *tmuxScreen, texts ...string) {
	t.Helper()
	rows := s.rows()
	for _, text := range texts {
		found := false
		for _, r := range rows {
			found = found || strings.Contains(r, text)
		}
		if !found {
			t.Errorf("no row holds %q whole:\n%s", text, strings.Join(rows, "\n"))
		}
	}
}

// TestScreenNarrowCommandOutputWrapsAtWords (issue 25: everything shown
// wraps at words): at 40 columns the welcome line and what /new prints
// are broken between words, not by the terminal inside one.
func TestScreenNarrowCommandOutputWrapsAtWords(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("hello there"))
	s := startScreen(t, srv, 40, 20)
	s.waitPrompt()
	wantWholeOnARow(t, s, "~/project", "exit)")

	s.keys("hi")
	s.sendKeys("Enter")
	s.waitFor("hello there")
	s.waitPrompt()
	s.keys("/new jam")
	s.sendKeys("Enter")
	s.waitFor("stays resumable.")
	s.waitPrompt()
	wantWholeOnARow(t, s, "previous one", "stays resumable.")
}

// TestScreenRewindLineWrapsAtWords: at 120 columns /rewind's line about a
// long message is broken between words.
func TestScreenRewindLineWrapsAtWords(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("noted"))
	s := startScreen(t, srv, 120, 30)
	s.waitPrompt()
	s.keys("a rather long message that goes on and on to fill more than sixty columns of text")
	s.sendKeys("Enter")
	s.waitFor("noted")
	s.waitPrompt()
	s.keys("/rewind")
	s.sendKeys("Enter")
	s.waitFor("Rewind to just before which message?")
	s.sendKeys("Enter")
	s.waitFor("Rewind to before:")
	s.keys("y")
	s.waitFor("Rewound to before")
	s.waitPrompt()
	wantWholeOnARow(t, s, "were).")
}

//go:build unix

package repl

import (
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// History flattened a multi-line prompt onto one line, in the editor and
// in the file, so recalling it sent something else than was sent.
func TestScreenHistoryKeepsNewlines(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("noted"), llmtest.Text("again"), llmtest.Text("from the file"))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("first line")
	s.sendKeys("C-j")
	s.keys("second line")
	s.sendKeys("Enter")
	s.waitFor("noted")
	s.waitPrompt()
	s.sendKeys("Up")
	s.sendKeys("Up") // from the entry's second line to its first, then nothing older
	s.sendKeys("Enter")
	s.waitFor("again")
	if got := lastUser(t, srv); got != "first line\nsecond line" {
		t.Fatalf("the recalled prompt was sent as %q", got)
	}

	// A new process reads it back from the history file whole.
	s = s.again(100, 30)
	s.waitPrompt()
	s.sendKeys("Up")
	s.waitFor("second line")
	s.sendKeys("Enter")
	s.waitFor("from the file")
	if got := lastUser(t, srv); got != "first line\nsecond line" {
		t.Fatalf("the prompt recalled from the history file was sent as %q", got)
	}
}

// Ctrl-P and Ctrl-N walked the history but lost the half-typed draft that
// Up and Down keep: they are now the same actions.
func TestScreenCtrlPKeepsDraft(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("first answer"), llmtest.Text("second answer"))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("older prompt")
	s.sendKeys("Enter")
	s.waitFor("first answer")
	s.waitPrompt()
	s.keys("half typed")
	s.sendKeys("C-p")
	s.sendKeys("C-n")
	s.sendKeys("Enter")
	s.waitFor("second answer")
	if got := lastUser(t, srv); got != "half typed" {
		t.Fatalf("Ctrl-P then Ctrl-N sent %q, want the draft back", got)
	}
}

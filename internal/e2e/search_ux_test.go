package e2e

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestSearchHighlightsOnATerminalOnly: issue 25 item 10. On a terminal
// the words searched for are bold in each snippet, and the text from the
// record around them stays inert; redirected, the output is plain text.
func TestSearchHighlightsOnATerminalOnly(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	w.MustRun("-p", "where did the Kumquat go"+sgrColour)
	screen := w.runTTY(w.Project, "search", "kumquat")
	if !strings.Contains(screen, "where did the \x1b[1mKumquat\x1b[22m go") {
		t.Errorf("the matched word is not bold on a terminal:\n%q", screen)
	}
	checkEscapes(t, "search on a terminal", screen, "Open a hit's session with: clawdcode -r ")
	plain := w.MustRun("search", "kumquat").Stdout
	if strings.Contains(plain, "\x1b[1m") || !strings.Contains(plain, "    where did the Kumquat go") {
		t.Errorf("redirected search output is not plain:\n%q", plain)
	}
}

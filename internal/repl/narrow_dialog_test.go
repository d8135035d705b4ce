//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// longEditLine is a changed line of 100 characters: at 40 columns the
// edit dialog must wrap it, never cut it.
const longEditLine = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa zz"

// tailEditLine is the last line of the edit, beyond the dialog's preview.
const tailEditLine = "quebec romeo sierra tango uniform victor whiskey xray yankee quebec2 romeo2 sierra2 tango2 zulu"

// assertWords fails unless every word of line is on the screen.
func assertWords(t *testing.T, scr, line string) {
	t.Helper()
	for _, w := range strings.Fields(line) {
		if !strings.Contains(scr, w) {
			t.Fatalf("the word %q is not on the screen:\n%s", w, scr)
		}
	}
}

// TestNarrowEditDialogWrapsChangedLines: at 40×30 the permission question
// for an Edit shows all of a 100-character new line, wrapped, and so does
// 'v' (view all).
func TestNarrowEditDialogWrapsChangedLines(t *testing.T) {
	t.Parallel()
	if len(longEditLine) != 100 {
		t.Fatalf("the line is %d characters", len(longEditLine))
	}
	srv := llmtest.NewServer(t, llmtest.Options{})
	// The new text: the long line, 24 short ones, and another long line
	// that only 'v' shows.
	newText := longEditLine + strings.Repeat(`\nshort`, 24) + `\n` + tailEditLine
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"notes.txt"}`)),
		llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path":"notes.txt","old_string":"old","new_string":"`+newText+`"}`)),
		llmtest.Text("done."),
	)
	s := startScreen(t, srv, 40, 30)
	if err := os.WriteFile(filepath.Join(s.dir, "notes.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt()
	s.keys("change it")
	s.sendKeys("Enter")
	scr := s.waitFor("No, tell the model")
	t.Logf("the edit dialog at 40 columns:\n%s", scr)
	assertWords(t, scr, longEditLine)
	s.keys("v")
	scr = s.waitFor("zulu")
	scr = s.waitFor("No, tell the model")
	assertWords(t, scr, tailEditLine)
	s.keys("1")
	s.waitFor("done.")
}

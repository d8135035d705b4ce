//go:build unix

package repl

import (
	"fmt"
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

// editDialogAt40 runs a turn whose Edit of notes.txt ("old" → newText, a
// JSON string's content) asks at 40×30, and returns the screen with the
// question.
func editDialogAt40(t *testing.T, newText string) (*tmuxScreen, string) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Options{})
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
	return s, s.waitFor("No, tell the model")
}

// TestNarrowEditDialogWrapsChangedLines: at 40×30 the permission question
// for an Edit shows all of a 100-character new line, wrapped, and so does
// 'v' (view all).
func TestNarrowEditDialogWrapsChangedLines(t *testing.T) {
	t.Parallel()
	if len(longEditLine) != 100 {
		t.Fatalf("the line is %d characters", len(longEditLine))
	}
	// The new text: the long line, 24 short ones, and another long line
	// that only 'v' shows.
	s, scr := editDialogAt40(t, longEditLine+strings.Repeat(`\nshort`, 24)+`\n`+tailEditLine)
	t.Logf("the edit dialog at 40 columns:\n%s", scr)
	assertWords(t, scr, longEditLine)
	s.keys("v")
	s.waitFor("zulu")
	scr = s.waitFor("No, tell the model")
	assertWords(t, scr, tailEditLine)
	s.keys("1")
	s.waitFor("done.")
}

// TestDenyWithNote: "No, tell the model to do something else" opens a
// one-line input, and what the user types there reaches the model in the
// denied call's result.
func TestDenyWithNote(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"notes.txt","content":"hello\n"}`)),
		llmtest.Text("understood."),
	)
	s := startScreen(t, srv, 40, 30)
	s.waitPrompt()
	s.keys("write it")
	s.sendKeys("Enter")
	s.waitFor("No, tell the model")
	s.keys("n")
	s.waitFor("model do instead?")
	s.keys("use the helper instead")
	s.sendKeys("Enter")
	s.waitFor("understood.")
	if got := llmtest.RequestText(srv.LastRequest()); !strings.Contains(got, "use the helper instead") {
		t.Fatalf("the model never heard the user's note; the last request:\n%s", got)
	}
}

// TestCompactPreviewDigitChooses: in /compact --preview's dialog a digit
// picks the option of that number, as in the permission dialog, instead
// of going into the filter.
func TestCompactPreviewDigitChooses(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	agent := llmtest.Agent()
	srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if llmtest.IsSummaryRequest(r) {
			return llmtest.Text("DRAFT-SUMMARY: nothing of note.")
		}
		return agent(r)
	})
	s := startScreen(t, srv, 80, 30)
	s.waitPrompt()
	for i := range 3 {
		s.keys(fmt.Sprintf("message number %d %s", i, strings.Repeat("with a few more words ", 6)))
		s.sendKeys("Enter")
		s.waitFor(fmt.Sprintf("You said: message number %d", i))
		s.waitPrompt()
	}
	s.keys("/compact --preview")
	s.sendKeys("Enter")
	s.waitFor("Apply this compaction?")
	s.keys("1")
	s.waitFor("Compacted:")
}

// longCell is a table cell far wider than a 40-column terminal.
const longCell = "the cache keeps every parsed module until the session ends unless memory runs short"

// TestNarrowTableWrapsCells: at 40 columns a 3-column table wraps a long
// cell within its column, and a table too wide for that is drawn as a
// list; every word is on the screen either way.
func TestNarrowTableWrapsCells(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.Text("| Name | Kind | Notes |\n|---|---|---|\n| cache | map | "+longCell+" |\n\nend of table one."),
		llmtest.Text("| a | b | c | d | e | f |\n|---|---|---|---|---|---|\n| first1 | second2 | third3 | fourth4 | fifth5 | sixth6 |\n\nend of table two."),
	)
	s := startScreen(t, srv, 40, 30)
	s.waitPrompt()
	s.keys("show a table")
	s.sendKeys("Enter")
	scr := s.waitFor("end of table one.")
	t.Logf("a table at 40 columns:\n%s", scr)
	assertWords(t, scr, "Name Kind Notes cache map "+longCell)
	s.waitPrompt()
	s.keys("and a wide one")
	s.sendKeys("Enter")
	scr = s.waitFor("end of table two.")
	t.Logf("a wide table at 40 columns:\n%s", scr)
	assertWords(t, scr, "first1 second2 third3 fourth4 fifth5 sixth6")
}

//go:build unix

package repl

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenCapturesEditFailureTypeAheadRewind appends what the screen
// shows of issue 25's closing items (the edit dialog at 40 columns, a
// failed command collapsed, type-ahead during a turn, /rewind putting the
// message back) to the file CLAWDCODE_SCREEN_CAPTURES names; without it
// the test is skipped. Each behaviour has its own asserting test
// (TestNarrowEditDialogWrapsChangedLines, TestScreenFailedCommandSaysSoOnItsFirstLine,
// TestScreenTypeAheadShownUnderTheTurn, TestScreenRewindPastACompactionPutsThePromptBack);
// this one only shows them.
func TestScreenCapturesEditFailureTypeAheadRewind(t *testing.T) {
	capture, done := screenCaptures(t)
	captureEditDialog(t, capture)
	captureFailedCommand(t, capture)
	captureTypeAhead(t, capture)
	captureRewind(t, capture)
	done()
}

// screenCaptures skips the test unless CLAWDCODE_SCREEN_CAPTURES names a
// file; capture notes what a screen shows under a title, and done appends
// the notes to the file.
func screenCaptures(t *testing.T) (capture func(title string, s *tmuxScreen), done func()) {
	file := os.Getenv("CLAWDCODE_SCREEN_CAPTURES")
	if file == "" {
		t.Skip("set CLAWDCODE_SCREEN_CAPTURES=<file> to write the screen captures")
	}
	var out strings.Builder
	capture = func(title string, s *tmuxScreen) {
		fmt.Fprintf(&out, "==== %s (tmux capture-pane of the real binary against llmtest) ====\n%s\n\n", title, s.visible())
	}
	return capture, func() { appendCaptures(t, file, out.String()) }
}

// appendCaptures adds text to the captures file: the capture tests run one
// after the other (-run TestScreenCaptures) into the same file.
func appendCaptures(t *testing.T, file, text string) {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// captureEditDialog: the permission question for an Edit with a
// 100-character changed line, at 40×30.
func captureEditDialog(t *testing.T, capture func(string, *tmuxScreen)) {
	s, _ := editDialogAt40(t, longEditLine)
	capture("the edit dialog at 40 columns: the 100-character line wrapped, not cut", s)
	s.keys("n")
	s.kill()
}

// captureFailedCommand: a Bash command that prints six lines and fails.
func captureFailedCommand(t *testing.T, capture func(string, *tmuxScreen)) {
	s, _ := failedCommandTurn(t, 20)
	capture("a failed command, collapsed: the exit status and the error on its first line", s)
	s.kill()
}

// captureTypeAhead: keys typed while the model's answer is held back.
func captureTypeAhead(t *testing.T, capture func(string, *tmuxScreen)) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	resume := make(chan struct{})
	srv.Enqueue(llmtest.Reply{Text: "the answer, once the server goes on", Resume: resume, PauseAfter: 1})
	s := startScreen(t, srv, 100, 12)
	s.waitPrompt()
	s.keys("first question")
	s.sendKeys("Enter")
	s.waitFor("thinking")
	s.keys("and a second one typed meanwhile")
	s.waitFor("queued: and a second one typed meanwhile")
	capture("type-ahead shown under the running turn", s)
	close(resume)
	s.waitFor("> and a second one typed meanwhile")
	capture("the turn over: the type-ahead is the entry, still editable", s)
	s.kill()
}

// captureRewind: /rewind to a message a compaction replaced.
func captureRewind(t *testing.T, capture func(string, *tmuxScreen)) {
	s, _ := compactedSession(t)
	s.waitPrompt()
	s.keys("/rewind")
	s.sendKeys("Enter")
	s.waitFor("Rewind to just before which message?")
	capture("/rewind lists the messages a compaction replaced too", s)
	s.keys("bravo")
	s.sendKeys("Enter")
	s.waitFor("Rewind to before:")
	s.keys("y")
	s.waitFor("Rewound to before")
	s.waitPrompt()
	capture("/rewind puts the message back in the entry, to edit or send", s)
	s.kill()
}

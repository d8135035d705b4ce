//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// afterUsersChange starts the REPL, has the agent write a.txt, and then
// changes a.txt as a user would; it returns the terminal, the file and
// the user's content.
func afterUsersChange(t *testing.T, mine string) (*terminal, string) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	term := startClawdcode(t, srv, "--dangerously-skip-permissions")
	file := filepath.Join(term.cmd.Dir, "a.txt")
	term.expectPrompt()
	term.send("write a.txt the agent's text\r")
	term.expect("Tool results:")
	term.expectPrompt()
	if err := os.WriteFile(file, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	return term, file
}

// keptAndExit checks the user's change is still there and ends the REPL.
func keptAndExit(t *testing.T, term *terminal, file, mine string) {
	t.Helper()
	if b, err := os.ReadFile(file); err != nil || string(b) != mine {
		t.Fatalf("a.txt = %q (%v) after answering no, want the user's change kept", b, err)
	}
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestClawdcodeUndoAsksBeforeLosingTheUsersChange: issue 17 item 8. When
// the user changed a file after the agent's edit, /undo shows what would
// be lost and asks: no keeps the user's change, yes restores.
func TestClawdcodeUndoAsksBeforeLosingTheUsersChange(t *testing.T) {
	t.Parallel()
	mine := "the agent's text\nthe user's line\n"
	term, file := afterUsersChange(t, mine)

	term.send("/undo\r")
	term.expect("a.txt changed since the agent's edit")
	term.expect("-the user's line")
	term.expect("Restore anyway and lose them?")
	term.send("n\r")
	term.expect("your changes are kept")
	term.expectPrompt()
	if b, err := os.ReadFile(file); err != nil || string(b) != mine {
		t.Fatalf("a.txt = %q (%v) after answering no, want the user's change kept", b, err)
	}

	term.send("/undo\r")
	term.expect("Restore anyway and lose them?")
	term.send("y\r")
	term.expect("removed  a.txt")
	term.expectPrompt()
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("a.txt is still there after answering yes: %v", err)
	}
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestClawdcodeRewindAsksBeforeLosingTheUsersChange: /rewind's file
// restore asks the same question; no keeps the file and the conversation.
func TestClawdcodeRewindAsksBeforeLosingTheUsersChange(t *testing.T) {
	t.Parallel()
	mine := "the user's version\n"
	term, file := afterUsersChange(t, mine)
	term.send("/rewind\r")
	term.expect("Rewind to just before which message?")
	term.send("1")
	term.expect("Yes, and restore the 1 file(s)")
	term.send("1")
	term.expect("-the user's version")
	term.expect("Restore anyway and lose them?")
	term.send("n\r")
	term.expect("your changes are kept")
	term.expectPrompt()
	keptAndExit(t, term, file, mine)
}

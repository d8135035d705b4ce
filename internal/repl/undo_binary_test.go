//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestClawdcodeUndoAsksBeforeLosingTheUsersChange: issue 17 item 8. When
// the user changed a file after the agent's edit, /undo shows what would
// be lost and asks: no keeps the user's change, yes restores.
func TestClawdcodeUndoAsksBeforeLosingTheUsersChange(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	term := startClawdcode(t, srv, "--dangerously-skip-permissions")
	file := filepath.Join(term.cmd.Dir, "a.txt")
	term.expectPrompt()
	term.send("write a.txt the agent's text\r")
	term.expect("Tool results:")
	term.expectPrompt()
	mine := "the agent's text\nthe user's line\n"
	if err := os.WriteFile(file, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}

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
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	term := startClawdcode(t, srv, "--dangerously-skip-permissions")
	file := filepath.Join(term.cmd.Dir, "a.txt")
	term.expectPrompt()
	term.send("write a.txt the agent's text\r")
	term.expect("Tool results:")
	term.expectPrompt()
	mine := "the user's version\n"
	if err := os.WriteFile(file, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	term.send("/rewind\r")
	term.expect("Rewind to just before which message?")
	term.send("1\r")
	term.expect("Also restore 1 file(s)")
	term.send("y\r")
	term.expect("-the user's version")
	term.expect("Restore anyway and lose them?")
	term.send("n\r")
	term.expect("your changes are kept")
	term.expectPrompt()
	if b, err := os.ReadFile(file); err != nil || string(b) != mine {
		t.Fatalf("a.txt = %q (%v) after answering no, want the user's change kept", b, err)
	}
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

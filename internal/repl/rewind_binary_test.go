//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestClawdcodeRewindAndUndo: in the REPL, /rewind lists the messages
// newest first, picks an earlier one, asks before rewinding and whether
// to restore the files Write changed since, and the next request no
// longer carries what came after that message; a second /rewind returns
// to where the conversation was (issue 36, item 2), the file as it was
// too; /undo restores the files of the last turn.
func TestClawdcodeRewindAndUndo(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	term := startClawdcode(t, srv, "--dangerously-skip-permissions")
	file := filepath.Join(term.cmd.Dir, "a.txt")
	read := func() string {
		b, err := os.ReadFile(file)
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	term.expectPrompt()
	term.send("write a.txt one\r")
	term.expect("Tool results:")
	term.expectPrompt()
	term.send("write a.txt two\r")
	term.expect("Tool results:")
	term.expectPrompt()
	term.send("write a.txt three\r")
	term.expect("Tool results:")
	term.expectPrompt()
	if read() != "three" {
		t.Fatalf("a.txt = %q after three writes", read())
	}

	term.send("/undo\r")
	term.expect("restored  a.txt")
	term.expectPrompt()
	if read() != "two" {
		t.Fatalf("a.txt = %q after /undo, want two", read())
	}

	term.send("/rewind\r")
	term.expect("Rewind to just before which message? (newest first)")
	term.expect("1. write a.txt three")
	term.expect("2. write a.txt two")
	term.send("2") // the list is numbered from the newest: a digit picks
	term.expect(`Rewind to before: "write a.txt two"?`)
	term.expect("Yes, and restore the 1 file(s) Write and Edit changed since (a.txt)")
	term.send("1")
	term.expect("Rewound to before")
	term.expect("restored  a.txt")
	term.expectPrompt()
	if read() != "one" {
		t.Fatalf("a.txt = %q after /rewind to before the second write, want one", read())
	}

	// The rewound message is back in the entry: cleared (Ctrl-U), then
	// another one typed.
	term.expect("write a.txt two")
	term.send("\x15what now?\r")
	term.expect("You said: what now?")
	term.expectPrompt()
	if got := userWords(srv.LastRequest().Messages); got != "write a.txt one | what now?" {
		t.Fatalf("after the rewind the request's user messages are %q", got)
	}

	// /rewind returns to where the conversation was before the rewind,
	// and puts back the file the rewind restored (as /undo had left it).
	term.send("/rewind\r")
	term.expect("↪ Return to where you were before the last rewind (3 messages")
	term.send("3")
	term.expect(`Return to where you were before the last rewind (after "write a.txt three")?`)
	term.expect("Yes, and put back the 1 file(s) the rewind restored (a.txt)")
	term.send("1")
	term.expect("Returned to where you were")
	term.expectPrompt()
	if read() != "two" {
		t.Fatalf("a.txt = %q after the return, want two (as before the rewind)", read())
	}
	term.send("after the return\r")
	term.expect("You said: after the return")
	term.expectPrompt()
	want := "write a.txt one | write a.txt two | write a.txt three | after the return"
	if got := userWords(srv.LastRequest().Messages); got != want {
		t.Fatalf("after the return the request's user messages are %q, want %q", got, want)
	}
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}

	// The rewind is in the file: a resumed session continues from it too.
	term = startClawdcodeIn(t, srv, term.cmd.Dir, term.cmd.Env, "-c")
	// a.txt was written three times: the session suggested remembering
	// it, asked at the first prompt; Esc leaves the answer for later.
	term.expect("Remember this for every session of this project?")
	term.send("\x1b")
	term.expect("Later")
	term.expectPrompt()
	term.send("and after resume?\r")
	term.expect("You said: and after resume?")
	term.expectPrompt()
	if got := userWords(srv.LastRequest().Messages); got != want+" | and after resume?" {
		t.Fatalf("after resume the request's user messages are %q", got)
	}
	term.send("\x04")
	term.wait()
}

// userWords are the user messages of msgs, joined with " | ": the user's
// words only, without the re-orientation packet a reload adds after them.
func userWords(msgs []chat.Message) string {
	var users []string
	for _, m := range msgs {
		if m.Role == chat.RoleUser {
			words, _, _ := strings.Cut(m.Content, "\n\nRe-orientation (read from")
			users = append(users, words)
		}
	}
	return strings.Join(users, " | ")
}

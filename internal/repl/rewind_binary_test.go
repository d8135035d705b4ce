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

// TestClawdcodeRewindAndUndo: in the REPL, /rewind picks an earlier
// message, asks before restoring the files Write changed since, and the
// next request no longer carries what came after that message; /undo
// restores the files of the last turn.
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
	term.expect("Rewind to just before which message?")
	term.expect("write a.txt two")
	term.send("2\r") // typing filters the list to the second message, Enter picks it
	term.expect("Also restore 1 file(s)")
	term.send("y\r")
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
	msgs := srv.LastRequest().Messages
	var users []string
	for _, m := range msgs {
		if m.Role == chat.RoleUser {
			// The context is reloaded from the file, as on a resume: the
			// first message after it carries the re-orientation packet
			// after the user's words.
			words, _, _ := strings.Cut(m.Content, "\n\nRe-orientation (read from")
			users = append(users, words)
		}
	}
	if got := strings.Join(users, " | "); got != "write a.txt one | what now?" {
		t.Fatalf("after the rewind the request's user messages are %q", got)
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
	users = users[:0]
	for _, m := range srv.LastRequest().Messages {
		if m.Role == chat.RoleUser {
			// The context is reloaded from the file, as on a resume: the
			// first message after it carries the re-orientation packet
			// after the user's words.
			words, _, _ := strings.Cut(m.Content, "\n\nRe-orientation (read from")
			users = append(users, words)
		}
	}
	if got := strings.Join(users, " | "); got != "write a.txt one | what now? | and after resume?" {
		t.Fatalf("after resume the request's user messages are %q", got)
	}
	term.send("\x04")
	term.wait()
}

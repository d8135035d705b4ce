//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// "Always" for one Bash command allows that command's prefix rule, shown
// in the dialog, not every later Bash command; and it belongs to the
// session it was given in: after /new the same command is asked about
// again (issue 14 item 1, issue 9).
func TestClawdcodeAlwaysIsAScopedSessionRule(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"touch a"}`)), llmtest.Text("made a"),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"touch DANGER"}`)), llmtest.Text("refused"),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"touch a b"}`)), llmtest.Text("made b"),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"touch a c"}`)), llmtest.Text("refused again"),
	)
	term := startClawdcode(t, srv)
	dir := term.cmd.Dir
	term.expectPrompt()

	term.send("make a\r")
	term.expect("Yes, and allow Bash(touch a:*) for this session")
	term.send("a")
	term.expect("made a")
	term.expectPrompt()

	// Another command is asked about: the always covered touch a only.
	term.send("make danger\r")
	term.expect("touch DANGER")
	term.expect("❯ 1. Yes")
	term.send("n\r") // no, and an empty note: a plain no
	term.expect("refused")
	term.expectPrompt()

	// What the rule covers runs unasked.
	before := term.seen
	term.send("make b\r")
	term.expect("made b")
	term.expectPrompt()
	if between := term.output()[before:term.seen]; strings.Contains(between, "❯ 1. Yes") {
		t.Fatalf("asked again about a command the always covered:\n%s", between)
	}

	// A new session starts without the previous session's always.
	term.send("/new\r")
	term.expectPrompt()
	term.send("make c\r")
	term.expect("touch a c")
	term.expect("❯ 1. Yes")
	term.send("n\r") // no, and an empty note: a plain no
	term.expect("refused again")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for name, want := range map[string]bool{"a": true, "b": true, "DANGER": false, "c": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v\n%s", name, err == nil, want, term.output())
		}
	}
}

// "Always in this project" saves the rule to .clawdcode/config.toml, where
// the next run (and -p) finds it.
func TestClawdcodeAlwaysInThisProjectSavesTheRule(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"go env GOOS"}`)), llmtest.Text("saved"))
	term := startClawdcode(t, srv)
	dir := term.cmd.Dir
	if err := os.MkdirAll(filepath.Join(dir, ".clawdcode"), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := "# my settings\nmodel = \"gpt-4o\"\n"
	if err := os.WriteFile(filepath.Join(dir, ".clawdcode", "config.toml"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	term.expectPrompt()
	term.send("which os?\r")
	term.expect("Yes, and always allow Bash(go env:*) in this project")
	term.send("p")
	term.expect("saved")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	got, err := os.ReadFile(filepath.Join(dir, ".clawdcode", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := mine + "\n[permissions]\nallow = [\"Bash(go env:*)\"]\n"; string(got) != want {
		t.Fatalf("config.toml =\n%s\nwant\n%s", got, want)
	}
}

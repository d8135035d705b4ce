//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// "Always" for `git --no-pager log -1` offers Bash(git log:*), the
// subcommand as a rule names it, not the bare Bash(git:*) under which a
// git alias's shell command ran unasked; and with it allowed, that alias
// is asked about (issue 32). The dialog shows the rule tools.Propose
// gives, the one policy "always" and -p's denial share.
func TestClawdcodeAlwaysOffersTheSubcommandNotTheProgram(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"git --no-pager log -1"}`)), llmtest.Text("logged"),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"git -c alias.x='!touch X' x"}`)), llmtest.Text("refused"),
	)
	term := startClawdcode(t, srv)
	dir := term.cmd.Dir
	term.expectPrompt()
	term.send("show the log\r")
	term.expect("Yes, and allow Bash(git log:*) for this session")
	term.send("a")
	term.expect("logged")
	term.expectPrompt()
	term.send("run the alias\r")
	term.expect("❯ 1. Yes")
	term.send("n\r") // no, and an empty note: a plain no
	term.expect("refused")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "X")); err == nil {
		t.Errorf("the alias's shell command ran\n%s", term.output())
	}
}

//go:build linux

package repl

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// waitPidFile waits for a command to write its pid (a whole line) to path.
func waitPidFile(t *testing.T, path string, term *terminal) int {
	t.Helper()
	pid, _ := strconv.Atoi(harness.WaitLine(path, waitLimit))
	if pid == 0 {
		t.Fatalf("the command never wrote %s:\n%s", path, term.output())
	}
	return pid
}

// TestClawdcodeBackgroundCommand: issue 26. A background command is asked
// for like any Bash call, listed by /bashes, read with BashOutput and
// killed with KillShell, leaving no process of its group.
func TestClawdcodeBackgroundCommand(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"echo started; echo $$ > bg.pid; sleep 30; echo done","run_in_background":true}`)),
		llmtest.Text("It runs."),
		llmtest.ToolCalls(llmtest.Call("BashOutput", `{"bash_id":"bash_1"}`)),
		llmtest.Text("Read it."),
		llmtest.ToolCalls(llmtest.Call("KillShell", `{"shell_id":"bash_1"}`)),
		llmtest.Text("Killed it."),
	)
	term := startClawdcode(t, srv)
	term.expectPrompt()
	term.send("start the server\r")
	term.expect("❯ 1. Yes") // asked, as a foreground Bash call is
	term.send("y")
	term.expect("It runs.")
	term.expectPrompt()
	pgid := waitPidFile(t, filepath.Join(term.cmd.Dir, "bg.pid"), term)
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	if got := lastToolResult(srv); !strings.Contains(got, "id bash_1") {
		t.Fatalf("the start answer: %q", got)
	}

	// /bashes lists them in a picker (issue 36 item 7); Esc leaves it.
	term.send("/bashes\r")
	term.expect("pick one to see its output")
	term.expect("bash_1")
	term.expect("running")
	term.expect("echo started; echo $$ > bg.pid; sleep 30; echo done")
	term.send("\x1b")
	term.expectPrompt()

	term.send("read it\r")
	term.expect("Read it.")
	term.expectPrompt()
	if got := lastToolResult(srv); !strings.Contains(got, "bash_1: running") || !strings.Contains(got, "\nstarted\n") {
		t.Fatalf("BashOutput answered %q", got)
	}

	term.send("kill it\r")
	term.expect("Killed it.")
	term.expectPrompt()
	if !harness.GroupGone(pgid, waitLimit) {
		t.Fatalf("process group %d outlived KillShell", pgid)
	}
	term.send("/bashes\r")
	term.expect("bash_1")
	term.expect("killed")
	term.send("\x1b")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestClawdcodeTerminalClosedKillsBackgroundCommands: the terminal goes
// away (SIGHUP) while a background command runs: clawdcode kills its
// group on the way out. The model's next answer is held back so the
// spinner keeps writing: the test's read of the terminal then returns and
// the close takes effect at once (as TestClawdcodeTerminalClosedDuringCommand).
func TestClawdcodeTerminalClosedKillsBackgroundCommands(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"sleep 60 & echo $$ > bg.pid; wait","run_in_background":true}`)),
		llmtest.Reply{Text: "late", Delay: time.Hour},
	)
	term := startClawdcode(t, srv, "--dangerously-skip-permissions")
	term.expectPrompt()
	term.send("start the server\r")
	pgid := waitPidFile(t, filepath.Join(term.cmd.Dir, "bg.pid"), term)
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	// The call has returned (the model was sent its id): the command runs
	// in the background, not as the turn's foreground command.
	waitUntil(t, "the start answer sent to the model", func() bool {
		return strings.Contains(lastToolResult(srv), "id bash_1")
	})
	term.ptmx.Close() // the kernel sends SIGHUP
	select {
	case <-term.exited:
	case <-time.After(waitLimit):
		t.Fatalf("clawdcode still runs %v after its terminal closed", waitLimit)
	}
	if !harness.GroupGone(pgid, waitLimit) {
		t.Fatalf("the background command's group %d outlived clawdcode", pgid)
	}
}

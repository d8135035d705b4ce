//go:build linux

package repl

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestClawdcodeTerminalClosedDuringCommand: issue 13 item 10, in the REPL.
// Closing the terminal (SIGHUP) killed clawdcode without cleanup and left
// the running Bash command behind under PID 1. Now the command's group is
// ended and clawdcode exits as interrupted.
func TestClawdcodeTerminalClosedDuringCommand(t *testing.T) {
	t.Parallel()
	input, _ := json.Marshal(map[string]string{"command": "sleep 60 & echo $! > child.pid; wait"})
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Bash", string(input))), llmtest.Text("done"))
	// Outside the sandbox: $! must be a pid of this test's namespace
	// (the sandboxed case is TestSandboxCommandsEndWithClawdcode's).
	term := startClawdcode(t, srv, "--dangerously-skip-permissions", "--sandbox", "off")
	term.expectPrompt()
	term.send("start the server\r")
	pidFile := filepath.Join(term.cmd.Dir, "child.pid")
	var child int
	for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
	}
	if child == 0 {
		t.Fatalf("the command never started:\n%s", term.output())
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	term.ptmx.Close() // the terminal goes away: the kernel sends SIGHUP
	select {
	case <-term.exited:
	case <-time.After(waitLimit):
		t.Fatalf("clawdcode still runs %v after its terminal closed", waitLimit)
	}
	if code := term.cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d after the terminal closed, want 130", code)
	}
	deadline := time.Now().Add(waitLimit)
	for alive(child) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(child) {
		t.Errorf("the command's child %d outlived clawdcode", child)
	}
}

// alive reports whether pid is a live process (a zombie is not).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// running reports whether pid is a live process (a zombie is not).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// TestHangupEndsTheCommandAndExits: issue 13 item 10. SIGHUP (the terminal
// closed) killed clawdcode on the spot: the running Bash command was left
// behind under PID 1 and nothing recorded the interrupted call. Now SIGHUP
// is a SIGTERM: the command's process group is ended, the call is answered
// "interrupted" in the session, and the exit status is 130.
func TestHangupEndsTheCommandAndExits(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see the command's process")
	}
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	// Outside the sandbox: $! must be a pid this test can see (inside, it
	// is the sandbox's own PID namespace's; TestSandboxCommandsEndWithClawdcode
	// covers that case).
	cmd := w.Command(ctx, "-p", "--dangerously-skip-permissions", "--sandbox", "off",
		"bash sleep 60 & echo $! > child.pid; wait")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(w.Project, "child.pid")
	var child int
	for ctx.Err() == nil {
		if b, err := os.ReadFile(pidFile); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if child == 0 {
		t.Fatalf("the command never started\n%s", stderr.String())
	}
	defer syscall.Kill(child, syscall.SIGKILL) // whatever happens, no sleep outlives the test
	_ = cmd.Process.Signal(syscall.SIGHUP)
	_ = cmd.Wait()
	r := result{Stdout: stdout.String(), Stderr: stderr.String(), Code: cmd.ProcessState.ExitCode()}
	if r.Code != 130 {
		t.Errorf("SIGHUP during a command: want exit 130\n%s", r)
	}
	deadline := time.Now().Add(time.Minute) // a safety net: the sleep lasts 60 s
	for running(child) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if running(child) {
		t.Errorf("the command's child %d still runs after clawdcode exited", child)
	}
	var answered bool
	for _, path := range w.sessionFiles() {
		for _, rec := range parseSession(t, path).records {
			if rec.Type == "tool_result" && rec.ToolResult != nil && strings.Contains(rec.ToolResult.Error+rec.ToolResult.Output, "interrupt") {
				answered = true
			}
		}
	}
	if !answered {
		t.Errorf("the session does not answer the interrupted call")
	}
}

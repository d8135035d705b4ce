package sandbox

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestHostRestrictions: inside the sandbox the seccomp filter refuses a
// Unix socket, a user namespace, a mount and tracing with EPERM, and a
// command holds no socket it did not open, the host's to clawdcode above
// all (the probe is this test binary, run as a command of the host).
func TestHostRestrictions(t *testing.T) {
	root := t.TempDir()
	sb := New(Config{Root: root})
	defer sb.Close()
	if !sb.Contained() {
		t.Skip("no sandbox on this system: " + sb.Describe())
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, what := range []string{"unix-socket", "user-namespace", "mount", "ptrace", "host-socket"} {
		var out bytes.Buffer
		p, err := sb.Start(Command{Argv: []string{self}, Env: append(os.Environ(), probeEnv+"="+what), Dir: root,
			Output: &out, OutputGrace: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if ws, err := p.Wait(); err != nil || ws.ExitStatus() != 0 {
			t.Errorf("%s: not refused inside the sandbox (%v, %v): %s", what, ws, err, out.String())
		}
	}
}

// TestPrewarm: Prewarm starts the mode's host with no command asking for
// it, and the next command runs in that host rather than a new one.
func TestPrewarm(t *testing.T) {
	root := t.TempDir()
	sb := New(Config{Root: root})
	defer sb.Close()
	sb.Prewarm()
	var h *hostConn
	for deadline := time.Now().Add(time.Minute); h == nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		sb.mu.Lock()
		h = sb.hosts[WorkspaceWrite]
		sb.mu.Unlock()
	}
	if h == nil {
		t.Fatal("Prewarm started no host")
	}
	p, err := sb.Start(Command{Argv: []string{"/bin/sh", "-c", "exit 0"}, Env: os.Environ(), Dir: root, Output: &bytes.Buffer{}, OutputGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if ws, err := p.Wait(); err != nil || ws.ExitStatus() != 0 {
		t.Fatalf("the command: %v %v", ws, err)
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.hosts[WorkspaceWrite] != h {
		t.Error("the command started a host of its own beside the prewarmed one")
	}
}

package sandbox

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestHostRestrictions: inside the sandbox the seccomp filter refuses a
// Unix socket, a user namespace, a mount and tracing with EPERM (the
// probe is this test binary, run as a command of the host).
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
	for _, what := range []string{"unix-socket", "user-namespace", "mount", "ptrace"} {
		var out bytes.Buffer
		p, err := sb.Start(Command{Argv: []string{self}, Env: append(os.Environ(), probeEnv+"="+what), Dir: root,
			Output: &out, OutputGrace: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if ws, err := p.Wait(); err != nil || ws.ExitStatus() != 0 {
			t.Errorf("%s was not refused with EPERM inside the sandbox (%v, %v): %s", what, ws, err, out.String())
		}
	}
}

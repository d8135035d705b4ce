package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// TestCloseEndsEverything: once Close returns, nothing the host started
// is left, background processes of commands that exited included — in a
// PID namespace, where the host kills them itself before it exits (from
// the one thread whose Landlock domain they share), and without one.
func TestCloseEndsEverything(t *testing.T) {
	for _, mode := range []Mode{WorkspaceWrite, Off} {
		root := t.TempDir()
		sb := New(Config{Root: root, Mode: mode})
		marker := fmt.Sprintf("300.%d%d", os.Getpid(), mode)
		for range 6 {
			p, err := sb.Start(Command{Argv: []string{"/bin/sh", "-c", "sleep " + marker + " >/dev/null 2>&1 &"}, Env: os.Environ(),
				Dir: root, Output: &bytes.Buffer{}, OutputGrace: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			p.Wait()
		}
		if n := len(sleeping(marker)); n != 6 {
			t.Fatalf("%s: %d sleeps running, want 6", mode, n)
		}
		sb.Close()
		if left := sleeping(marker); len(left) > 0 {
			t.Errorf("%s: Close returned with %v still running", mode, left)
			for _, pid := range left {
				_ = unix.Kill(pid, unix.SIGKILL)
			}
		}
	}
}

// guardedProject is a project whose .git/config holds "[core]\n", and a
// sandbox over it, closed when the test ends.
func guardedProject(t *testing.T) (root, config string, sb *Sandbox) {
	t.Helper()
	root = t.TempDir()
	config = filepath.Join(root, ".git", "config")
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb = New(Config{Root: root})
	t.Cleanup(func() { sb.Close() })
	return root, config, sb
}

// runIn starts script under sh in sb, in dir, its output dropped.
func runIn(t *testing.T, sb *Sandbox, dir, script string) *Process {
	t.Helper()
	p, err := sb.Start(Command{Argv: []string{"/bin/sh", "-c", script}, Env: os.Environ(), Dir: dir,
		Output: &bytes.Buffer{}, OutputGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sleepInBackground starts `sleep marker` detached in sb and returns once
// it runs.
func sleepInBackground(t *testing.T, sb *Sandbox, dir, marker string) {
	t.Helper()
	runIn(t, sb, dir, "setsid sleep "+marker+" >/dev/null 2>&1 & "+
		"until [ \"$(tr '\\0' ' ' </proc/$!/cmdline)\" = 'sleep "+marker+" ' ]; do :; done").Wait()
}

// sleeping are the processes that run sleep with the argument marker.
func sleeping(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Equal(cmdline, []byte("sleep\x00"+marker+"\x00")) {
			if pid, err := strconv.Atoi(e.Name()); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// TestProtectionOutlivesAReplacement: a file renamed over .git/config
// from outside (git config, git push -u, a Write: each writes a new file
// and renames it) takes the host's read-only mount off the old file; the
// next command runs in a new host, which protects the new one, and the
// commands of the old host, which could write it, are ended.
func TestProtectionOutlivesAReplacement(t *testing.T) {
	root, config, sb := guardedProject(t)
	run := func(script string) *Process { return runIn(t, sb, root, script) }
	marker := fmt.Sprintf("300.%d5", os.Getpid())
	run("setsid sleep " + marker + " >/dev/null 2>&1 &").Wait()
	run("echo '[core] fsmonitor = one' >> .git/config").Wait()
	replaced := filepath.Join(root, ".git", "config.lock")
	if err := os.WriteFile(replaced, []byte("[core]\n\tbare = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(replaced, config); err != nil {
		t.Fatal(err)
	}
	run("echo '[core] fsmonitor = two' >> .git/config").Wait()
	if got, _ := os.ReadFile(config); string(got) != "[core]\n\tbare = false\n" {
		t.Errorf("a command wrote .git/config:\n%s", got)
	}
	if left := sleeping(marker); len(left) > 0 {
		t.Errorf("a process of the host that no longer protected .git/config is still running: %v", left)
		for _, pid := range left {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// TestReplaceEndsTheHostsThatGuardIt: clawdcode's own replacement of a
// protected file (its Write or Edit tool) ends the host that kept the
// old one read-only before the new one is renamed over it, so that no
// command of that host, a background one included, ever holds a writable
// .git/config; a file no host guards leaves the host alone.
func TestReplaceEndsTheHostsThatGuardIt(t *testing.T) {
	root, config, sb := guardedProject(t)
	marker := fmt.Sprintf("300.%d6", os.Getpid())
	sleepInBackground(t, sb, root, marker)
	var aliveAtWrite []int
	replace := func(path, content string) {
		t.Helper()
		err := sb.Replace(path, func() error {
			aliveAtWrite = sleeping(marker)
			tmp := path + ".new"
			if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, path)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	replace(filepath.Join(root, "README"), "hello\n")
	if left := sleeping(marker); len(left) != 1 {
		t.Fatalf("after a write of a file no host guards, %d background sleeps, want 1 still running", len(left))
	}
	replace(config, "[core]\n\tbare = false\n")
	if len(aliveAtWrite) > 0 {
		t.Errorf("the new .git/config was written while a process of the host that kept the old one read-only ran: %v", aliveAtWrite)
	}
	if left := sleeping(marker); len(left) > 0 {
		t.Errorf("a process of the host that kept the old .git/config read-only outlived its replacement: %v", left)
		for _, pid := range left {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
	runIn(t, sb, root, "echo '[core] fsmonitor = x' >> .git/config").Wait()
	if got, _ := os.ReadFile(config); string(got) != "[core]\n\tbare = false\n" {
		t.Errorf("the next command wrote the new .git/config:\n%s", got)
	}
}

// TestReplacementFromOutsideEndsTheHost: another program's rename over
// .git/config (git config, an editor's save) ends the host that kept the
// old file read-only as soon as clawdcode hears of it, with what it runs
// in the background, not when the next command starts.
func TestReplacementFromOutsideEndsTheHost(t *testing.T) {
	root, config, sb := guardedProject(t)
	marker := fmt.Sprintf("300.%d7", os.Getpid())
	sleepInBackground(t, sb, root, marker)
	if err := os.WriteFile(filepath.Join(root, ".git", "other"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if left := sleeping(marker); len(left) != 1 {
		t.Fatalf("after a file beside .git/config was made, %d background sleeps, want 1 still running", len(left))
	}
	if err := os.WriteFile(config+".lock", []byte("[core]\n\tbare = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(config+".lock", config); err != nil {
		t.Fatal(err)
	}
	// Polled: the end comes from the watcher's goroutine. The limit is a
	// net for a host that is never ended.
	for deadline := time.Now().Add(30 * time.Second); len(sleeping(marker)) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			left := sleeping(marker)
			t.Errorf("the host that no longer kept .git/config read-only still runs its commands: %v", left)
			for _, pid := range left {
				_ = unix.Kill(pid, unix.SIGKILL)
			}
			break
		}
	}
}

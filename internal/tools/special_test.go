package tools

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test if it has not returned after d: the
// defects here were calls that never return.
//
// The limit is a safety net against a call that never returns, far beyond
// what a loaded machine needs for one that does.
func within(t *testing.T, f func() Result) Result {
	const d = time.Minute
	t.Helper()
	done := make(chan Result, 1)
	go func() { done <- f() }()
	select {
	case r := <-done:
		return r
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
		return Result{}
	}
}

// TestReadRefusesWhatIsNotARegularFile: issue 13 item 4. Read of a named
// pipe waited forever for a writer (in open(2), where no signal reached
// it). Read now takes regular files only and says what the path is.
func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	fifo := filepath.Join(root, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sock := filepath.Join(root, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Symlink(fifo, filepath.Join(root, "link-to-pipe")); err != nil {
		t.Fatal(err)
	}
	env := NewEnv(root)
	for _, tt := range []struct{ path, want string }{
		{"pipe", "named pipe"},
		{"link-to-pipe", "named pipe"},
		{"s.sock", "socket"},
		{"/dev/null", "device"},
	} {
		r := within(t, func() Result { return call(t, env, "Read", obj{"file_path": tt.path}) })
		wantError(t, r, tt.want, "not a regular file")
	}
}

// TestGrepPassesNamedPipes: Grep given a FIFO, or a tree holding one,
// answers at once.
func TestGrepPassesNamedPipes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	writeFile(t, filepath.Join(root, "a.txt"), "needle\n")
	env := NewEnv(root)
	r := within(t, func() Result { return call(t, env, "Grep", obj{"pattern": "needle"}) })
	wantOK(t, r)
	if !strings.Contains(r.Output, "a.txt:1:needle") {
		t.Errorf("Grep over a tree with a FIFO = %q", r.Output)
	}
	r = within(t, func() Result { return call(t, env, "Grep", obj{"pattern": "needle", "path": "pipe"}) })
	wantError(t, r, "not a regular file")
}

// TestOpenRegularDoesNotWaitForAWriter: the open itself is what hung (no
// context reaches a blocked open(2)), so it is checked below the tool too.
func TestOpenRegularDoesNotWaitForAWriter(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := within(t, func() Result {
		_, _, res, ok := openRegular(fifo, "pipe")
		if ok {
			t.Error("a FIFO was opened for reading")
		}
		return res
	})
	wantError(t, r, "named pipe")
}

// TestReadAndGrepProcFiles: issue 14 item 4. /proc files report a size of
// 0 and have content: Read said "exists but is empty" and Grep found
// nothing. They are read by reading, not by stat.
func TestReadAndGrepProcFiles(t *testing.T) {
	t.Parallel()
	const status = "/proc/self/status"
	info, err := os.Stat(status)
	if err != nil || info.Size() != 0 {
		t.Skipf("no size-0 /proc file here (%v)", err)
	}
	env := NewEnv(t.TempDir())
	r := call(t, env, "Read", obj{"file_path": status})
	wantOK(t, r)
	if strings.Contains(r.Output, "empty") || !strings.Contains(r.Output, "\tPid:") {
		t.Errorf("Read %s = %q, want its lines", status, clip(r.Output))
	}
	r = call(t, env, "Grep", obj{"pattern": "^Pid:", "path": status})
	wantOK(t, r)
	if !strings.Contains(r.Output, ":Pid:") {
		t.Errorf("Grep ^Pid: in %s = %q, want the line", status, r.Output)
	}
	if _, err := os.Stat("/proc/cpuinfo"); err == nil {
		r = call(t, env, "Read", obj{"file_path": "/proc/cpuinfo", "limit": 3})
		wantOK(t, r)
		if strings.Contains(r.Output, "empty") || !strings.Contains(r.Output, "     1\t") {
			t.Errorf("Read /proc/cpuinfo = %q", clip(r.Output))
		}
	}
}

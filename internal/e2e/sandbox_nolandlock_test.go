package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// noLandlockArg makes the test binary run the rest of its arguments as a
// program under a seccomp filter that answers Landlock's system calls
// ENOSYS, as a kernel without Landlock does (TestMain).
const noLandlockArg = "-e2e-exec-without-landlock"

// execWithoutLandlock loads that filter on this thread and executes
// argv from it; it returns only when it could not.
func execWithoutLandlock(argv []string) int {
	runtime.LockOSThread()
	prog, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 0, Size: 4}, // the call's number
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_LANDLOCK_CREATE_RULESET, SkipTrue: 3},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_LANDLOCK_ADD_RULE, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_LANDLOCK_RESTRICT_SELF, SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "assemble:", err)
		return 2
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "no_new_privs:", err)
		return 2
	}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		fmt.Fprintln(os.Stderr, "seccomp:", errno)
		return 2
	}
	err = syscall.Exec(argv[0], argv, os.Environ())
	fmt.Fprintln(os.Stderr, "exec:", err)
	return 2
}

// TestSandboxWithoutLandlock: CONTRACT §13 where the kernel offers no
// Landlock (the run under a filter that answers its calls as such a
// kernel does): /status says no sandbox is in force and why; in
// accept-edits mode every command asks — in -p it is denied — instead of
// running uncontained, and the warning is said once, on stderr.
func TestSandboxWithoutLandlock(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, llmtest.Options{})
	run := func(args ...string) result {
		ctx, cancel := context.WithTimeout(context.Background(), w.Timeout)
		defer cancel()
		return harness.Wait(t, ctx, harness.Command(ctx, self, w.Project, w.Env(), append([]string{noLandlockArg, w.Binary}, args...)...))
	}
	r := run("-p", "/status")
	if r.Code != 0 || !containsLine(r.Stdout, "Sandbox:", "none", "workspace-write", "Landlock", "every command asks") {
		t.Errorf("/status without Landlock: want a Sandbox line saying none is in force and why\n%s", r)
	}
	w.Server.SetResponder(llmtest.Agent())
	r = run("-p", "--permission-mode", "acceptEdits", "bash touch one\nbash touch two")
	if r.Code != 0 {
		t.Fatalf("the run: %s", r)
	}
	for _, name := range []string{"one", "two"} {
		if _, err := os.Lstat(filepath.Join(w.Project, name)); err == nil {
			t.Errorf("a command ran uncontained without asking: %s was made", name)
		}
	}
	if n := strings.Count(r.Stderr, "no sandbox for commands here"); n != 1 || !strings.Contains(r.Stderr, "Landlock") {
		t.Errorf("the warning, said %d times (want once, naming Landlock):\n%s", n, r.Stderr)
	}
	if results := lastToolResults(w); len(results) != 2 || !strings.Contains(results[0], "denied") || !strings.Contains(results[1], "denied") {
		t.Errorf("the commands were not asked about (denied in -p): %q", results)
	}
}

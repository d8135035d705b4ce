package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// sandboxUser is the user TestSandboxAsUser runs clawdcode as.
const sandboxUser = "clawdcode-sbx"

// TestSandboxAsUser: issue 32. The sandbox for a user without privilege
// (its user namespace maps only that user; the host keeps what it needs
// to build the sandbox through its ambient capabilities and the commands
// get none): writes outside the project refused and named, git commit
// working with .git/config read-only, no connection to the machine's
// loopback, and a command left running gone once clawdcode is SIGKILLed.
// As root the test makes a system user for it (useradd); as another user
// every sandbox test already runs as one.
func TestSandboxAsUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("not root: the other sandbox tests run as this user, without privilege")
	}
	requireTool(t, "git")
	u := systemUser(t)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	w := newWorld(t, llmtest.Options{})
	// The user needs to reach the binary and own its directories.
	bin := filepath.Join(w.Root, "bin", "clawdcode")
	copyExecutable(t, w.Binary, bin)
	for dir := w.Root; dir != "/"; dir = filepath.Dir(dir) {
		if info, err := os.Stat(dir); err == nil && info.Mode().Perm()&0o005 != 0o005 {
			if err := os.Chmod(dir, info.Mode().Perm()|0o005); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, d := range []string{w.Project, w.UserHome, w.Tmp, w.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { fmt.Fprint(rw, "reached") }))
	defer srv.Close()
	run := func(ctx context.Context, script string) *exec.Cmd {
		cmd := harness.Command(ctx, bin, w.Project, w.Env(), "sandbox", "--", "sh", "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		return cmd
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.Timeout)
	defer cancel()
	// The repository exists before the sandbox starts: a folder without
	// one has no .git to protect (docs/cli.md, The sandbox).
	gitInit := exec.Command("git", "init", "-q", w.Project)
	gitInit.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	if out, err := gitInit.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	r := harness.Wait(t, ctx, run(ctx, "echo a > f && git add f && "+
		"git -c user.name=t -c user.email=t@example.com commit -qm one && git log --format=%s -1 && id -u && "+
		"touch ~/x; echo '[core] fsmonitor = x' >> .git/config; curl -sS --max-time 30 "+srv.URL+"; true"))
	out := r.Stdout + r.Stderr
	if !strings.Contains(r.Stdout, "one\n"+u.Uid+"\n") {
		t.Errorf("git commit as %s inside the sandbox did not work, or the command did not run as the user:\n%s", sandboxUser, r)
	}
	for _, refused := range [][]string{
		{"sandbox: refused a write to", filepath.Join(w.UserHome, "x")},
		{"sandbox: refused a write to", ".git/config"},
	} {
		if !containsLine(out, refused...) {
			t.Errorf("no line naming %q:\n%s", refused, r)
		}
	}
	if strings.Contains(out, "reached") {
		t.Errorf("the machine's loopback was reached from inside the sandbox:\n%s", r)
	}
	if _, err := os.Lstat(filepath.Join(w.UserHome, "x")); err == nil {
		t.Errorf("~/x was created from inside the sandbox")
	}

	// A command left running ends with a SIGKILLed clawdcode.
	marker := fmt.Sprintf("300.%d4", os.Getpid())
	cmd := run(ctx, "sleep "+marker+" & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	if len(processesWith(marker, time.Minute, true)) == 0 {
		t.Fatal("the sleep never ran")
	}
	_ = cmd.Process.Kill()
	if left := processesWith(marker, time.Minute, false); len(left) > 0 {
		t.Errorf("sleep %s outlived a SIGKILLed clawdcode run as %s: pids %v", marker, sandboxUser, left)
	}
}

// systemUser is sandboxUser, made when missing.
func systemUser(t *testing.T) *user.User {
	t.Helper()
	if u, err := user.Lookup(sandboxUser); err == nil {
		return u
	}
	requireTool(t, "useradd")
	if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", sandboxUser).CombinedOutput(); err != nil {
		if u, lerr := user.Lookup(sandboxUser); lerr == nil { // a parallel test made it
			return u
		}
		t.Fatalf("useradd %s: %v\n%s", sandboxUser, err, out)
	}
	u, err := user.Lookup(sandboxUser)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

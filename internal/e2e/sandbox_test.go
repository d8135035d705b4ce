package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// sandboxWorld is a world whose project is a git repository with one
// commit, made outside the sandbox, and whose Bash calls are scripted one
// per line of the prompt ("bash <command>").
func sandboxWorld(t *testing.T) *world {
	t.Helper()
	requireTool(t, "git")
	w := newWorld(t, llmtest.Options{})
	gitC(t, w.Project, "init", "-q")
	if err := os.WriteFile(filepath.Join(w.Project, "README"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitC(t, w.Project, "add", "README")
	gitC(t, w.Project, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "first")
	w.Server.SetResponder(llmtest.Agent())
	return w
}

func gitC(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; the sandbox tests need it", name)
		}
		t.Skipf("%s is not installed", name)
	}
}

// lastToolResults are the tool results of the model's last request, in
// the order of the calls.
func lastToolResults(w *world) []string {
	var out []string
	for _, m := range toolMessages(w.Server.LastRequest()) {
		out = append(out, m.Content)
	}
	return out
}

// TestSandboxWorkspaceWrite: issue 32. In accept-edits mode with no rule,
// the model's commands run without asking, inside the sandbox: they can
// create a file in the project and git add and commit it, but cannot
// write in $HOME, outside the temporary directory, to .git/config,
// .git/hooks/ or .clawdcode/; each refusal is named in its result.
func TestSandboxWorkspaceWrite(t *testing.T) {
	t.Parallel()
	w := sandboxWorld(t)
	outside := filepath.Join(w.Root, "outside.txt") // beside the temporary directory, not in it
	config := filepath.Join(w.Project, ".git", "config")
	before, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct{ command, refused string }{
		{"echo made > made.txt && git add made.txt && git -c user.name=t -c user.email=t@example.com commit -qm made && git log --format=%s -1", ""},
		{"echo x > " + filepath.Join(w.Tmp, "scratch") + " && echo tmp-ok", ""},
		{"touch " + filepath.Join(w.UserHome, "escaped"), filepath.Join(w.UserHome, "escaped")},
		{"touch " + outside, outside},
		{"echo '[core] fsmonitor = touch pwned' >> .git/config", ".git/config"},
		{"echo 'touch pwned' > .git/hooks/pre-commit", ".git/hooks/pre-commit"},
		{"git config core.fsmonitor 'touch pwned'", ".git/config"},
		{"mkdir -p .clawdcode && echo 'x' > .clawdcode/config.toml", ".clawdcode/config.toml"},
	}
	var prompt []string
	for _, c := range calls {
		prompt = append(prompt, "bash "+c.command)
	}
	w.MustRun("-p", "--permission-mode", "acceptEdits", strings.Join(prompt, "\n"))

	results := lastToolResults(w)
	if len(results) != len(calls) {
		t.Fatalf("%d tool results, want %d: %q", len(results), len(calls), results)
	}
	for i, c := range calls {
		got := results[i]
		if strings.Contains(got, "was denied") || strings.Contains(got, "Permission to use") {
			t.Errorf("call %d (%s) was not allowed in acceptEdits: %s", i, c.command, got)
			continue
		}
		switch {
		case c.refused == "" && strings.Contains(got, "sandbox:"):
			t.Errorf("call %d (%s) should have run cleanly: %s", i, c.command, got)
		case c.refused != "" && !containsLine(got, "sandbox: refused a write to", c.refused):
			t.Errorf("call %d (%s): no line naming the refused write to %s:\n%s", i, c.command, c.refused, got)
		}
	}
	if !strings.Contains(results[0], "made") || !strings.Contains(gitC(t, w.Project, "log", "--format=%s", "-1"), "made") {
		t.Errorf("git add and commit inside the sandbox did not commit: %s", results[0])
	}
	for _, path := range []string{filepath.Join(w.UserHome, "escaped"), outside, filepath.Join(w.Project, ".git", "hooks", "pre-commit"),
		filepath.Join(w.Project, ".clawdcode", "config.toml"), filepath.Join(w.Project, "pwned")} {
		if _, err := os.Lstat(path); err == nil {
			t.Errorf("%s was written from inside the sandbox", path)
		}
	}
	if after, _ := os.ReadFile(config); string(after) != string(before) {
		t.Errorf(".git/config changed inside the sandbox:\n%s", after)
	}
}

// containsLine reports whether one line of s holds every part.
func containsLine(s string, parts ...string) bool {
	for line := range strings.Lines(s) {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestSandboxNetwork: issue 32. A command cannot reach a server on the
// machine's loopback unless its host is allowed (the refusal is named in
// the result and the server sees nothing); once allowed — a
// WebFetch(domain:…) rule, or [sandbox] allow_domains —, it reaches it
// through clawdcode's proxy, plain HTTP and HTTPS (CONNECT) alike.
func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	requireTool(t, "curl")
	var hits atomic.Int32
	handler := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(rw, "hello from the host")
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(handler)
	defer tlsSrv.Close()
	curl := func(url string) string { return "curl -sS -k --max-time 60 " + url }
	prompt := "bash " + curl(plain.URL) + "\nbash " + curl(tlsSrv.URL)

	t.Run("refused", func(t *testing.T) {
		w := sandboxWorld(t)
		w.MustRun("-p", "--permission-mode", "acceptEdits", prompt)
		for i, got := range lastToolResults(w) {
			host := strings.TrimPrefix(strings.TrimPrefix([]string{plain.URL, tlsSrv.URL}[i], "http://"), "https://")
			if strings.Contains(got, "hello from the host") || !containsLine(got, "sandbox: refused a connection to", host) {
				t.Errorf("call %d: the host's server was reached, or the refusal not named:\n%s", i, got)
			}
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the server got %d requests from inside the sandbox", n)
		}
	})
	t.Run("allowed by a rule", func(t *testing.T) {
		w := sandboxWorld(t)
		w.MustRun("-p", "--permission-mode", "acceptEdits", "--allowed-tools", "WebFetch(domain:127.0.0.1)", prompt)
		for i, got := range lastToolResults(w) {
			if !strings.Contains(got, "hello from the host") || strings.Contains(got, "sandbox:") {
				t.Errorf("call %d did not reach the allowed host through the proxy:\n%s", i, got)
			}
		}
	})
	t.Run("allowed by allow_domains", func(t *testing.T) {
		w := sandboxWorld(t)
		writeUserConfig(t, w, "[sandbox]\nallow_domains = [\"127.0.0.1\"]\n")
		w.MustRun("-p", "--permission-mode", "acceptEdits", prompt)
		for i, got := range lastToolResults(w) {
			if !strings.Contains(got, "hello from the host") {
				t.Errorf("call %d did not reach the allowed host through the proxy:\n%s", i, got)
			}
		}
	})
}

func writeUserConfig(t *testing.T, w *world, text string) {
	t.Helper()
	if err := os.MkdirAll(w.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Home, "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSandboxCommand: issue 32. `clawdcode sandbox -- sh -c 'touch ~/x'`
// fails, names the refusal and creates nothing; a command that stays in
// the project succeeds with its own status.
func TestSandboxCommand(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	r := w.Run("sandbox", "--", "sh", "-c", "touch ~/x")
	if r.Code == 0 || !containsLine(r.Stderr, "sandbox: refused a write to", filepath.Join(w.UserHome, "x")) {
		t.Errorf("touch ~/x in the sandbox: want a failure naming the refusal, got %s", r)
	}
	if _, err := os.Lstat(filepath.Join(w.UserHome, "x")); err == nil {
		t.Errorf("~/x was created from inside the sandbox")
	}
	r = w.Run("sandbox", "--", "sh", "-c", "echo in > inside && cat inside && exit 3")
	if r.Code != 3 || strings.TrimSpace(r.Stdout) != "in" {
		t.Errorf("a command inside the project: want its output and status 3, got %s", r)
	}
	r = w.Run("sandbox", "--mode", "read-only", "--", "touch", "ro")
	if r.Code == 0 || !containsLine(r.Stderr, "sandbox: refused a write to ro", "read-only") {
		t.Errorf("read-only mode: want the write in the project refused and named, got %s", r)
	}
	r = w.Run("sandbox", "--mode", "nonsense", "--", "true")
	if r.Code != 2 || !strings.HasPrefix(r.Stderr, "clawdcode: ") {
		t.Errorf("a bad --mode: want a usage error, got %s", r)
	}
}

// TestSandboxOutsideAsks: issue 32. Bash {"sandbox": false} is never
// allowed by a mode: in -p it is denied without a rule (accept-edits and
// --dangerously-skip-permissions alike), and runs under a rule that
// allows the command; the same command inside the sandbox runs.
func TestSandboxOutsideAsks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags []string
		runs  bool
	}{
		{"acceptEdits", []string{"--permission-mode", "acceptEdits"}, false},
		{"skip permissions", []string{"--dangerously-skip-permissions"}, false},
		{"a rule", []string{"--allowed-tools", "Bash(touch:*)"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			marker := filepath.Join(w.UserHome, "outside-ran")
			w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
				if last := r.Messages[len(r.Messages)-1]; last.Role == chat.RoleUser {
					return llmtest.ToolCalls(llmtest.Call("Bash", fmt.Sprintf(`{"command": "touch %s", "sandbox": false}`, marker)))
				}
				return llmtest.Text("done")
			})
			w.MustRun(append(append([]string{"-p"}, tc.flags...), "go")...)
			_, err := os.Lstat(marker)
			if ran := err == nil; ran != tc.runs {
				t.Errorf("the command outside the sandbox ran: %v, want %v; result: %q", ran, tc.runs, lastToolResults(w))
			}
		})
	}
}

// TestSandboxStatus: /status says which sandbox is in force and why.
func TestSandboxStatus(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	r := w.MustRun("-p", "/status")
	if !containsLine(r.Stdout, "Sandbox:", "workspace-write", "the default", "Landlock") {
		t.Errorf("/status does not show the sandbox in force:\n%s", r.Stdout)
	}
	r = w.MustRun("-p", "--sandbox", "off", "/status")
	if !containsLine(r.Stdout, "Sandbox:", "off (--sandbox)") {
		t.Errorf("/status does not show --sandbox off:\n%s", r.Stdout)
	}
}

// TestSandboxCommandsEndWithClawdcode: issue 32. A `sleep 300` started in
// the background by the agent (and one a foreground command left behind)
// is gone once clawdcode is SIGKILLed: the PID namespace's init, the
// sandbox host, exits when clawdcode's end of their socket closes, and
// the kernel ends the namespace. The test waits for the event (no process
// with the sleep's marker left) with a generous cap, and logs how long it
// took.
func TestSandboxCommandsEndWithClawdcode(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"workspace-write", "off"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			bg, fg := fmt.Sprintf("300.%d1", os.Getpid()), fmt.Sprintf("300.%d2", os.Getpid())
			if mode == "off" {
				bg, fg = bg+"3", fg+"3"
			}
			started := make(chan struct{}, 1)
			w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
				if last := r.Messages[len(r.Messages)-1]; last.Role == chat.RoleTool {
					select {
					case started <- struct{}{}:
					default:
					}
					return llmtest.Reply{Text: "late", Delay: time.Hour}
				}
				return llmtest.Agent()(r)
			})
			ctx, cancel := context.WithTimeout(context.Background(), w.Timeout)
			defer cancel()
			cmd := w.Command(ctx, "-p", "--dangerously-skip-permissions", "--sandbox", mode,
				"bash-bg sleep "+bg+"\nbash (sleep "+fg+" &) ; echo left")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("the commands' results never reached the model")
			}
			for _, marker := range []string{bg, fg} {
				if len(processesWith(marker, time.Minute, true)) == 0 {
					t.Fatalf("sleep %s never ran", marker)
				}
			}
			killed := time.Now()
			_ = cmd.Process.Kill()
			for _, marker := range []string{bg, fg} {
				if left := processesWith(marker, time.Minute, false); len(left) > 0 {
					t.Errorf("sleep %s outlived a SIGKILLed clawdcode: pids %v", marker, left)
				}
			}
			t.Logf("%s: every command gone %s after the SIGKILL", mode, time.Since(killed).Round(time.Millisecond))
		})
	}
}

// processesWith waits until some process's command line holds marker
// (present) or none does (!present), at most limit, and returns the pids
// that hold it when it stops waiting.
func processesWith(marker string, limit time.Duration, present bool) []int {
	for deadline := time.Now().Add(limit); ; time.Sleep(10 * time.Millisecond) {
		pids := pidsWith(marker)
		if (len(pids) > 0) == present || time.Now().After(deadline) {
			return pids
		}
	}
}

func pidsWith(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		// The sleep itself: clawdcode's own command line holds the marker
		// too, in its prompt.
		if err == nil && bytes.HasPrefix(b, []byte("sleep\x00"+marker)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

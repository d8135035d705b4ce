package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The permission holes of issue 32, one test per class, through the
// binary: each runs -p with the rules that let the calls through before
// and asserts what a user would notice (a file written or removed, a
// push made, a secret sent to the model).

// runCalls runs `clawdcode -p` with flags, the model making calls (each
// with its input) in one answer; it returns the result the model was
// sent for each call, in order.
func runCalls(t *testing.T, w *world, calls [][2]string, flags ...string) []string {
	t.Helper()
	var tc []llmtest.ToolCall
	for i, c := range calls {
		tc = append(tc, llmtest.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: c[0], Arguments: c[1]})
	}
	w.Server.Enqueue(llmtest.ToolCalls(tc...), llmtest.Text("done"))
	w.MustRun(append([]string{"-p", "go"}, flags...)...)
	out := make([]string, len(calls))
	for i := range calls {
		out[i] = toolResult(t, w.Server, fmt.Sprintf("call_%d", i))
	}
	return out
}

func bashCall(command string) [2]string {
	in, _ := json.Marshal(map[string]string{"command": command})
	return [2]string{"Bash", string(in)}
}

func toolCall(name string, input map[string]string) [2]string {
	in, _ := json.Marshal(input)
	return [2]string{name, string(in)}
}

// git runs git in dir, failing the test on an error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
}

// "Always" offers the narrowest rule — in -p the denial names it — never
// a bare program that runs others; and the bare rule it used to offer,
// Bash(git:*), no longer runs a git alias's shell command.
func TestAlwaysOffersTheNarrowestRule(t *testing.T) {
	t.Parallel()
	needGit(t)
	w := newWorld(t, llmtest.Options{})
	results := runCalls(t, w, [][2]string{bashCall("git --no-pager log -1"), bashCall("stdbuf -oL ls"), bashCall("sed -n 1p f")})
	for i, want := range []string{"'Bash(git log:*)'", "'Bash(stdbuf -oL ls)'", "'Bash(sed -n 1p f)'"} {
		if !strings.Contains(results[i], "--allowed-tools "+want) {
			t.Errorf("the denial %q does not offer %s", results[i], want)
		}
	}

	w = newWorld(t, llmtest.Options{})
	results = runCalls(t, w, [][2]string{bashCall("git -c alias.x='!touch X' x")}, "--allowed-tools", "Bash(git:*)")
	if _, err := os.Stat(filepath.Join(w.Project, "X")); err == nil {
		t.Errorf("Bash(git:*) ran a git alias's shell command: %q", results[0])
	}
	if !strings.Contains(results[0], "Permission to use Bash was denied") {
		t.Errorf("the model was sent %q, want a denial", results[0])
	}
}

// A deny rule sees through global options and aliases given on the
// command line: `Bash(git push:*)` stops `git -C . push`, `--no-pager`
// and `-c alias.p=push p` (the remote stays where it was), and the
// denies of kubectl, terraform and npm their global options.
func TestDenyRulesSeeThroughGlobalOptionsThroughTheBinary(t *testing.T) {
	t.Parallel()
	needGit(t)
	w := newWorld(t, llmtest.Options{})
	remote := filepath.Join(w.Root, "remote.git")
	git(t, w.Root, "init", "-q", "--bare", remote)
	git(t, w.Project, "init", "-q")
	git(t, w.Project, "commit", "-q", "--allow-empty", "-m", "one")
	git(t, w.Project, "remote", "add", "origin", remote)
	git(t, w.Project, "push", "-q", "origin", "HEAD:refs/heads/main")
	git(t, w.Project, "commit", "-q", "--allow-empty", "-m", "two")
	before := git(t, remote, "rev-parse", "main")
	push := "HEAD:refs/heads/main"
	calls := [][2]string{
		bashCall("git -C . push origin " + push), bashCall("git --no-pager push origin " + push),
		bashCall("git -c alias.p=push p origin " + push), bashCall("kubectl --context prod delete pod x"),
		bashCall("terraform -chdir=. destroy"), bashCall("npm --prefix . publish"),
	}
	results := runCalls(t, w, calls, "--dangerously-skip-permissions", "--disallowed-tools",
		"Bash(git push:*),Bash(kubectl delete:*),Bash(terraform destroy:*),Bash(npm publish:*)")
	for i, r := range results {
		if !strings.Contains(r, "is denied by the rule") {
			t.Errorf("%s: the model was sent %q, want a denial", calls[i][1], r)
		}
	}
	if after := git(t, remote, "rev-parse", "main"); after != before {
		t.Errorf("the remote moved from %s to %s: a push ran", before, after)
	}
}

// Whatever makes bash run a string it only holds as data leaves the line
// undecided: a `Bash(rm:*)` deny denies each way of running `rm keep`, and
// an allow rule for the builtin that runs it (Bash(trap:*)) asks.
func TestRunningAStringIsUndecidedThroughTheBinary(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	keep := filepath.Join(w.Project, "keep")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls [][2]string
	for _, c := range []string{
		"trap 'rm keep' EXIT", "shopt -s expand_aliases\nalias x='rm keep'\nx", "source <(echo rm keep)",
		"bash <<EOF\nrm keep\nEOF", "echo rm keep | bash", "env -S 'rm keep'", "mapfile -C 'rm keep #' -c 1 <<< x",
		"BASH_ENV=<(echo rm keep) bash -c true",
	} {
		calls = append(calls, bashCall(c))
	}
	results := runCalls(t, w, calls, "--dangerously-skip-permissions", "--disallowed-tools", "Bash(rm:*)")
	for i, r := range results {
		if !strings.Contains(r, "is denied by the rule Bash(rm:*)") {
			t.Errorf("%q: the model was sent %q, want a denial", calls[i][1], r)
		}
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("keep was removed: %v", err)
	}

	results = runCalls(t, w, [][2]string{bashCall("trap 'touch X' EXIT")}, "--allowed-tools", "Bash(trap:*)")
	if _, err := os.Stat(filepath.Join(w.Project, "X")); err == nil || !strings.Contains(results[0], "was denied") {
		t.Errorf("Bash(trap:*) let a trap's command run: %q", results[0])
	}
}

// A path denied to one tool is denied to every tool that reads or writes
// it: under a Read(.env) deny, Grep and Glob never show .env (nor does
// the session keep its password); under an Edit(src/**) deny, Write does
// not write there.
func TestDeniedPathsHoldForEveryToolThroughTheBinary(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	for name, content := range map[string]string{".env": "PASSWORD=hunter2\n", "src/a.go": "package a\n", "notes.txt": "PASSWORD is in .env\n"} {
		p := filepath.Join(w.Project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	results := runCalls(t, w, [][2]string{
		toolCall("Grep", map[string]string{"pattern": "PASSWORD"}),
		toolCall("Grep", map[string]string{"pattern": "PASSWORD", "path": ".env"}),
		toolCall("Glob", map[string]string{"pattern": "**/*"}),
		toolCall("Write", map[string]string{"file_path": "src/b.go", "content": "package a\n"}),
	}, "--disallowed-tools", "Read(.env),Edit(src/**)", "--allowed-tools", "Write")
	if strings.Contains(results[0], "hunter2") || !strings.Contains(results[0], "notes.txt") {
		t.Errorf("Grep of the project sent %q", results[0])
	}
	if strings.Contains(results[1], "hunter2") || !strings.Contains(results[1], "Read(.env)") {
		t.Errorf("Grep of .env sent %q", results[1])
	}
	if strings.Contains(results[2], ".env") || !strings.Contains(results[2], "notes.txt") {
		t.Errorf("Glob sent %q", results[2])
	}
	if !strings.Contains(results[3], "Edit(src/**)") {
		t.Errorf("Write under an Edit deny was sent %q", results[3])
	}
	if _, err := os.Stat(filepath.Join(w.Project, "src/b.go")); err == nil {
		t.Error("Write wrote src/b.go under an Edit(src/**) deny")
	}
	for _, f := range w.sessionFiles() {
		if data, _ := os.ReadFile(f); strings.Contains(string(data), "hunter2") {
			t.Errorf("the session %s keeps the password", f)
		}
	}
}

// In accept-edits mode Write and Edit still ask before touching .git/
// (in -p: denied), so no model can plant a core.fsmonitor command or a
// hook for the user's next git command; files of the project are written.
func TestAcceptEditsAsksBeforeWritingGitDir(t *testing.T) {
	t.Parallel()
	needGit(t)
	w := newWorld(t, llmtest.Options{})
	git(t, w.Project, "init", "-q")
	config := filepath.Join(w.Project, ".git", "config")
	before, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	results := runCalls(t, w, [][2]string{
		toolCall("Read", map[string]string{"file_path": ".git/config"}),
		toolCall("Write", map[string]string{"file_path": ".git/config", "content": "[core]\n\tfsmonitor = touch X\n"}),
		toolCall("Write", map[string]string{"file_path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch X\n"}),
		toolCall("Write", map[string]string{"file_path": "main.go", "content": "package main\n"}),
	}, "--permission-mode", "acceptEdits")
	for i, r := range results[1:3] {
		if !strings.Contains(r, "git runs") {
			t.Errorf("write %d: the model was sent %q, want a denial", i, r)
		}
	}
	if after, _ := os.ReadFile(config); string(after) != string(before) {
		t.Errorf(".git/config was rewritten:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(w.Project, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a pre-commit hook was written")
	}
	if _, err := os.Stat(filepath.Join(w.Project, "main.go")); err != nil {
		t.Errorf("main.go was not written in accept-edits mode: %q", results[3])
	}
}

// The documentation's example rules do not run other programs: under
// Bash(git diff:*), `git diff --output=FILE` asks (the file is not
// written), and under Bash(go test:*), `go test -exec` asks.
func TestDocsExampleRulesDoNotRunOtherPrograms(t *testing.T) {
	t.Parallel()
	needGit(t)
	w := newWorld(t, llmtest.Options{})
	git(t, w.Project, "init", "-q")
	out := filepath.Join(w.Root, "written-by-diff")
	results := runCalls(t, w, [][2]string{
		bashCall("git diff --output=" + out), bashCall("go test -exec 'touch X' ./..."), bashCall("git diff --stat"),
	}, "--allowed-tools", "Bash(go test:*),Bash(git diff:*)")
	for i, r := range results[:2] {
		if !strings.Contains(r, "Permission to use Bash was denied") {
			t.Errorf("call %d: the model was sent %q, want a denial", i, r)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("git diff --output wrote %s under Bash(git diff:*)", out)
	}
	if strings.Contains(results[2], "denied") {
		t.Errorf("git diff --stat was denied: %q", results[2])
	}
}

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestSandboxMakesNoRepository: issue 32's gap. In a project with no
// .git, a command in the sandbox cannot make a repository — git init, a
// .git file pointing elsewhere — whose config the user's own git would
// run later; the .git clawdcode holds read-only meanwhile is gone once it
// exits.
func TestSandboxMakesNoRepository(t *testing.T) {
	t.Parallel()
	requireTool(t, "git")
	w := newWorld(t, llmtest.Options{})
	r := w.Run("sandbox", "--", "sh", "-c",
		"git init -q; git config core.fsmonitor 'touch pwned'; echo 'gitdir: ../elsewhere' > .git; mkdir .git/hooks; true")
	if r.Code != 0 {
		t.Fatalf("the command: %s", r)
	}
	if !containsLine(r.Stderr, "sandbox: refused a write to", ".git") {
		t.Errorf("the refusal is not named:\n%s", r)
	}
	if entries, _ := os.ReadDir(w.Project); len(entries) > 1 || (len(entries) == 1 && entries[0].Name() != ".clawdcode") {
		t.Errorf("the project holds more than .clawdcode/ after the run: %v", entries)
	}
}

// TestSandboxFollowsTheUsersGitInit: a repository the user makes during
// the run (here a git init the model ran outside the sandbox under the
// user's rule) is the sandbox's to protect from the next command on: git
// add and commit work in it, its config stays read-only, and clawdcode
// leaves it in place.
func TestSandboxFollowsTheUsersGitInit(t *testing.T) {
	t.Parallel()
	requireTool(t, "git")
	w := newWorld(t, llmtest.Options{})
	bash := func(command string, outside bool) llmtest.ToolCall {
		in := map[string]any{"command": command}
		if outside {
			in["sandbox"] = false
		}
		b, _ := json.Marshal(in)
		return llmtest.Call("Bash", string(b))
	}
	calls := []llmtest.ToolCall{
		bash("git init -q && echo made", false),
		bash("git init -q", true),
		bash("echo a > f && git add f && git -c user.name=t -c user.email=t@example.com commit -qm one && git log --format=%s -1", false),
		bash("echo '[core] fsmonitor = touch pwned' >> .git/config", false),
	}
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if last := r.Messages[len(r.Messages)-1]; last.Role == chat.RoleUser {
			return llmtest.ToolCalls(calls...)
		}
		return llmtest.Text("done")
	})
	w.MustRun("-p", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash(git init:*)", "go")
	res := lastToolResults(w)
	if len(res) != len(calls) {
		t.Fatalf("%d results, want %d: %q", len(res), len(calls), res)
	}
	if strings.Contains(res[0], "made") || !containsLine(res[0], "sandbox: refused a write to", ".git") {
		t.Errorf("git init inside the sandbox: want it refused and named, got:\n%s", res[0])
	}
	if strings.Contains(res[1], "denied") || strings.Contains(res[1], "Error") {
		t.Errorf("git init outside the sandbox, under the rule: %s", res[1])
	}
	if !strings.Contains(res[2], "one") || strings.Contains(res[2], "sandbox:") {
		t.Errorf("git add and commit in the user's new repository, inside the sandbox:\n%s", res[2])
	}
	if !containsLine(res[3], "sandbox: refused a write to", ".git/config") {
		t.Errorf("the new repository's config was not read-only in the sandbox:\n%s", res[3])
	}
	config, err := os.ReadFile(filepath.Join(w.Project, ".git", "config"))
	if err != nil || strings.Contains(string(config), "fsmonitor") {
		t.Errorf("the repository is gone, or its config was written (%v):\n%s", err, config)
	}
}

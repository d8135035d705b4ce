//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// issue36Project makes a project and a home under a temporary directory,
// with the user's config.toml holding config (none when empty); it
// returns the project, the environment of a run there, and the home.
func issue36Project(t *testing.T, srv *llmtest.Server, config string) (project string, env []string, home string) {
	t.Helper()
	tmp := t.TempDir()
	project = filepath.Join(tmp, "project")
	home = filepath.Join(tmp, "home")
	for _, d := range []string{project, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return project, clawdcodeEnv(tmp, srv), home
}

// TestClawdcodeNotificationHook: issue 36 item 5. A permission question
// runs the Notification hooks with Claude Code's payload, before the user
// answers.
func TestClawdcodeNotificationHook(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	project, env, home := issue36Project(t, srv, `[[hooks.Notification]]
command = "cat > \"$CLAWDCODE_HOME/notified.tmp\"; echo >> \"$CLAWDCODE_HOME/notified.tmp\"; mv \"$CLAWDCODE_HOME/notified.tmp\" \"$CLAWDCODE_HOME/notified.json\""
`)
	term := startClawdcodeIn(t, srv, project, env)
	term.expectPrompt()
	term.send("bash echo hi\r")
	term.expect("❯ 1. Yes")
	got := harness.WaitLine(filepath.Join(home, "notified.json"), waitLimit)
	for _, want := range []string{`"hook_event_name":"Notification"`, `"message":"clawdcode needs your permission to use Bash"`, `"notification_type":"permission_prompt"`} {
		if !strings.Contains(got, want) {
			t.Fatalf("the Notification payload %s lacks %s", got, want)
		}
	}
	term.send("n")
	term.expect("Esc: just no")
	term.send("\x1b")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestClawdcodeSkillAsCommand: issue 36 item 5. A skill is a command in
// the REPL, as in Claude Code: /help lists it, and /name asks the model to
// use it for what follows.
func TestClawdcodeSkillAsCommand(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	project, env, home := issue36Project(t, srv, "")
	dir := filepath.Join(home, "skills", "commit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: commit\ndescription: Write a commit message in the house style.\n---\nSubject line at most 50 characters.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	term := startClawdcodeIn(t, srv, project, env)
	term.expectPrompt()
	term.send("/help\r")
	term.expect("Write a commit message in the house style. (skill)")
	term.expectPrompt()
	term.send("/commit the parser fix\r")
	term.expect(`You said: Use the "commit" skill`)
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

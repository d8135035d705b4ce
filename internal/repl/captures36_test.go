//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenCapturesIssue36 writes what the screen shows of issue 36's
// items 1–4 (a subdirectory of a repository, /rewind and its return, the
// plan's hand-over, memories in the session under way) to the file
// CLAWDCODE_SCREEN_CAPTURES names, for the closing note; without it the
// test is skipped. Each item has its own asserting test; this one only
// shows them.
func TestScreenCapturesIssue36(t *testing.T) {
	capture, done := screenCaptures(t)
	defer done()
	captureSubdirectory(t, capture)
	captureRewindReturn(t, capture)
	capturePlanHandover(t, capture)
	captureMemoryInSession(t, capture)
}

func captureSubdirectory(t *testing.T, capture func(string, *tmuxScreen)) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreen(t, srv, 100, 30)
	for name, text := range map[string]string{".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": "Use tabs.\n", "api/AGENTS.md": "Handlers stay thin.\n"} {
		path := filepath.Join(s.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.waitPrompt()
	s.keys("/memory add Answer tersely")
	s.sendKeys("Enter")
	s.waitPrompt()
	s.enterAndWait("hello from the root", "You said: hello from the root")
	s.waitPrompt()
	s.kill()

	sub := &tmuxScreen{t: t, dir: filepath.Join(s.dir, "api"), env: s.env}
	sub.start(100, 30, "-c")
	sub.waitFor("[exited")
	capture("-c in a subdirectory without sessions says where the project's are", sub)
	sub.kill()
	sub = &tmuxScreen{t: t, dir: filepath.Join(s.dir, "api"), env: s.env}
	sub.start(100, 30)
	sub.waitPrompt()
	sub.enterAndWait("/memory", "Answer tersely")
	sub.waitPrompt()
	sub.enterAndWait("/resume", "No sessions to resume in this directory")
	sub.waitPrompt()
	sub.enterAndWait("hello from api/", "You said: hello from api/")
	sub.waitPrompt()
	sys := srv.LastRequest().Messages[0].Content
	i := strings.Index(sys, "Environment:")
	sub.t.Logf("the system prompt from api/ (from its Environment on):\n%s", sys[i:])
	capture("started in api/: the root's memory in /memory, /resume names the root's sessions", sub)
	sub.kill()
}

func captureRewindReturn(t *testing.T, capture func(string, *tmuxScreen)) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreen(t, srv, 100, 30, "--dangerously-skip-permissions")
	s.waitPrompt()
	for _, m := range []string{"write a.txt one", "write a.txt two", "write a.txt three"} {
		s.enterAndWait(m, "Tool results:")
		s.waitPrompt()
	}
	s.enterAndWait("/rewind", "newest first")
	capture("/rewind: the messages newest first, the last one highlighted", s)
	s.keys("2")
	s.waitFor("Rewind to before:")
	capture("/rewind: confirmed, the file it would restore named", s)
	s.keys("1")
	s.waitFor("Rewound to before")
	s.waitPrompt()
	s.sendKeys("C-u")
	s.enterAndWait("/rewind", "↪ Return to where you were")
	capture("/rewind after a rewind: the way back is offered last", s)
	s.keys("2")
	s.waitFor("Return to where you were before the last rewind (after")
	s.keys("1")
	s.waitFor("Returned to where you were")
	s.waitPrompt()
	capture("/rewind: returned, the file put back", s)
	s.kill()
}

func capturePlanHandover(t *testing.T, capture func(string, *tmuxScreen)) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	agent := llmtest.Agent()
	srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		switch last := lastNonSystem(r.Messages); {
		case last.Role == chat.RoleTool && strings.Contains(last.Content, "approved your plan"):
			return llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"CHANGELOG.md","content":"## 2.0\n- faster builds\n"}`))
		case last.Role == chat.RoleTool && strings.HasPrefix(last.Content, "Created"):
			return llmtest.Text("Done: CHANGELOG.md has the 2.0 entry.")
		}
		return agent(r)
	})
	s := startScreen(t, srv, 100, 40, "--permission-mode", "plan")
	s.waitPrompt()
	s.enterAndWait(`exit-plan ## Plan: a changelog entry\n1. **Write** CHANGELOG.md with a 2.0 section\n2. Read it back to check it`, "No, keep planning")
	capture("plan mode: the plan handed over (ExitPlanMode), framed, and its three answers", s)
	s.keys("2")
	s.waitFor("Done: CHANGELOG.md")
	s.waitPrompt()
	capture("plan approved with accept edits: carried out at once, no question, no other prompt", s)
	s.kill()
}

func captureMemoryInSession(t *testing.T, capture func(string, *tmuxScreen)) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreen(t, srv, 100, 30, "--dangerously-skip-permissions")
	if err := os.WriteFile(filepath.Join(s.dir, "Makefile"), []byte("test:\n\t@echo all tests pass\ncheck:\n\t@echo all checks pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt()
	s.enterAndWait("bash make test", "Tool results:")
	s.waitPrompt()
	s.enterAndWait("/new", "Remember this for every session of this project?")
	s.keys("a")
	s.waitPrompt()
	s.enterAndWait("hello", "You said: hello")
	s.waitPrompt()
	s.keys("/memory add Keep functions short")
	s.sendKeys("Enter")
	s.waitPrompt()
	s.enterAndWait("# Run the tests with `make check`", "Remember this where?")
	s.keys("1")
	s.waitFor("Retired, replaced by it")
	s.waitPrompt()
	s.enterAndWait("next", "You said: next")
	s.waitPrompt()
	capture("memories in the session under way: /memory add and # say when the model has them; the typed test command retires the accepted one", s)
	s.kill()
}

//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenSuggestedTestCommandAcceptedWithOneKey (issue 24): a session
// whose tests passed ends; the next one asks, at its first prompt, whether
// to remember the test command, showing the records it came from; one key
// accepts it, and that session's first request carries it, while no
// request before did.
func TestScreenSuggestedTestCommandAcceptedWithOneKey(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := runPassingTests(t, srv)

	s = s.again(120, 40, "--dangerously-skip-permissions")
	scr := s.waitFor("Remember this for every session of this project?")
	if !strings.Contains(scr, "Run the tests with `make test`") || !strings.Contains(scr, "derived from the session's records ") {
		t.Fatalf("the suggestion is not shown with its source:\n%s", scr)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r.Messages[0].Content, "Run the tests with") {
			t.Fatalf("a request carried the suggestion before it was accepted:\n%s", r.Messages[0].Content)
		}
	}
	s.keys("a")
	s.waitFor("Remembered: Run the tests with `make test`")
	s.waitPrompt()
	s.keys("hello")
	s.sendKeys("Enter")
	s.waitFor("You said: hello")
	sys := srv.LastRequest().Messages[0].Content
	if !strings.Contains(sys, "accepted from clawdcode's suggestion, from records ") || !strings.Contains(sys, "] Run the tests with `make test`") {
		t.Fatalf("the accepted memory is not in the session's first request:\n%s", sys)
	}
}

// TestScreenCompactionSuggestsAtTheNextPrompt: a compaction derives the
// suggestions of what it compacts, and the REPL asks at the prompt that
// follows, without waiting for the session to end; rejected, it is not
// asked again.
func TestScreenCompactionSuggestsAtTheNextPrompt(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	agent := llmtest.Agent()
	srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if llmtest.IsSummaryRequest(r) {
			return llmtest.Text("SUMMARY: the tests were run.")
		}
		return agent(r)
	})
	s := runPassingTests(t, srv)
	if strings.Contains(s.screen(), "Remember this") {
		t.Fatal("a suggestion was offered before the session ended or compacted")
	}
	s.keys("/compact")
	s.sendKeys("Enter")
	s.waitFor("Remember this for every session of this project?")
	s.keys("r")
	s.waitFor("Reject: do not suggest it again")
	s.waitPrompt()
	s.keys("/memory")
	s.sendKeys("Enter")
	scr := s.waitFor("No memories.")
	if strings.Contains(scr[strings.LastIndex(scr, "/memory"):], "Suggestions") {
		t.Fatalf("a rejected suggestion is still listed:\n%s", scr)
	}
}

// runPassingTests starts clawdcode in a project whose `make test` passes
// and has the model run it.
func runPassingTests(t *testing.T, srv *llmtest.Server) *tmuxScreen {
	t.Helper()
	s := startScreen(t, srv, 120, 40, "--dangerously-skip-permissions")
	if err := os.WriteFile(filepath.Join(s.dir, "Makefile"), []byte("test:\n\t@echo all tests pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt()
	s.keys("bash make test")
	s.sendKeys("Enter")
	s.waitFor("all tests pass")
	s.waitPrompt()
	return s
}

// TestClawdcodeMemoryEditInEditor: /memory edit hands the memories to
// $VISUAL one a line; a changed line edits its memory, a deleted one
// removes it, and the REPL reads keys again afterwards.
func TestClawdcodeMemoryEditInEditor(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(clawdcodeEnv(tmp, srv), "VISUAL=sed -i -e s/first/edited/ -e /dropme/d")
	term := startClawdcodeIn(t, srv, project, env)
	term.expectPrompt()
	term.send("/memory add the first note\r")
	term.expect("Remembered (project): the first note")
	term.expectPrompt()
	term.send("/memory add --user dropme please\r")
	term.expect("Remembered (user): dropme please")
	term.expectPrompt()
	term.send("/memory edit\r")
	term.expect("Memories: 0 added, 1 edited, 1 removed.")
	term.expectPrompt()
	term.send("/memory\r")
	term.expect("1. the edited note")
	term.expectPrompt()
	term.send("hello\r")
	term.expect("You said: hello")
	term.expectPrompt()
	if sys := srv.LastRequest().Messages[0].Content; !strings.Contains(sys, "] the edited note") || strings.Contains(sys, "dropme") {
		t.Fatalf("the session's first request does not have the edited memories:\n%s", sys)
	}
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

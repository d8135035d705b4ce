//go:build unix

package repl

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// taskScript scripts a parent that starts two subagents (prompts ALPHA
// and BETA, described "alpha scan" and "beta scan") in one answer and
// answers "NEXT OK" to the user's "next"; sub answers each subagent's
// requests given its prompt and whether its last message is a tool result.
func taskScript(sub func(prompt string, answered bool) llmtest.Reply) func(llmtest.Request) llmtest.Reply {
	task := func(desc, prompt string) llmtest.ToolCall {
		b, _ := json.Marshal(map[string]string{"description": desc, "prompt": prompt})
		return llmtest.Call("Task", string(b))
	}
	return func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		switch {
		case strings.Contains(r.Messages[0].Content, "You are a subagent"):
			return sub(r.Messages[1].Content, last.Role == chat.RoleTool)
		case last.Role == chat.RoleUser && last.Content == "next":
			return llmtest.Text("NEXT OK")
		case last.Role == chat.RoleUser:
			return llmtest.ToolCalls(task("alpha scan", "ALPHA"), task("beta scan", "BETA"))
		}
		return llmtest.Text("parent done")
	}
}

// bashCall is a Bash tool call running command.
func bashCall(command string) llmtest.ToolCall {
	b, _ := json.Marshal(map[string]string{"command": command})
	return llmtest.Call("Bash", string(b))
}

// release writes a line to the fifo at path once its reader (a subagent's
// `cat`) has opened it.
func release(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			defer f.Close()
			if _, err := f.WriteString("released\n"); err != nil {
				t.Fatal(err)
			}
			return
		}
		if !errors.Is(err, syscall.ENXIO) || time.Now().After(deadline) {
			t.Fatalf("open %s for writing: %v", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitVisible waits until the pane, as it shows now, holds every one of
// want at once, and returns it.
func (s *tmuxScreen) waitVisible(want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		scr := s.visible()
		missing := ""
		for _, w := range want {
			if !strings.Contains(scr, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q:\n%s", missing, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Two subagents at once are two live lines under the spinner — what each
// is running and for how long — redrawn in place; Ctrl-O unfolds each
// one's recent calls; a task that ends becomes a one-line result; Esc
// cancels the one still running, and the session goes on (issue 23).
func TestScreenTasksAreLiveLines(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(taskScript(func(prompt string, answered bool) llmtest.Reply {
		switch {
		case !answered:
			return llmtest.ToolCalls(bashCall("cat " + strings.ToLower(prompt) + ".fifo"))
		case prompt == "ALPHA":
			return llmtest.Text("alpha answer")
		}
		return llmtest.Hang()
	}))
	s := startScreen(t, srv, 120, 40, "--allowed-tools", "Bash(cat:*)")
	for _, name := range []string{"alpha.fifo", "beta.fifo"} {
		if err := syscall.Mkfifo(filepath.Join(s.dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s.waitPrompt()
	s.keys("scan both")
	s.sendKeys("Enter")
	s.waitVisible("⏺ Task(alpha scan)", "⏺ Task(beta scan)")
	alpha, beta := "⎿ [general: alpha scan] Bash(cat alpha.fifo) · ", "⎿ [general: beta scan] Bash(cat beta.fifo) · "
	s.waitVisible(alpha+"1s", beta)
	scr := s.screen()
	if n := strings.Count(scr, "[general: alpha scan]"); n != 1 {
		t.Fatalf("the alpha task is on %d lines, want one redrawn in place:\n%s", n, scr)
	}
	if !regexp.MustCompile(regexp.QuoteMeta(beta) + `\d+s`).MatchString(scr) {
		t.Fatalf("the beta line has no elapsed time:\n%s", scr)
	}

	s.sendKeys("C-o")
	t.Logf("\n%s", s.waitVisible("↳ Bash(cat alpha.fifo)", "↳ Bash(cat beta.fifo)"))

	release(t, filepath.Join(s.dir, "alpha.fifo"))
	scr = s.waitVisible("⎿ [general: alpha scan] ok · ", beta)
	if !regexp.MustCompile(`alpha scan\] ok · [\d.]+k? tokens · [\d.]+m?s`).MatchString(scr) {
		t.Fatalf("the alpha result line lacks its tokens or time:\n%s", scr)
	}

	release(t, filepath.Join(s.dir, "beta.fifo"))
	s.waitVisible("⎿ [general: beta scan] thinking · ")
	s.sendKeys("Escape")
	s.waitFor("⎿ [general: beta scan] cancelled · ")
	s.waitPrompt()
	s.keys("next")
	s.sendKeys("Enter")
	t.Logf("\n%s", s.waitFor("NEXT OK"))
	// The task that ended before Esc keeps its answer.
	if got := toolResults(srv.LastRequest()); !strings.HasPrefix(got, "alpha answer | ") || !strings.Contains(got, "interrupted") {
		t.Fatalf("the next request's tool results: %s", got)
	}
}

// Esc while two subagents wait for the server cancels both; every Task
// call is answered, so the server accepts the session's next request.
func TestScreenEscCancelsEveryTask(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(taskScript(func(string, bool) llmtest.Reply { return llmtest.Hang() }))
	s := startScreen(t, srv, 120, 40)
	s.waitPrompt()
	s.keys("scan both")
	s.sendKeys("Enter")
	s.waitVisible("⎿ [general: alpha scan] thinking · ", "⎿ [general: beta scan] thinking · ")
	s.sendKeys("Escape")
	s.waitFor("⎿ [general: alpha scan] cancelled · ")
	s.waitFor("⎿ [general: beta scan] cancelled · ")
	s.waitPrompt()
	s.keys("next")
	s.sendKeys("Enter")
	s.waitFor("NEXT OK")
	last := srv.LastRequest()
	var calls, results int
	for _, m := range last.Messages {
		calls += len(m.ToolCalls)
		if m.Role == chat.RoleTool {
			results++
		}
	}
	if calls != 2 || results != 2 {
		t.Fatalf("the next request has %d calls and %d results, want both Task calls answered", calls, results)
	}
}

// A subagent that ends while another's permission dialog is open does
// not write over it: its result line waits for the answer.
func TestScreenTaskResultWaitsForTheDialog(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(taskScript(func(prompt string, answered bool) llmtest.Reply {
		switch {
		case prompt == "ALPHA" && !answered:
			return llmtest.ToolCalls(bashCall("echo permitted"))
		case prompt == "ALPHA":
			return llmtest.Text("alpha answer")
		}
		return llmtest.Reply{Text: "beta answer", PauseAfter: 1, Resume: release}
	}))
	s := startScreen(t, srv, 120, 40)
	s.waitPrompt()
	s.keys("scan both")
	s.sendKeys("Enter")
	s.waitVisible("[general: alpha scan] Bash(echo permitted)", "Yes, and allow")
	close(release)
	s.waitRecorded("beta answer")
	if scr := s.visible(); strings.Contains(scr, "beta scan] ok") || strings.Contains(scr, "running Task…") {
		t.Fatalf("a subagent wrote over the open dialog:\n%s", scr)
	}
	s.keys("y")
	scr := s.waitFor("⎿ [general: beta scan] ok · ")
	s.waitFor("⎿ [general: alpha scan] ok · ")
	if q, b := strings.Index(scr, "Bash(echo permitted)"), strings.Index(scr, "beta scan] ok"); q < 0 || b < q {
		t.Fatalf("the result line is not after the dialog:\n%s", scr)
	}
}

// waitRecorded waits until a session file of the test's home holds text.
func (s *tmuxScreen) waitRecorded(text string) {
	s.t.Helper()
	home := ""
	for _, e := range s.env {
		if v, ok := strings.CutPrefix(e, "CLAWDCODE_HOME="); ok {
			home = v
		}
	}
	deadline := time.Now().Add(waitLimit)
	for {
		files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), text) {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no session recorded %q", text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// toolResults joins the tool results r carries.
func toolResults(r llmtest.Request) string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == chat.RoleTool {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, " | ")
}

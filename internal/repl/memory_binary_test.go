//go:build unix

package repl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestClawdcodeMemoryCommands: in the REPL, /pin and /pins, /compact
// --preview accepted from its dialog, /handoff and /fork each do what the
// user sees them say, and the pin rides along into the handed-off and the
// forked session.
func TestClawdcodeMemoryCommands(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	agent := llmtest.Agent()
	srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if llmtest.IsSummaryRequest(r) {
			return llmtest.Text("FORGETFUL-SUMMARY: nothing of note.")
		}
		return agent(r)
	})
	term := startClawdcode(t, srv)
	term.expectPrompt()
	for i := range 4 {
		term.send(fmt.Sprintf("message number %d %s\r", i, strings.Repeat("with quite a few more words to summarise ", 12)))
		term.expect(fmt.Sprintf("You said: message number %d", i))
		term.expectPrompt()
	}
	term.send("/pin PINNED-IN-REPL stays\r")
	term.expect("Pinned (1)")
	term.expectPrompt()
	term.send("/pins\r")
	term.expect("1. PINNED-IN-REPL stays")
	term.expectPrompt()

	term.send("/compact --preview\r")
	term.expect("Draft summary (not applied")
	term.expect("FORGETFUL-SUMMARY")
	term.expect("Apply this compaction?")
	term.send("accept\r")
	term.expect("Compacted:")
	term.expectPrompt()

	term.send("/handoff\r")
	term.expect("Handed off session")
	term.expectPrompt()
	term.send("/fork\r")
	term.expect("Forked session")
	term.expectPrompt()
	term.send("after all that\r")
	// The summary and the new message go as two user messages.
	term.expect("You said: after all that")
	term.expectPrompt()
	req := srv.LastRequest()
	if sys := req.Messages[0].Content; !strings.Contains(sys, "PINNED-IN-REPL stays") {
		t.Fatalf("the pin did not follow the handoff and the fork:\n%s", sys)
	}
	if c := req.Messages[1].Content; !strings.Contains(c, "FORGETFUL-SUMMARY") || !strings.Contains(c, "message number 0") || req.Messages[len(req.Messages)-1].Content != "after all that" {
		t.Fatalf("the forked handoff does not start from the summary:\n%s", req.Messages[1].Content)
	}
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	home := ""
	for _, e := range term.cmd.Env {
		if v, ok := strings.CutPrefix(e, "CLAWDCODE_HOME="); ok {
			home = v
		}
	}
	if m, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl")); len(m) != 3 {
		t.Fatalf("%d session files, want the original, the handoff and the fork: %v", len(m), m)
	}
}

// TestClawdcodePreviewEditInEditor: "edit" in /compact --preview's dialog
// hands the terminal to $EDITOR, stores what the user left in the file as
// the summary, and the REPL reads keys again afterwards.
func TestClawdcodePreviewEditInEditor(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	agent := llmtest.Agent()
	srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if llmtest.IsSummaryRequest(r) {
			return llmtest.Text("FORGETFUL-SUMMARY: nothing of note.")
		}
		return agent(r)
	})
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home")
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tmp,
		"TERM=xterm",
		"CLAWDCODE_HOME=" + home,
		"OPENAI_BASE_URL=" + srv.URL(),
		"VISUAL=sed -i s/FORGETFUL-SUMMARY/EDITED-BY-THE-USER/",
	}
	term := startClawdcodeIn(t, srv, project, env)
	term.expectPrompt()
	for i := range 4 {
		term.send(fmt.Sprintf("message number %d %s\r", i, strings.Repeat("with quite a few more words to summarise ", 12)))
		term.expect(fmt.Sprintf("You said: message number %d", i))
		term.expectPrompt()
	}
	term.send("/compact --preview\r")
	term.expect("Apply this compaction?")
	term.send("edit\r")
	term.expect("Compacted:")
	term.expectPrompt()
	term.send("still listening?\r")
	term.expect("You said: still listening?")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "EDITED-BY-THE-USER") || strings.Contains(string(data), "FORGETFUL-SUMMARY: nothing") {
		t.Fatalf("the stored summary is not the edited one")
	}
	if left, _ := filepath.Glob(filepath.Join(home, "tmp", "*")); len(left) != 0 {
		t.Fatalf("the draft's temporary file is left: %v", left)
	}
}

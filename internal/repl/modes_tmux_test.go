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

// Shift-Tab cycles the permission modes, shown in the status line; in
// plan mode a Write is refused and the model told so, and an answer is
// not followed by any question (issue 26). The model hands its plan over
// with ExitPlanMode (issue 36): the REPL shows it framed and asks; "keep
// planning" with a note sends the note and the model revises at once;
// "accept edits" leaves plan mode and the model carries the plan out in
// the same turn, its Write running without a question.
func TestScreenPlanModeApproval(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	agent := llmtest.Agent()
	srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		switch last := lastNonSystem(r.Messages); {
		case last.Role == chat.RoleTool && strings.Contains(last.Content, "approved your plan"):
			return llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"planned.txt","content":"as planned"}`))
		case last.Role == chat.RoleTool && strings.HasPrefix(last.Content, "Created planned.txt"):
			return llmtest.Text("Done: planned.txt holds the plan's text.")
		}
		return agent(r)
	})
	s := startScreen(t, srv, 110, 40)
	if scr := s.waitPrompt(); strings.Contains(scr, "accept edits") || strings.Contains(scr, "plan mode") {
		t.Fatalf("the default mode shows a mode in the status line:\n%s", scr)
	}
	s.sendKeys("BTab")
	s.waitFor("⏵⏵ accept edits")
	s.sendKeys("BTab")
	s.waitFor("⏸ plan mode")

	s.keys("write planned.txt hello")
	s.sendKeys("Enter")
	s.waitFor("Tool results:")
	if scr := s.waitPrompt(); strings.Contains(scr, "Approve") {
		t.Fatalf("an answer in plan mode is followed by a question:\n%s", scr)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "planned.txt")); !os.IsNotExist(err) {
		t.Fatalf("a Write ran in plan mode (stat: %v)", err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if !toolSaid(last, "was not run: plan mode is on") {
		t.Errorf("the model was not told the Write was refused in plan mode: %+v", last)
	}
	if n := last[len(last)-1]; n.Role != chat.RoleSystem || !strings.Contains(n.Content, "Plan mode is on") {
		t.Errorf("the request does not end with plan mode's note: %+v", n)
	}

	s.keys(`exit-plan ## Plan\n1. **Write** planned.txt\n2. Read it back`)
	s.sendKeys("Enter")
	s.waitFor("Approve this plan and carry it out?")
	scr := s.waitFor("No, keep planning")
	for _, want := range []string{"╭─ Plan ─", "│ 1. Write planned.txt", "│ 2. Read it back", "╰─"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the plan is not shown framed (%q):\n%s", want, scr)
		}
	}
	s.keys("3")
	s.waitFor("What should change in the plan?")
	s.keys("also read notes.txt")
	s.sendKeys("Enter")
	s.waitFor("They said: also read notes.txt")
	s.waitPrompt()
	if !strings.Contains(statusRow(s.visible()), "plan mode") {
		t.Fatalf("keep planning left plan mode:\n%s", s.screen())
	}

	s.keys(`exit-plan ## Plan\n1. Write planned.txt\n2. Read notes.txt`)
	s.sendKeys("Enter")
	s.waitFor("2. Read notes.txt")
	// The first plan's question is still on the screen, answered: wait
	// for the live choices of the second, or "2" may come before them.
	s.waitFor("❯ 1. Yes, and ask before each change")
	s.keys("2")
	s.waitFor("Done: planned.txt holds the plan's text.")
	scr = s.waitPrompt()
	if b, err := os.ReadFile(filepath.Join(s.dir, "planned.txt")); err != nil || string(b) != "as planned" {
		t.Fatalf("the approved plan was not carried out (%q, %v):\n%s", b, err, scr)
	}
	if strings.Contains(scr, "Yes, and allow") {
		t.Errorf("the Write asked after approval with accept edits:\n%s", scr)
	}
	if row := statusRow(s.visible()); !strings.Contains(row, "accept edits") {
		t.Errorf("the status line does not show accept edits after approval: %q", row)
	}
	t.Logf("\n%s", scr)
}

// lastNonSystem is the last message before any trailing system notes.
func lastNonSystem(msgs []chat.Message) chat.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != chat.RoleSystem {
			return msgs[i]
		}
	}
	return chat.Message{}
}

// toolSaid reports whether a tool result among msgs contains want.
func toolSaid(msgs []chat.Message, want string) bool {
	for _, m := range msgs {
		if m.Role == chat.RoleTool && strings.Contains(m.Content, want) {
			return true
		}
	}
	return false
}

// statusRow is the last row of the screen: the idle editor's status line.
func statusRow(screen string) string {
	rows := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	return rows[len(rows)-1]
}

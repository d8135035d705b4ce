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
// plan mode a Write is refused and the model told so, the answer is
// followed by the plan's approval, and approving leaves plan mode: the
// next Write asks as in the default mode (issue 26).
func TestScreenPlanModeApproval(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreen(t, srv, 110, 30)
	if scr := s.waitPrompt(); strings.Contains(scr, "accept edits") || strings.Contains(scr, "plan mode") {
		t.Fatalf("the default mode shows a mode in the status line:\n%s", scr)
	}
	s.sendKeys("BTab")
	s.waitFor("⏵⏵ accept edits")
	s.sendKeys("BTab")
	s.waitFor("⏸ plan mode")

	s.keys("write planned.txt hello")
	s.sendKeys("Enter")
	s.waitFor("Approve this plan and leave plan mode?")
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

	s.keys("y")
	s.waitFor("plan approved")
	if scr := s.waitPrompt(); strings.Contains(statusRow(s.visible()), "plan mode") {
		t.Fatalf("the status line still shows plan mode after approval:\n%s", scr)
	}
	s.keys("write after.txt hello")
	s.sendKeys("Enter")
	s.waitFor("Yes, and allow")
	s.keys("y")
	waitUntil(t, "after.txt to be written", func() bool {
		_, err := os.Stat(filepath.Join(s.dir, "after.txt"))
		return err == nil
	})
	t.Logf("\n%s", s.screen())
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

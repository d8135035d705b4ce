//go:build unix

package repl

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenHandoffShowsTheNewSessionAndSendsTheSummaryApart (issue 25
// item 11): after /handoff the status line no longer names the old
// session; the new one is titled by its first message; and the summary
// and that message reach the model as two user messages (an
// acknowledgement between them), not one.
func TestScreenHandoffShowsTheNewSessionAndSendsTheSummaryApart(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(summarisingAgent())
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("alpha topic of the old session")
	s.sendKeys("Enter")
	s.waitFor("You said: alpha topic")
	s.waitPrompt()
	if row := statusRow(s.visible()); !strings.Contains(row, "alpha topic") {
		t.Fatalf("the status line does not show the session's title: %q", row)
	}
	s.keys("/handoff")
	s.sendKeys("Enter")
	s.waitFor("Handed off session")
	s.waitPrompt()
	if row := statusRow(s.visible()); strings.Contains(row, "alpha topic") {
		t.Fatalf("after /handoff the status line still shows the old session's title: %q", row)
	}
	before := len(srv.Requests())
	s.keys("bravo work in the new session")
	s.sendKeys("Enter")
	waitUntil(t, "the request after the handoff", func() bool { return len(srv.Requests()) > before })
	s.waitPrompt()
	if row := statusRow(s.visible()); !strings.Contains(row, "bravo work in the new session") {
		t.Fatalf("the status line does not show the new session's title: %q", row)
	}
	msgs := srv.LastRequest().Messages
	var roles []string
	for _, m := range msgs[1:] {
		roles = append(roles, string(m.Role))
	}
	if len(msgs) != 4 || msgs[1].Role != chat.RoleUser || !strings.HasPrefix(msgs[1].Content, "This session continues the work of another session") ||
		msgs[2].Role != chat.RoleAssistant || !strings.HasPrefix(msgs[3].Content, "bravo work in the new session") {
		t.Fatalf("after /handoff the request is %v, want summary, acknowledgement, message:\n%+v", roles, msgs[1:])
	}
}

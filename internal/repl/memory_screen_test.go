//go:build unix

package repl

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenMemoryReachesTheRunningSession (issue 36, item 4): a memory
// added with /memory add in a session under way says it reaches the
// model from the next message, and does, as a note after the
// conversation (the system prompt, which the server caches, stays as it
// was); a line typed with # is a memory too, for the project or the user
// as answered, and never goes to the model.
func TestScreenMemoryReachesTheRunningSession(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("hello")
	s.sendKeys("Enter")
	s.waitFor("You said: hello")
	s.waitPrompt()
	system := srv.Requests()[0].Messages[0].Content

	s.keys("/memory add ALPHA-MEMORY: use tabs")
	s.sendKeys("Enter")
	s.waitFor("The model follows this from your next message on, in this session too.")
	s.waitPrompt()
	asked := len(srv.Requests())
	s.keys("# BETA-MEMORY: answer tersely")
	s.sendKeys("Enter")
	s.waitFor("Remember this where?")
	s.keys("2")
	s.waitFor("Remembered (user): BETA-MEMORY: answer tersely")
	s.waitPrompt()
	if n := len(srv.Requests()); n != asked {
		t.Fatalf("the # line went to the model (%d requests, want %d)", n, asked)
	}

	s.keys("next")
	s.sendKeys("Enter")
	s.waitFor("You said: next")
	scr := s.waitPrompt()
	msgs := srv.LastRequest().Messages
	if msgs[0].Content != system {
		t.Errorf("the system prompt changed mid-session: the server's cache is lost")
	}
	var notes []string
	for _, m := range msgs[1:] {
		if m.Role == chat.RoleSystem {
			notes = append(notes, m.Content)
		}
	}
	note := strings.Join(notes, "\n")
	for _, want := range []string{"- [project, typed by the user] ALPHA-MEMORY: use tabs", "- [user, typed by the user] BETA-MEMORY: answer tersely"} {
		if !strings.Contains(note, want) {
			t.Errorf("the next request does not carry %q after the conversation:\n%s", want, note)
		}
	}
	if last := msgs[len(msgs)-1]; last.Role != chat.RoleSystem {
		t.Errorf("the memories' note is not after the conversation: %+v", last)
	}
	t.Logf("\n%s", scr)
}

//go:build unix

package repl

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// summarisingAgent answers a summary request (one without tools) with a
// summary and the rest as llmtest.Agent does.
func summarisingAgent() func(llmtest.Request) llmtest.Reply {
	agent := llmtest.Agent()
	return func(r llmtest.Request) llmtest.Reply {
		if llmtest.IsSummaryRequest(r) {
			return llmtest.Text("SUMMARY-OF-EARLIER-WORK: the user said four things.")
		}
		return agent(r)
	}
}

// requestWords is the user's words of each user message of a request (a
// reloaded context's re-orientation packet after them left out).
func requestWords(msgs []chat.Message) []string {
	var users []string
	for _, m := range msgs {
		if m.Role == chat.RoleUser {
			words, _, _ := strings.Cut(m.Content, "\n\nRe-orientation (read from")
			users = append(users, words)
		}
	}
	return users
}

// compactedSession runs four messages (alpha … delta) and /compact at
// 100×30.
func compactedSession(t *testing.T) (*tmuxScreen, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(summarisingAgent())
	s := startScreen(t, srv, 100, 30)
	for _, w := range []string{"alpha", "bravo", "charlie", "delta"} {
		s.waitPrompt()
		s.keys(w + " message with some words to summarise")
		s.sendKeys("Enter")
		s.waitFor("You said: " + w)
	}
	s.waitPrompt()
	s.keys("/compact")
	s.sendKeys("Enter")
	s.waitFor("Compacted")
	return s, srv
}

// TestScreenRewindPastACompactionPutsThePromptBack (issue 25 item 6):
// /rewind offers a message that a compaction replaced; choosing it brings
// back the context as it was just before that message (the messages
// before it, no summary), and the message is back in the entry, to edit
// and send.
func TestScreenRewindPastACompactionPutsThePromptBack(t *testing.T) {
	t.Parallel()
	s, srv := compactedSession(t)
	s.waitPrompt()
	s.keys("echo message after the compaction")
	s.sendKeys("Enter")
	s.waitFor("You said: echo")
	for _, w := range requestWords(srv.LastRequest().Messages) {
		if strings.HasPrefix(w, "bravo message") {
			t.Fatalf("the compaction kept bravo's message, so the test proves nothing")
		}
	}

	s.waitPrompt()
	s.keys("/rewind")
	s.sendKeys("Enter")
	s.waitFor("Rewind to just before which message?")
	s.keys("bravo") // the picker filters as one types
	s.sendKeys("Enter")
	s.waitFor("Rewind to before:")
	s.keys("y")
	s.waitFor("Rewound to before")
	scr := s.waitPrompt()
	rows := strings.Split(strings.TrimRight(s.visible(), "\n"), "\n")
	var entry string
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.HasPrefix(rows[i], promptMain) {
			entry = strings.TrimPrefix(rows[i], promptMain)
			break
		}
	}
	if !strings.HasPrefix(entry, "bravo message with some words to summarise") {
		t.Fatalf("the rewound message is not back in the entry (%q):\n%s", entry, scr)
	}
	s.sendKeys("C-u") // the entry is editable: cleared, then typed anew
	s.keys("bravo again, shorter")
	s.sendKeys("Enter")
	s.waitFor("You said: bravo again, shorter")
	want := "alpha message with some words to summarise | bravo again, shorter"
	if got := strings.Join(requestWords(srv.LastRequest().Messages), " | "); got != want {
		t.Fatalf("after the rewind past the compaction the request's user messages are %q, want %q", got, want)
	}

	// The rewind is in the file: a resume rebuilds the same context.
	s.waitPrompt()
	s = s.again(100, 30, "-c")
	s.waitPrompt()
	s.keys("after the resume")
	s.sendKeys("Enter")
	s.waitFor("You said: after the resume")
	want += " | after the resume"
	if got := strings.Join(requestWords(srv.LastRequest().Messages), " | "); got != want {
		t.Fatalf("after a resume the request's user messages are %q, want %q", got, want)
	}
}

//go:build unix

package repl

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenBareResumeOpensThePicker (issue 25 item 6): `clawdcode -r`
// without an id opens the /resume picker, and the session picked is the
// one the REPL goes on in, its last exchange shown.
func TestScreenBareResumeOpensThePicker(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("the first answer."), llmtest.Text("continued."))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("remember the walrus")
	s.sendKeys("Enter")
	s.waitFor("the first answer.")
	s.waitPrompt()

	r := s.again(100, 30, "-r")
	r.waitFor("Resume a session")
	r.waitFor("remember the walrus")
	r.sendKeys("Enter")
	r.waitPrompt()
	r.keys("and then?")
	r.sendKeys("Enter")
	r.waitFor("continued.")
	msgs := srv.LastRequest().Messages
	found := false
	for _, m := range msgs {
		found = found || strings.Contains(m.Content, "remember the walrus")
	}
	if !found {
		t.Fatalf("the picked session's context is not in the next request: %+v", msgs)
	}
}

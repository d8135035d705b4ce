//go:build unix

package repl

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenShowsTheTaskList (issue 21, item 3): a TodoWrite call runs
// without asking and its checklist is shown whole under the call, as it
// changes; /todos shows the list in force.
func TestScreenShowsTheTaskList(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("TodoWrite", `{"todos":[{"content":"step one","status":"in_progress"},{"content":"step two","status":"pending"},{"content":"step three","status":"pending"},{"content":"step four","status":"pending"},{"content":"step five","status":"pending"},{"content":"step six","status":"pending"}]}`)),
		llmtest.ToolCalls(llmtest.Call("TodoWrite", `{"todos":[{"content":"step one","status":"completed"},{"content":"step two","status":"in_progress"},{"content":"step three","status":"pending"},{"content":"step four","status":"pending"},{"content":"step five","status":"pending"},{"content":"step six","status":"pending"}]}`)),
		llmtest.Text("On it."),
	)
	s := startScreen(t, srv, 100, 40)
	s.waitPrompt()
	s.keys("plan the work")
	s.sendKeys("Enter")
	s.waitFor("On it.")
	scr := s.waitPrompt()
	for _, want := range []string{"0/6 done", "1/6 done", "[x] step one", "[~] step two", "[ ] step six"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the screen lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "ctrl+o to expand") {
		t.Errorf("the task list was cut short:\n%s", scr)
	}
	s.keys("/todos")
	s.sendKeys("Enter")
	s.waitFor("Tasks: 1/6 done")
	s.waitPrompt()
}

package repl

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/iostreams"
)

// A subagent's tool calls show under its Task call, one line each naming
// the subagent, even when two subagents report at once (-race).
func TestTurnOutputShowsSubagentCalls(t *testing.T) {
	t.Parallel()
	ios, _, _, errOut := iostreams.Test()
	o := newTurnOutput(ios, "/proj", nil, nil)
	o.ToolStart("call_1", "Task", json.RawMessage(`{"description":"find tests","prompt":"p"}`))
	var wg sync.WaitGroup
	for _, task := range []string{"[explore: find tests]", "[general: read docs]"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.TaskEvent("call_1", agent.TaskEvent{Kind: agent.TaskToolUse, Task: task, Name: "Grep", Input: json.RawMessage(`{"pattern":"func Test"}`)})
			o.TaskEvent("call_1", agent.TaskEvent{Kind: agent.TaskAssistant, Task: task, Text: "NOT SHOWN"})
		}()
	}
	wg.Wait()
	got := errOut.String()
	for _, want := range []string{"↳ [explore: find tests] Grep(func Test", "↳ [general: read docs] Grep(func Test"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "NOT SHOWN") {
		t.Errorf("a subagent's text reached the parent's output:\n%s", got)
	}
}

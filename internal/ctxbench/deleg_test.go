package ctxbench

import (
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestSubagentRequestsAreToldFromTheParents: a request is the subagent's
// when a user message holds the Task prompt — not the parent's, whose
// Task call carries the prompt only in its arguments — and a summary is
// the subagent's while it runs.
func TestSubagentRequestsAreToldFromTheParents(t *testing.T) {
	t.Parallel()
	prompt := "Exploration x-e00-0: read the files of module m0"
	tools := []chat.ToolDef{{Name: "Read"}}
	parent := llmtest.Request{Tools: tools, Messages: []chat.Message{
		{Role: "system", Content: "you are clawdcode"},
		{Role: "user", Content: "Task t-e00-0: find every limit module m0 sets"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{{Name: "Task", Arguments: `{"prompt":"` + prompt + `"}`}}},
	}}
	sub := llmtest.Request{Tools: tools, Messages: []chat.Message{
		{Role: "system", Content: "you are a subagent"},
		{Role: "user", Content: prompt},
	}}
	summary := llmtest.Request{Messages: []chat.Message{{Role: "user", Content: "summarise"}}}

	r := &runner{}
	if r.fromSubagent(sub) {
		t.Error("with no task delegating, a request was taken for a subagent's")
	}
	r.subPrompt = prompt
	if r.fromSubagent(parent) {
		t.Error("the parent's request (the prompt only in its Task call) was taken for the subagent's")
	}
	if !r.fromSubagent(sub) {
		t.Error("the subagent's request (its user message the Task prompt) was taken for the parent's")
	}
	if r.fromSubagent(summary) {
		t.Error("a summary with no subagent running was taken for a subagent's")
	}
	r.subActive = true
	if !r.fromSubagent(summary) {
		t.Error("a summary while the subagent runs was taken for the parent's")
	}
}

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// isSummaryRequest recognises the context manager's summarisation call
// (llmtest.IsSummaryRequest), which asks for a summary of the
// conversation: in its system prompt when asked apart, in its last
// message when asked at the end of the agent's own request.
func isSummaryRequest(r llmtest.Request) bool {
	if !llmtest.IsSummaryRequest(r) || len(r.Messages) == 0 || r.Messages[0].Role != chat.RoleSystem {
		return false
	}
	for _, m := range []chat.Message{r.Messages[0], r.Messages[len(r.Messages)-1]} {
		if s := strings.ToLower(m.Content); strings.Contains(s, "summary") || strings.Contains(s, "condense") {
			return true
		}
	}
	return false
}

// summaryText is what the scripted model answers a summarisation call.
const summaryText = "## User requests and instructions\nrun the numbered steps\n## Current work\nthe steps\n## Next step\nthe next step"

// stepPrompt is the user message of step i of a scripted run.
func stepPrompt(i int) string {
	return fmt.Sprintf("step %d: write, inspect and read back s%d.txt", i, i)
}

// stepContent is the file a step writes: big enough that a few steps fill
// a small context window.
func stepContent(i int) string {
	return strings.Repeat(fmt.Sprintf("line of step %d with some words to count\n", i), 12)
}

// threeRounds is a scripted model that answers a step prompt with three
// tool rounds (Write + Bash in parallel, then Bash, then Read) and then a
// text, deciding each round from the last tool calls in the request alone,
// so it works the same after a resume or a compaction. Any other user text
// gets "You said: …" and summarisation calls get summaryText.
func threeRounds(r llmtest.Request) llmtest.Reply {
	if isSummaryRequest(r) {
		return llmtest.Text(summaryText)
	}
	if len(r.Messages) == 0 {
		return llmtest.Text("OK")
	}
	last := r.Messages[len(r.Messages)-1]
	if last.Role == chat.RoleUser {
		var i int
		if _, err := fmt.Sscanf(last.Content, "step %d:", &i); err == nil {
			return llmtest.ToolCalls(
				call("Write", map[string]any{"file_path": fmt.Sprintf("s%d.txt", i), "content": stepContent(i)}),
				call("Bash", map[string]any{"command": fmt.Sprintf("echo step %d >> steps.log", i)}),
			)
		}
		first, _, _ := strings.Cut(last.Content, "\n")
		return llmtest.Text("You said: " + first)
	}
	if last.Role != chat.RoleTool {
		return llmtest.Text("OK")
	}
	var prev []chat.ToolCall
	for j := len(r.Messages) - 1; j >= 0; j-- {
		if m := r.Messages[j]; m.Role == chat.RoleAssistant && len(m.ToolCalls) > 0 {
			prev = m.ToolCalls
			break
		}
	}
	if len(prev) == 0 {
		return llmtest.Text("done")
	}
	var args map[string]any
	_ = json.Unmarshal([]byte(prev[0].Arguments), &args)
	file, _ := args["file_path"].(string)
	switch prev[0].Name {
	case "Write":
		return llmtest.ToolCalls(call("Bash", map[string]any{"command": "seq 1 30; wc -c " + file}))
	case "Bash":
		cmd, _ := args["command"].(string)
		if !strings.HasPrefix(cmd, "seq 1 30; wc -c ") {
			return llmtest.Text("done")
		}
		return llmtest.ToolCalls(call("Read", map[string]any{"file_path": strings.TrimPrefix(cmd, "seq 1 30; wc -c ")}))
	}
	return llmtest.Text(fmt.Sprintf("done with %s", prev[0].Name))
}

func call(name string, args map[string]any) llmtest.ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return llmtest.Call(name, string(b))
}

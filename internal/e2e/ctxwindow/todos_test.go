package ctxwindow

import (
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// hallucinatedSummary claims every task done and brings a finished one
// back, as a summariser that invents does.
const hallucinatedSummary = "## Pending tasks\nnone: every task is done. Also still to do: read the alpha notes.\n## Current work\nfinished"

// scripted answers the agent's requests with replies in order (then
// "ok"), and every summary request with summary.
func scripted(summary string, replies ...llmtest.Reply) func(llmtest.Request) llmtest.Reply {
	var mu sync.Mutex
	return func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return llmtest.Text(summary)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return llmtest.Text("ok")
		}
		next := replies[0]
		replies = replies[1:]
		return next
	}
}

func todoCall(items ...string) llmtest.ToolCall {
	var b strings.Builder
	b.WriteString(`{"todos":[`)
	for i := 0; i+1 < len(items); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"content":"` + items[i] + `","status":"` + items[i+1] + `"}`)
	}
	b.WriteString(`]}`)
	return llmtest.Call("TodoWrite", b.String())
}

// TestTodosSurviveAHallucinatingSummary (issue 21, item 3): the model's
// TodoWrite list runs without asking in -p, /todos shows it, and after a
// compaction whose summary claims everything done (and brings a finished
// item back) the request restates the list from the records: the finished
// item finished, with the refs of the calls made for it, the open ones
// open; /todos still shows the same list.
func TestTodosSurviveAHallucinatingSummary(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.writeFile("alpha.txt", "alpha notes\n")
	w.Server.SetResponder(scripted(hallucinatedSummary,
		llmtest.ToolCalls(todoCall("read the alpha notes", "in_progress", "fix the beta parser", "pending", "run the gamma tests", "pending")),
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"alpha.txt"}`)),
		llmtest.ToolCalls(todoCall("read the alpha notes", "completed", "fix the beta parser", "in_progress", "run the gamma tests", "pending")),
		llmtest.Text("read them; the parser is next"),
	))
	w.MustRun("-p", "work through the plan")
	want := []string{"Tasks: 1/3 done", "[x] read the alpha notes", "[~] fix the beta parser", "[ ] run the gamma tests"}
	todos := w.MustRun("-c", "-p", "/todos").Stdout
	for _, s := range want {
		if !strings.Contains(todos, s) {
			t.Errorf("/todos lacks %q:\n%s", s, todos)
		}
	}
	readRef := ""
	for _, r := range readRecords(t, w.onlySession()) {
		if r.Type == "tool_use" && r.Tool != nil && r.Tool.Name == "Read" {
			readRef = r.UUID
		}
	}
	// Enough turns after it for /compact to have something to drop.
	w.MustRun("-c", "-p", "note one thing")
	w.MustRun("-c", "-p", "/compact")
	w.MustRun("-c", "-p", "what is left?")
	reqs := agentRequests(w.Server)
	text := requestText(reqs[len(reqs)-1])
	for _, s := range []string{
		"[x] read the alpha notes (completed) — refs " + readRef,
		"[~] fix the beta parser (in_progress)",
		"[ ] run the gamma tests (pending)",
		"2 of 3 items open",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the request after compaction lacks %q:\n%s", s, text)
		}
	}
	if after := w.MustRun("-c", "-p", "/todos").Stdout; after != todos {
		t.Errorf("/todos after the compaction:\n%s\nbefore:\n%s", after, todos)
	}
}

// requestText is every message's content of r, one a line.
func requestText(r llmtest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

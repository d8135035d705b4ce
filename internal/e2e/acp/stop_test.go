package acp_test

import (
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// Each way a turn ends has its stop reason: the model's calls used up
// (--max-turns), a reply cut at its max tokens, one the server's filter
// stopped; and the TodoWrite list is the editor's plan.
func TestStopReasonsAndThePlan(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w, "--max-turns", "2")
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId

	todos := `{"todos":[{"content":"read the code","status":"completed"},{"content":"fix the bug","status":"in_progress"},{"content":"run the tests","status":"pending"}]}`
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.Call("TodoWrite", todos)), llmtest.ToolCalls(llmtest.Call("Glob", `{"pattern":"*"}`)))
	from := e.mark()
	if resp := e.prompt(sid, "work"); resp.StopReason != acpsdk.StopReasonMaxTurnRequests {
		t.Fatalf("a turn past --max-turns ended %q", resp.StopReason)
	}
	plan := e.waitFor(sid, from, "the plan", func(u acpsdk.SessionUpdate) bool { return u.Plan != nil })
	var entries []string
	for _, p := range plan.Plan.Entries {
		entries = append(entries, p.Content+":"+string(p.Status))
	}
	if strings.Join(entries, ",") != "read the code:completed,fix the bug:in_progress,run the tests:pending" {
		t.Fatalf("plan %q", entries)
	}
	kinds := map[string]acpsdk.ToolKind{}
	for _, u := range e.since(sid, from) {
		if u.ToolCall != nil {
			kinds[u.ToolCall.Title] = u.ToolCall.Kind
		}
	}
	if kinds["Update the plan"] != acpsdk.ToolKindThink || kinds["Glob *"] != acpsdk.ToolKindSearch {
		t.Fatalf("tool kinds %v", kinds)
	}

	w.Server.Enqueue(llmtest.Reply{Text: "a reply cut sho", FinishReason: "length"}, llmtest.Reply{Text: "I can't", FinishReason: "content_filter"})
	if resp := e.prompt(sid, "long"); resp.StopReason != acpsdk.StopReasonMaxTokens {
		t.Fatalf("a reply cut at its max tokens ended %q", resp.StopReason)
	}
	if resp := e.prompt(sid, "bad"); resp.StopReason != acpsdk.StopReasonRefusal {
		t.Fatalf("a filtered reply ended %q", resp.StopReason)
	}

	// The session is searchable as any other.
	found := w.MustRun("search", "long")
	if !strings.Contains(found.Stdout, string(sid)[:8]) {
		t.Fatalf("search does not find the ACP session %s:\n%s", sid, found.Stdout)
	}
}

// A session compacted before it is loaded replays the summary first: the
// conversation it stands for is in it, as the model has it.
func TestLoadReplaysTheSummaryAfterACompaction(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.Server.Enqueue(llmtest.Text("The deploy is on Friday, noted."))
	var first harness.ResultObject
	w.RunJSON(&first, "-p", "remember: the deploy is on Friday")
	w.Server.Enqueue(llmtest.Text("<summary>The user said the deploy is on Friday.</summary>"))
	w.MustRun("-c", "-p", "/compact")
	w.Server.Enqueue(llmtest.Text("Friday."))
	w.MustRun("-c", "-p", "when is the deploy?")

	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := acpsdk.SessionId(first.SessionID)
	if _, err := e.conn.LoadSession(e.ctx(), acpsdk.LoadSessionRequest{SessionId: sid, Cwd: w.Project, McpServers: []acpsdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v\n%s", err, e.stderr())
	}
	ups := e.since(sid, 0)
	var order []string
	for _, u := range ups {
		switch {
		case u.AgentMessageChunk != nil:
			order = append(order, "agent: "+u.AgentMessageChunk.Content.Text.Text)
		case u.UserMessageChunk != nil:
			order = append(order, "user: "+u.UserMessageChunk.Content.Text.Text)
		}
	}
	if len(order) < 3 || !strings.Contains(order[0], "Summary of the conversation") || !strings.Contains(order[0], "remember: the deploy is on Friday") ||
		order[len(order)-2] != "user: when is the deploy?" || order[len(order)-1] != "agent: Friday." {
		t.Fatalf("replayed %q", order)
	}
}

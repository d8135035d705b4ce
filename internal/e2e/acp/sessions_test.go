package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// session/load of a session made by -p replays it as updates: the user's
// message, the tool call with its result, the answer; then a prompt goes
// on in it with the whole history.
func TestLoadReplaysASessionMadeByPrint(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if err := os.WriteFile(filepath.Join(w.Project, "todo.txt"), []byte("buy milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_r1", Name: "Read", Arguments: `{"file_path":"todo.txt"}`}), llmtest.Text("You need to buy milk."))
	var res harness.ResultObject
	w.RunJSON(&res, "-p", "what is on my list?")
	if res.SessionID == "" || res.IsError {
		t.Fatalf("-p: %+v", res)
	}

	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := acpsdk.SessionId(res.SessionID)
	listed, err := e.conn.ListSessions(e.ctx(), acpsdk.ListSessionsRequest{Cwd: &w.Project})
	if err != nil || len(listed.Sessions) != 1 || listed.Sessions[0].SessionId != sid || listed.Sessions[0].Title == nil {
		t.Fatalf("session/list answered %+v, %v", listed, err)
	}
	from := e.mark()
	if _, err := e.conn.LoadSession(e.ctx(), acpsdk.LoadSessionRequest{SessionId: sid, Cwd: w.Project, McpServers: []acpsdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v\n%s", err, e.stderr())
	}
	var got []string
	for _, u := range e.since(sid, from) {
		switch {
		case u.UserMessageChunk != nil:
			got = append(got, "user: "+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			got = append(got, "agent: "+u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			got = append(got, "call: "+u.ToolCall.Title+" "+string(u.ToolCall.Kind))
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			text := ""
			if len(u.ToolCallUpdate.Content) > 0 && u.ToolCallUpdate.Content[0].Content != nil {
				text = u.ToolCallUpdate.Content[0].Content.Content.Text.Text
			}
			got = append(got, "result: "+string(*u.ToolCallUpdate.Status)+" "+strings.TrimSpace(text))
		}
	}
	want := []string{"user: what is on my list?", "call: Read todo.txt read", "result: completed 1\tbuy milk", "agent: You need to buy milk."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("replayed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	w.Server.Enqueue(llmtest.Text("and eggs"))
	e.prompt(sid, "anything else?")
	if msgs := w.Server.LastRequest().Messages; len(msgs) < 6 || msgs[1].Content != "what is on my list?" {
		t.Fatalf("the loaded session's history is not in the request: %+v", msgs)
	}
}

// A session started over ACP is an ordinary one: once the editor is gone,
// -c continues it.
func TestContinueASessionMadeOverACP(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId
	w.Server.Enqueue(llmtest.Text("noted: the code word is pelican"))
	e.prompt(sid, "remember the code word pelican")
	e.close()

	w.Server.Enqueue(llmtest.Text("it was pelican"))
	var res harness.ResultObject
	w.RunJSON(&res, "-c", "-p", "what was the code word?")
	if res.SessionID != string(sid) || res.Result != "it was pelican" {
		t.Fatalf("-c continued %q (want %s): %+v", res.SessionID, sid, res)
	}
	msgs := w.Server.LastRequest().Messages
	if len(msgs) < 4 || msgs[1].Content != "remember the code word pelican" || msgs[2].Content != "noted: the code word is pelican" {
		t.Fatalf("-c's request does not carry the ACP session's history: %+v", msgs)
	}
}

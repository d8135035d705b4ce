package acp_test

import (
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// session/cancel in the middle of a stream ends the turn as Esc does in
// the REPL: the prompt answers "cancelled", what streamed is kept in the
// session (the next request carries it, marked interrupted), and the next
// prompt works.
func TestCancelMidStreamThenPromptAgain(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId

	hold := make(chan struct{})
	defer close(hold)
	w.Server.Enqueue(llmtest.Reply{Text: "The first part streams, then the rest never comes.", PauseAfter: 4, Resume: hold})
	from := e.mark()
	type result struct {
		resp acpsdk.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := e.conn.Prompt(e.ctx(), acpsdk.PromptRequest{SessionId: sid, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("tell me")}})
		done <- result{resp, err}
	}()
	e.waitFor(sid, from, "a chunk of the answer", func(u acpsdk.SessionUpdate) bool { return u.AgentMessageChunk != nil })
	if err := e.conn.Cancel(e.ctx(), acpsdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.resp.StopReason != acpsdk.StopReasonCancelled {
		t.Fatalf("the cancelled prompt answered %+v, %v", r.resp, r.err)
	}
	partial, _ := agentText(e.since(sid, from))

	w.Server.Enqueue(llmtest.Text("second answer"))
	if resp := e.prompt(sid, "go on"); resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("the prompt after the cancel ended %q", resp.StopReason)
	}
	msgs := w.Server.LastRequest().Messages
	var kept bool
	for _, m := range msgs {
		kept = kept || (m.Role == "assistant" && strings.Contains(m.Content, strings.TrimSpace(partial)))
	}
	if !kept || msgs[len(msgs)-1].Content != "go on" {
		t.Fatalf("the request after the cancel does not carry the partial answer %q:\n%+v", partial, msgs)
	}
}

// A cancel while a command runs stops it; the call is answered (the model
// reads that it was interrupted) and shown failed, and the next prompt
// works. A cancel while the editor is asked ends the question too.
func TestCancelWhileAToolRunsOrAsks(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId

	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_sleep", Name: "Bash", Arguments: `{"command":"echo started; sleep 600"}`}))
	from := e.mark()
	done := make(chan acpsdk.PromptResponse, 1)
	go func() { done <- e.prompt(sid, "wait a long time") }()
	e.waitFor(sid, from, "the command running", func(u acpsdk.SessionUpdate) bool {
		return u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call_sleep" && len(u.ToolCallUpdate.Content) > 0
	})
	if err := e.conn.Cancel(e.ctx(), acpsdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if resp := <-done; resp.StopReason != acpsdk.StopReasonCancelled {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	failed := false
	for _, u := range e.since(sid, from) {
		up := u.ToolCallUpdate
		failed = failed || (up != nil && up.ToolCallId == "call_sleep" && up.Status != nil && *up.Status == acpsdk.ToolCallStatusFailed)
	}
	if !failed {
		t.Fatal("the interrupted call was not shown failed")
	}

	// Asked, and cancelled while asked: the editor answers "cancelled".
	e.answerWith(func(acpsdk.RequestPermissionRequest) string {
		_ = e.conn.Cancel(e.ctx(), acpsdk.CancelNotification{SessionId: sid})
		return ""
	})
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_w", Name: "Write", Arguments: `{"file_path":"x.txt","content":"x"}`}))
	if resp := e.prompt(sid, "write x"); resp.StopReason != acpsdk.StopReasonCancelled {
		t.Fatalf("a question cancelled ended the turn %q", resp.StopReason)
	}

	w.Server.Enqueue(llmtest.Text("back"))
	e.answerWith(func(acpsdk.RequestPermissionRequest) string { return "allow-once" })
	if resp := e.prompt(sid, "are you there?"); resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("the prompt after the cancels ended %q", resp.StopReason)
	}
	var answers []string
	for _, m := range w.Server.LastRequest().Messages {
		if m.Role == "tool" {
			answers = append(answers, m.ToolCallID+": "+m.Content)
		}
	}
	if len(answers) != 2 || !strings.Contains(answers[0], "call_sleep: ") || !strings.Contains(answers[0], "interrupted") || !strings.HasPrefix(answers[1], "call_w: ") {
		t.Fatalf("the calls were answered %q", answers)
	}
}

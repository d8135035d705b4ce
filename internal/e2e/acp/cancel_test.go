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

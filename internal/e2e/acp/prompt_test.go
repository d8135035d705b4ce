package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// An editor's first minutes: the handshake says what clawdcode can do, a
// session opens in the project with its modes and commands, and a prompt
// streams the answer in pieces (and the model's reasoning as thoughts)
// before its response says the turn ended; the turn's cost comes with
// it. The session is an ordinary one: `sessions list` shows it.
func TestPromptStreamsBeforeTheTurnEnds(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w)
	init := e.initialize(acpsdk.ClientCapabilities{})
	caps := init.AgentCapabilities
	if init.ProtocolVersion != 1 || !caps.LoadSession || !caps.PromptCapabilities.Image || !caps.PromptCapabilities.EmbeddedContext {
		t.Fatalf("initialize answered %+v", init)
	}
	sess := e.newSession()
	if sess.Modes == nil || sess.Modes.CurrentModeId != "default" || len(sess.Modes.AvailableModes) != 3 {
		t.Fatalf("modes %+v", sess.Modes)
	}
	names := map[string]bool{}
	for name := range e.commandsOffered(sess.SessionId) {
		names[name] = true
	}
	if !names["compact"] || !names["cost"] || names["exit"] || names["resume"] {
		t.Fatalf("commands offered: %v", names)
	}

	answer := "Hello from the scripted model, in several streamed pieces."
	w.Server.Enqueue(llmtest.Reply{Text: answer, Reasoning: "The user greets me; I greet back."})
	from := e.mark()
	resp := e.prompt(sess.SessionId, "hi there")
	if resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	ups := e.since(sess.SessionId, from)
	text, chunks := agentText(ups)
	if text != answer || chunks < 3 {
		t.Fatalf("streamed %q in %d chunks, want %q in several", text, chunks, answer)
	}
	var thought strings.Builder
	usage := false
	for _, u := range ups {
		if u.AgentThoughtChunk != nil {
			thought.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		}
		usage = usage || (u.UsageUpdate != nil && u.UsageUpdate.Size > 0 && u.UsageUpdate.Used > 0)
	}
	if thought.String() != "The user greets me; I greet back." || !usage {
		t.Fatalf("thought %q, usage update %v", thought.String(), usage)
	}
	meta, _ := json.Marshal(resp.Meta)
	if !strings.Contains(string(meta), `"inputTokens"`) || !strings.Contains(string(meta), `"costUsd"`) {
		t.Fatalf("the response's _meta does not carry the turn's cost: %s", meta)
	}

	list := w.MustRun("sessions", "list")
	if !strings.Contains(list.Stdout, string(sess.SessionId)[:8]) || !strings.Contains(list.Stdout, "hi there") {
		t.Fatalf("sessions list does not show the session %s:\n%s", sess.SessionId, list.Stdout)
	}
}

package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// replay sends the session's live context to the client as a prompt
// would have (session/load): the summary in force after a compaction
// first, as the agent's message, then each user message, each answer,
// each tool call with its result. What a compaction replaced is in the
// summary only, as it is for the model.
func (s *session) replay(ctx context.Context) error {
	live, err := s.eng.Sessions.Live(ctx)
	if err != nil {
		return internalError(fmt.Errorf("load session %s: %w", s.id, err))
	}
	if live == nil {
		return nil // a new session: nothing to replay
	}
	// The summary stands for what came before every record kept word for
	// word, though the file holds it after them: it is told first.
	if sum := live.Summary; sum != nil && sum.Message != nil {
		s.notify(acpsdk.UpdateAgentMessageText("_Summary of the conversation before it was compacted:_\n\n" + sum.Message.Content + "\n\n"))
	}
	calls := map[string]storage.ToolUse{}
	for _, lr := range live.Records {
		r := lr.Record
		switch {
		case r.Type == storage.TypeUser && r.IsCompactSummary:
			// Told first.
		case r.Type == storage.TypeUser && r.Message != nil:
			s.notify(acpsdk.UpdateUserMessageText(userText(r.Message)))
		case r.Type == storage.TypeAssistant && r.Message != nil && strings.TrimSpace(r.Message.Content) != "":
			s.notify(acpsdk.UpdateAgentMessageText(r.Message.Content))
		case r.Type == storage.TypeToolUse && r.Tool != nil:
			calls[r.Tool.ID] = *r.Tool
			s.replayCall(*r.Tool)
		case r.Type == storage.TypeToolResult && r.ToolResult != nil:
			s.replayResult(calls[r.ToolResult.ID], *r.ToolResult)
		}
	}
	return nil
}

// userText is a stored user message as the client shows it, its images
// named.
func userText(m *storage.Message) string {
	if len(m.Images) == 0 {
		return m.Content
	}
	return fmt.Sprintf("%s\n\n[%d image(s) attached]", m.Content, len(m.Images))
}

// replayCall shows a recorded call (its result follows).
func (s *session) replayCall(t storage.ToolUse) {
	s.notify(acpsdk.SessionUpdate{ToolCall: &acpsdk.SessionUpdateToolCall{
		ToolCallId: acpsdk.ToolCallId(t.ID), Title: toolTitle(t.Name, t.Input, s.cwd), Kind: toolKind(t.Name),
		Status: acpsdk.ToolCallStatusPending, Locations: toolLocations(t.Name, t.Input, s.cwd), RawInput: rawInput(t.Input),
	}})
}

// replayResult shows a recorded call's result; a TodoWrite's list is the
// plan again.
func (s *session) replayResult(t storage.ToolUse, r storage.ToolResult) {
	status := acpsdk.ToolCallStatusCompleted
	if r.Error != "" {
		status = acpsdk.ToolCallStatusFailed
	}
	res := tools.Result{Output: r.Output, Error: r.Error}
	s.notify(acpsdk.SessionUpdate{ToolCallUpdate: &acpsdk.SessionToolCallUpdate{
		ToolCallId: acpsdk.ToolCallId(r.ID), Status: &status, Content: resultContent(res),
	}})
	if t.Name == tools.NameTodoWrite && r.Error == "" {
		s.sendPlan(json.RawMessage(t.Input), nil)
	}
}

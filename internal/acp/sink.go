package acp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/chat"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// outputEvery is how often a running command's output is sent again: it
// streams as the command writes, without an update per write.
const outputEvery = 200 * time.Millisecond

// turnSink sends a turn's events to the client as session updates: text
// and reasoning as chunks, tool calls as they are announced, run and
// answered, the task list as the plan.
type turnSink struct {
	s   *session
	ctx context.Context
	// tasks are the subagents' activity, by Task call (TaskEvent comes
	// from their goroutines).
	mu    sync.Mutex
	tasks map[string]*strings.Builder
}

var _ agent.Sink = (*turnSink)(nil)

func newTurnSink(ctx context.Context, s *session) *turnSink {
	return &turnSink{s: s, ctx: ctx, tasks: map[string]*strings.Builder{}}
}

func (t *turnSink) Text(delta string) {
	t.s.notify(acpsdk.UpdateAgentMessageText(delta))
}

func (t *turnSink) Thinking(delta string) {
	t.s.notify(acpsdk.UpdateAgentThoughtText(delta))
}

func (t *turnSink) ToolStart(id, name string, input json.RawMessage) {
	t.s.startCall(t.ctx, id, name, input)
}

func (t *turnSink) ToolEnd(id, name string, res tools.Result) {
	t.s.endCall(t.ctx, id, name, nil, res)
}

func (t *turnSink) ToolRefused(id, name string, input json.RawMessage, res tools.Result) {
	t.s.endCall(t.ctx, id, name, input, res)
}

// Notice says what the engine did on its own (a compaction, a retry, an
// attached image) in the agent's message, set apart, as the REPL says it
// between the answer's lines; a retry's wait is a passing thought.
func (t *turnSink) Notice(n contextmgr.Notice) {
	if n.Kind == contextmgr.NoticeRetry {
		t.s.notify(acpsdk.UpdateAgentThoughtText("clawdcode: " + n.Text + "\n"))
		return
	}
	t.s.notify(acpsdk.UpdateAgentMessageText("\n\n_clawdcode: " + strings.TrimSpace(n.Text) + "_\n\n"))
}

// TaskEvent shows a subagent's steps in its Task call's content.
func (t *turnSink) TaskEvent(taskID string, ev agent.TaskEvent) {
	var line string
	switch ev.Kind {
	case agent.TaskToolUse:
		line = "→ " + toolTitle(ev.Name, ev.Input, t.s.cwd)
	case agent.TaskToolResult:
		if ev.Result.Error != "" {
			line = "  ✗ " + firstLine(ev.Result.Error)
		}
	case agent.TaskAssistant:
		line = firstLine(ev.Text)
	case agent.TaskNotice:
		line = "clawdcode: " + ev.Text
	case agent.TaskDone:
		line = "(" + ev.Outcome + ")"
	}
	if strings.TrimSpace(line) == "" {
		return
	}
	t.mu.Lock()
	log := t.tasks[taskID]
	if log == nil {
		log = &strings.Builder{}
		t.tasks[taskID] = log
	}
	log.WriteString(line + "\n")
	text := clipText(log.String())
	t.mu.Unlock()
	t.s.notify(acpsdk.SessionUpdate{ToolCallUpdate: &acpsdk.SessionToolCallUpdate{ToolCallId: acpsdk.ToolCallId(taskID),
		Content: []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(text))}}})
}

// firstLine is s's first non-empty line, cut.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return l
		}
	}
	return ""
}

// announce shows a call to the client (tool_call) with status, once, and
// returns its view; a call shown already keeps its view.
func (s *session) announce(ctx context.Context, id, name string, input json.RawMessage, status acpsdk.ToolCallStatus) (*callView, bool) {
	s.mu.Lock()
	if v, ok := s.calls[id]; ok {
		s.mu.Unlock()
		return v, false
	}
	v := &callView{id: id, name: name, kind: toolKind(name), title: toolTitle(name, input, s.cwd), input: input, status: status}
	s.calls[id] = v
	s.mu.Unlock()
	s.notify(acpsdk.SessionUpdate{ToolCall: &acpsdk.SessionUpdateToolCall{
		ToolCallId: acpsdk.ToolCallId(id), Title: v.title, Kind: v.kind, Status: status,
		Locations: toolLocations(name, input, s.cwd), Content: s.diffContent(ctx, name, input),
		RawInput: rawInput(input),
	}})
	return v, true
}

// rawInput is a call's input as the client's raw view shows it.
func rawInput(input json.RawMessage) any {
	if !json.Valid(input) {
		return string(input)
	}
	return input
}

// startCall is a call about to run: announced now, or (asked about
// already) moved to in_progress.
func (s *session) startCall(ctx context.Context, id, name string, input json.RawMessage) {
	if _, fresh := s.announce(ctx, id, name, input, acpsdk.ToolCallStatusInProgress); fresh {
		return
	}
	status := acpsdk.ToolCallStatusInProgress
	s.setStatus(id, status)
	s.notify(acpsdk.SessionUpdate{ToolCallUpdate: &acpsdk.SessionToolCallUpdate{ToolCallId: acpsdk.ToolCallId(id), Status: &status}})
}

// endCall is a call answered: completed or failed, with its result
// (input is set for a call refused before it ran, which may not have
// been announced yet).
func (s *session) endCall(ctx context.Context, id, name string, input json.RawMessage, res tools.Result) {
	if input != nil {
		s.announce(ctx, id, name, input, acpsdk.ToolCallStatusPending)
	}
	status := acpsdk.ToolCallStatusCompleted
	if res.Error != "" {
		status = acpsdk.ToolCallStatusFailed
	}
	v := s.setStatus(id, status)
	up := &acpsdk.SessionToolCallUpdate{ToolCallId: acpsdk.ToolCallId(id), Status: &status}
	switch {
	case v != nil && v.terminal != "":
		// The terminal shows the output; a failure adds its reason.
		up.Content = []acpsdk.ToolCallContent{acpsdk.ToolTerminalRef(v.terminal)}
		if res.Error != "" {
			up.Content = append(up.Content, acpsdk.ToolContent(acpsdk.TextBlock(res.Error)))
		}
	case v != nil && v.kind == acpsdk.ToolKindEdit && res.Error == "":
		// The diff announced stays; the result only says it was made.
	default:
		up.Content = resultContent(res)
	}
	up.RawOutput = map[string]string{"output": clipText(res.Output), "error": res.Error}
	s.notify(acpsdk.SessionUpdate{ToolCallUpdate: up})
	if name == tools.NameTodoWrite && res.Error == "" {
		s.sendPlan(input, v)
	}
}

// setStatus records a call's status and returns its view (nil when the
// call was never shown).
func (s *session) setStatus(id string, status acpsdk.ToolCallStatus) *callView {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.calls[id]
	if v != nil {
		v.status = status
	}
	return v
}

// sendPlan sends the task list a TodoWrite call set as the session's plan.
func (s *session) sendPlan(input json.RawMessage, v *callView) {
	if input == nil && v != nil {
		input = v.input
	}
	var in struct {
		Todos []chat.Todo `json:"todos"`
	}
	if json.Unmarshal(input, &in) != nil {
		return
	}
	entries := make([]acpsdk.PlanEntry, 0, len(in.Todos))
	for _, t := range in.Todos {
		status := acpsdk.PlanEntryStatusPending
		switch t.Status {
		case chat.TodoInProgress:
			status = acpsdk.PlanEntryStatusInProgress
		case chat.TodoCompleted:
			status = acpsdk.PlanEntryStatusCompleted
		}
		entries = append(entries, acpsdk.PlanEntry{Content: t.Content, Priority: acpsdk.PlanEntryPriorityMedium, Status: status})
	}
	s.notify(acpsdk.UpdatePlan(entries...))
}

// watchOutput streams a local command's output into its call's content
// as it comes (tools.Env.WatchOutput): at most every outputEvery, the
// last maxShownBytes; the call's end sends all that is kept.
func (s *session) watchOutput(ctx context.Context, chunk []byte) {
	id := tools.CallID(ctx)
	s.mu.Lock()
	v := s.calls[id]
	if v == nil {
		s.mu.Unlock()
		return
	}
	v.output.Write(chunk)
	if v.output.Len() > 2*maxShownBytes {
		kept := clipText(v.output.String())
		v.output.Reset()
		v.output.WriteString(kept)
	}
	text := v.output.String()
	due := time.Since(v.sent) >= outputEvery
	if due {
		v.sent = time.Now()
	}
	s.mu.Unlock()
	if due {
		s.notify(acpsdk.SessionUpdate{ToolCallUpdate: &acpsdk.SessionToolCallUpdate{ToolCallId: acpsdk.ToolCallId(id),
			Content: []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(clipText(text)))}}})
	}
}

// attachTerminal shows the client's terminal a call runs in, in the
// call's content.
func (s *session) attachTerminal(callID, terminalID string) {
	s.mu.Lock()
	v := s.calls[callID]
	if v != nil {
		v.terminal = terminalID
	}
	s.mu.Unlock()
	if v == nil {
		return
	}
	s.notify(acpsdk.SessionUpdate{ToolCallUpdate: &acpsdk.SessionToolCallUpdate{ToolCallId: acpsdk.ToolCallId(callID),
		Content: []acpsdk.ToolCallContent{acpsdk.ToolTerminalRef(terminalID)}}})
}

package agent

import (
	"context"
	"encoding/json"
	"strings"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// TaskEvent is one thing a subagent did, in the terms of Sink: its start,
// its text (one event per model message), a tool call starting or ending,
// a notice, its end.
type TaskEvent struct {
	Kind string // "start", "assistant", "tool_use", "tool_result", "notice", "done"
	// Task is the subagent's label, "[type: description]".
	Task   string
	ID     string // the tool call's id (tool_use, tool_result)
	Name   string // the tool's name (tool_use, tool_result)
	Input  json.RawMessage
	Result tools.Result
	Text   string // assistant text, or the notice's
	Notice contextmgr.NoticeKind
	// Outcome is how the subagent ended (done): TaskOK, TaskFailed or
	// TaskCancelled; Usage is what its model calls spent.
	Outcome string
	Usage   storage.Usage
}

// The kinds of TaskEvent.
const (
	TaskAssistant  = "assistant"
	TaskToolUse    = "tool_use"
	TaskToolResult = "tool_result"
	TaskNotice     = "notice"
	TaskStart      = "start"
	TaskDone       = "done"
)

// The outcomes of a TaskDone event.
const (
	TaskOK        = "ok"
	TaskFailed    = "failed"
	TaskCancelled = "cancelled"
)

// taskSink is a subagent's Sink: it hands the events to the parent's
// Sink (TaskEvent) tagged with the Task call's id. One subagent's loop
// calls it from one goroutine.
type taskSink struct {
	to          Sink
	task, label string
	text        strings.Builder
}

// newTaskSink is the sink for the subagent of call id (nil without one:
// the events then go nowhere).
func newTaskSink(parent Sink, id, label string) *taskSink {
	if id == "" {
		return nil
	}
	return &taskSink{to: parent, task: id, label: label}
}

func (s *taskSink) send(ev TaskEvent) {
	ev.Task = s.label
	s.to.TaskEvent(s.task, ev)
}

func (s *taskSink) flush() {
	if s.text.Len() > 0 {
		s.send(TaskEvent{Kind: TaskAssistant, Text: s.text.String()})
		s.text.Reset()
	}
}

// taskStarted tells s's parent that its subagent started.
func taskStarted(s *taskSink) {
	if s != nil {
		s.send(TaskEvent{Kind: TaskStart})
	}
}

// taskEnded tells sink's parent how its subagent ended: its last text,
// then the outcome (as taskResult judges it) and what it spent.
func taskEnded(ctx context.Context, s *taskSink, res *TurnResult, err error) {
	if s == nil {
		return
	}
	s.flush()
	ev := TaskEvent{Kind: TaskDone, Outcome: TaskOK}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		ev.Outcome = TaskCancelled
	default:
		ev.Outcome = TaskFailed
	}
	if res != nil {
		ev.Usage = res.Usage
	}
	s.send(ev)
}

func (s *taskSink) Text(delta string) { s.text.WriteString(delta) }

// Thinking is not passed on: a subagent's reasoning is its own.
func (s *taskSink) Thinking(string) {}

func (s *taskSink) ToolStart(id, name string, input json.RawMessage) {
	s.flush()
	s.send(TaskEvent{Kind: TaskToolUse, ID: id, Name: name, Input: input})
}

func (s *taskSink) ToolEnd(id, name string, res tools.Result) {
	s.send(TaskEvent{Kind: TaskToolResult, ID: id, Name: name, Result: res})
}

func (s *taskSink) Notice(n contextmgr.Notice) {
	s.flush()
	s.send(TaskEvent{Kind: TaskNotice, Text: n.Text, Notice: n.Kind})
}

// TaskEvent is never called: a subagent starts no subagent (it has no
// Task tool).
func (s *taskSink) TaskEvent(string, TaskEvent) {}

// ToolRefused shows a subagent's refused call as a call and its result.
func (s *taskSink) ToolRefused(id, name string, input json.RawMessage, res tools.Result) {
	s.ToolStart(id, name, input)
	s.ToolEnd(id, name, res)
}

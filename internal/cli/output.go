package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/clawdcode/clawdcode/internal/agent"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Result is the result object of CONTRACT.md section 5, printed by
// --output-format json (alone) and stream-json (last line).
type Result struct {
	Type        string        `json:"type"`    // always "result"
	Subtype     string        `json:"subtype"` // "success" or "error"
	IsError     bool          `json:"is_error"`
	Result      string        `json:"result"` // the final answer, or the error message
	SessionID   string        `json:"session_id"`
	NumTurns    int           `json:"num_turns"`
	DurationMS  int64         `json:"duration_ms"`
	Usage       ResultUsage   `json:"usage"`
	Context     ResultContext `json:"context"`
	Compactions int           `json:"compactions"`
}

// ResultUsage is the model usage of the run.
type ResultUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// ResultContext is the session's context size when the run ended.
type ResultContext struct {
	Tokens int `json:"tokens"`
	Window int `json:"window"`
}

// newResult builds the result object of a run that ended with err (nil =
// success) after answer; cause is the run context's cancellation cause.
func newResult(answer string, err, cause error) Result {
	r := Result{Type: "result", Subtype: "success", Result: answer}
	if err != nil {
		r.Subtype, r.IsError = "error", true
		r.Result = Describe(err, cause).Message
	}
	return r
}

// Events of --output-format stream-json, one JSON object a line; "type"
// comes first so a reader can dispatch on it.
type (
	initEvent struct {
		Type      string   `json:"type"`    // "system"
		Subtype   string   `json:"subtype"` // "init"
		SessionID string   `json:"session_id"`
		Model     string   `json:"model"`
		CWD       string   `json:"cwd"`
		Tools     []string `json:"tools"`
	}
	// A subagent's events carry task_id: the id of the Task call (the
	// parent's tool_use event) it runs for.
	assistantEvent struct {
		Type   string `json:"type"` // "assistant"
		TaskID string `json:"task_id,omitempty"`
		Text   string `json:"text"`
	}
	toolUseEvent struct {
		Type   string          `json:"type"` // "tool_use"
		TaskID string          `json:"task_id,omitempty"`
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Input  json.RawMessage `json:"input"`
	}
	toolResultEvent struct {
		Type    string `json:"type"` // "tool_result"
		TaskID  string `json:"task_id,omitempty"`
		ID      string `json:"id"`
		Name    string `json:"name"`
		Output  string `json:"output"`
		Error   string `json:"error,omitempty"`
		IsError bool   `json:"is_error"`
	}
	noticeEvent struct {
		Type   string `json:"type"` // "compact" or "notice"
		TaskID string `json:"task_id,omitempty"`
		Kind   string `json:"kind"`
		Text   string `json:"text"`
	}
)

// printSink receives a -p run's events (agent.Sink) and writes them in the
// chosen output format. Only stream-json writes while the run goes; text
// and json write once, at the end (finish).
type printSink struct {
	format string
	io     *iostreams.IOStreams
	enc    *json.Encoder // stream-json lines on io.Out

	// init returns the stream-json init event; it is written before the
	// first other event, when the session id is known.
	init     func() initEvent
	initDone bool
	text     strings.Builder // assistant text not yet written as an event
	// planned is set when the turn ended at a plan no one could approve
	// (ExitPlanMode in plan mode): the answer is the plan.
	planned bool
	// mu keeps lines whole: subagents' events come from their goroutines.
	mu sync.Mutex
}

var _ agent.Sink = (*printSink)(nil)

func newPrintSink(ios *iostreams.IOStreams, format string, init func() initEvent) *printSink {
	s := &printSink{format: format, io: ios, init: init}
	if format == FormatStreamJSON {
		s.enc = json.NewEncoder(ios.Out)
		s.enc.SetEscapeHTML(false)
	}
	return s
}

func (s *printSink) emit(e any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.initDone {
		s.initDone = true
		if s.init != nil {
			_ = s.enc.Encode(s.init())
		}
	}
	_ = s.enc.Encode(e)
}

// flushText writes the assistant text gathered so far as one event: one
// per model message, cut where a tool call or a notice comes between.
func (s *printSink) flushText() {
	if s.text.Len() == 0 {
		return
	}
	s.emit(assistantEvent{Type: "assistant", Text: s.text.String()})
	s.text.Reset()
}

// Thinking is left out of -p's output, whose formats have no place for it.
func (s *printSink) Thinking(string) {}

func (s *printSink) Text(delta string) {
	if s.format == FormatStreamJSON {
		s.text.WriteString(delta)
	}
}

func (s *printSink) ToolStart(id, name string, input json.RawMessage) {
	switch s.format {
	case FormatStreamJSON:
		s.flushText()
		if len(input) == 0 || !json.Valid(input) {
			input = json.RawMessage(`{}`)
		}
		s.emit(toolUseEvent{Type: "tool_use", ID: id, Name: name, Input: input})
	case FormatText:
		if s.io.IsStderrTTY() {
			fmt.Fprintf(s.io.ErrOut, "→ %s\n", termtext.Safe(describeCall(name, input)))
		}
	}
}

// ToolRefused reports a call that did not run as the result it got: -p
// has shown no start for it and shows none.
func (s *printSink) ToolRefused(id, name string, _ json.RawMessage, res tools.Result) {
	s.ToolEnd(id, name, res)
}

func (s *printSink) ToolEnd(id, name string, res tools.Result) {
	if name == tools.NameExitPlanMode && res.Final != "" {
		s.planned = true
	}
	switch s.format {
	case FormatStreamJSON:
		s.emit(toolResultEvent{Type: "tool_result", ID: id, Name: name, Output: res.Output, Error: res.Error, IsError: res.Error != ""})
	case FormatText:
		if s.io.IsStderrTTY() && res.Error != "" {
			fmt.Fprintf(s.io.ErrOut, "  ⎿ error: %s\n", termtext.Safe(termtext.Flatten(res.Error, toolResultPreview)))
		}
	}
}

// TaskEvent writes a subagent's event, tagged with its task id, in
// stream-json; the other formats show only the Task call itself.
func (s *printSink) TaskEvent(task string, ev agent.TaskEvent) {
	if s.format != FormatStreamJSON {
		return
	}
	switch ev.Kind {
	case agent.TaskAssistant:
		s.emit(assistantEvent{Type: "assistant", TaskID: task, Text: ev.Text})
	case agent.TaskToolUse:
		input := ev.Input
		if len(input) == 0 || !json.Valid(input) {
			input = json.RawMessage(`{}`)
		}
		s.emit(toolUseEvent{Type: "tool_use", TaskID: task, ID: ev.ID, Name: ev.Name, Input: input})
	case agent.TaskToolResult:
		s.emit(toolResultEvent{Type: "tool_result", TaskID: task, ID: ev.ID, Name: ev.Name,
			Output: ev.Result.Output, Error: ev.Result.Error, IsError: ev.Result.Error != ""})
	case agent.TaskNotice:
		typ := "notice"
		if ev.Notice.IsCompaction() {
			typ = "compact"
		}
		s.emit(noticeEvent{Type: typ, TaskID: task, Kind: string(ev.Notice), Text: ev.Text})
	}
}

// Notice tells the user what the context manager did. What changes the
// run's outcome — a warning, a summary that failed (fallback), texts cut
// down to fit (truncated) — reaches stderr as one "clawdcode: warning:"
// line in every format, terminal or not: a script's log is where a user of
// -p finds it. Progress (compacting, compacted) is shown only when a
// person watches stderr. stdout keeps the answer (or the one JSON object);
// stream-json also carries every notice as an event.
func (s *printSink) Notice(n contextmgr.Notice) {
	if s.format == FormatStreamJSON {
		s.flushText()
		typ := "notice"
		if n.Kind.IsCompaction() {
			typ = "compact"
		}
		s.emit(noticeEvent{Type: typ, Kind: string(n.Kind), Text: n.Text})
	}
	switch {
	case n.Kind.IsWarning():
		fmt.Fprintf(s.io.ErrOut, "clawdcode: warning: %s\n", termtext.Safe(strings.Join(strings.Fields(n.Text), " ")))
	default:
		if s.format != FormatStreamJSON && s.io.IsStderrTTY() {
			fmt.Fprintf(s.io.ErrOut, "%s\n", termtext.Safe(n.Text))
		}
	}
}

// finish writes the end of the run: the answer (text), or the result object
// (json, and stream-json as its last line).
func (s *printSink) finish(res Result, started time.Time) {
	res.DurationMS = time.Since(started).Milliseconds()
	switch s.format {
	case FormatText:
		if !res.IsError && res.Result != "" {
			// On a terminal the answer is read, so it is shown and not
			// obeyed. Redirected, it is data (`-p … > main.go`) and keeps
			// its exact bytes; the json formats escape them.
			out := s.io.TermOut()
			writeAnswer(out, res.Result)
			_ = out.Flush()
		}
	case FormatJSON:
		enc := json.NewEncoder(s.io.Out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(res)
	case FormatStreamJSON:
		s.flushText()
		s.emit(res)
	}
}

// writeAnswer prints the final answer with exactly one trailing newline.
func writeAnswer(w io.Writer, text string) {
	fmt.Fprintf(w, "%s\n", strings.TrimRight(text, "\n"))
}

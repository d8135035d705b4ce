package repl

import (
	"encoding/json"
	"fmt"
	"github.com/clawdcode/clawdcode/internal/chat"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/clawdcode/clawdcode/internal/agent"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// colorScheme styles status text; off, every method returns its input.
type colorScheme struct{ on bool }

func (c colorScheme) wrap(style, reset, s string) string {
	if !c.on {
		return s
	}
	return style + s + reset
}

func (c colorScheme) dim(s string) string  { return c.wrap(styleDim, styleNormal, s) }
func (c colorScheme) bold(s string) string { return c.wrap(styleBold, styleNormal, s) }
func (c colorScheme) err(s string) string  { return c.wrap(styleRed, styleFgReset, s) }
func (c colorScheme) warn(s string) string { return c.wrap(styleYellow, styleFgReset, s) }

// turnOutput is the agent.Sink of one REPL turn. Assistant text goes to
// IO.Out — rendered Markdown on a terminal, untouched otherwise; tool
// activity, notices and the spinner go to IO.ErrOut. Its methods are called
// from the goroutine running Submit (and the asker, on the same goroutine)
// and, for Ctrl-O, from the keyboard's; mu orders them. The spinner is the
// only other writer and Stop waits for it.
type turnOutput struct {
	out, errOut io.Writer
	md          *markdownWriter // nil: write text untouched
	spin        *spinner        // nil: not a terminal
	cs          colorScheme
	root        string
	done        <-chan struct{} // the turn's ctx.Done(), ends the spinner
	width       func() int
	con         *console // where the last tool output is kept

	mu        sync.Mutex
	midLine   bool            // untouched text ended without a newline
	label     string          // what the spinner says while waiting
	safe      termtext.Stream // the assistant's text, shown and not obeyed
	snapshots map[string]fileSnapshot
	// held: a dialog is on screen (pause until resume); the subagents'
	// result lines wait in heldLines, and nothing restarts the spinner.
	held      bool
	heldLines []string

	tasks *taskBoard // the running subagents, drawn under the spinner
}

var _ agent.Sink = (*turnOutput)(nil)

func newTurnOutput(ios *iostreams.IOStreams, root string, done <-chan struct{}, con *console) *turnOutput {
	t := &turnOutput{out: ios.Out, errOut: ios.ErrOut, root: root, done: done, con: con,
		cs: colorScheme{on: ios.IsStderrTTY()}, snapshots: map[string]fileSnapshot{}, tasks: newTaskBoard()}
	t.width = func() int { return 100 }
	if con != nil && con.width != nil {
		t.width = con.width
	}
	if ios.IsStderrTTY() {
		t.spin = newSpinner(ios.ErrOut, t.width)
		t.spin.SetRows(t.tasks.lines)
	}
	if ios.IsStdoutTTY() {
		t.md = newMarkdownWriter(stopSpinnerWriter{spin: t.spin, w: ios.Out}, t.width)
	}
	return t
}

// stopSpinnerWriter stops the spinner before every write it passes on.
type stopSpinnerWriter struct {
	spin *spinner
	w    io.Writer
}

func (s stopSpinnerWriter) Write(p []byte) (int, error) {
	s.spin.Stop()
	return s.w.Write(p)
}

// waiting shows the spinner with label until the next event.
func (t *turnOutput) waiting(label string) {
	t.label = label
	t.spin.Start(t.done, label)
}

// pause stops the spinner so someone else (the permission prompt) can
// write, until resume; the subagents running meanwhile leave the screen
// to it.
func (t *turnOutput) pause() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spin.Stop()
	t.endText()
	t.held = true
}

// resume ends a pause: the lines held back are shown and the spinner
// (with the board of running subagents) is back.
func (t *turnOutput) resume() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.held = false
	for _, l := range t.heldLines {
		fmt.Fprintln(t.errOut, l)
	}
	t.heldLines = nil
	t.spin.Start(t.done, t.label)
}

// Thinking is not shown: the terminal shows the answer, and a model's
// reasoning is not kept in the session either.
func (t *turnOutput) Thinking(string) {}

func (t *turnOutput) Text(delta string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Model text is made safe before rendering adds clawdcode's own
	// styling: only that styling reaches the terminal. Sanitised either
	// way: the REPL's output is read by a person even when piped to a pager.
	t.writeText(t.safe.Next(delta))
}

// writeText writes assistant text already made safe.
func (t *turnOutput) writeText(delta string) {
	if t.md != nil {
		_ = t.md.WriteString(delta) // a terminal write error has no one to go to
		return
	}
	t.spin.Stop()
	if delta != "" {
		io.WriteString(t.out, delta)
		t.midLine = !strings.HasSuffix(delta, "\n")
	}
}

// endText finishes the assistant's text so status lines start on a line of their own.
func (t *turnOutput) endText() {
	if held := t.safe.Flush(); held != "" {
		t.writeText(held)
	}
	if t.md != nil {
		_ = t.md.Flush()
		return
	}
	if t.midLine {
		io.WriteString(t.out, "\n")
		t.midLine = false
	}
}

func (t *turnOutput) ToolStart(id, name string, input json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spin.Stop()
	t.endText()
	if name == tools.NameWrite || name == tools.NameEdit {
		if p := filePath(input, t.root); p != "" {
			snap := snapshot(p)
			snap.path = p
			t.snapshots[id] = snap
		}
	}
	t.writeCall(name, input)
	t.waiting("running " + name)
}

// writeCall is the header line that names a call.
func (t *turnOutput) writeCall(name string, input json.RawMessage) {
	call := t.cs.bold(safe(name)) + "(" + safe(toolArgument(name, input, t.root)) + ")"
	fmt.Fprintf(t.errOut, "%s %s\n", t.cs.wrap(styleCode, styleFgReset, "⏺"), clipStyled(call, t.width()-3))
}

// ToolRefused shows a call that did not run (denied, a failed precheck)
// as one that did: its header naming it, then why, so a refusal is never
// a result without its call.
func (t *turnOutput) ToolRefused(id, name string, input json.RawMessage, res tools.Result) {
	t.mu.Lock()
	t.spin.Stop()
	t.endText()
	t.writeCall(name, input)
	t.mu.Unlock()
	t.ToolEnd(id, name, res)
}

func (t *turnOutput) ToolEnd(id, name string, res tools.Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spin.Stop()
	t.endText()
	var before *fileSnapshot
	after := ""
	if snap, ok := t.snapshots[id]; ok {
		delete(t.snapshots, id)
		before = &snap
		if res.Error == "" && snap.ok {
			now := snapshot(snap.path)
			after = now.content
			if !now.ok {
				before = nil
			}
		}
	}
	head, body := resultLines(name, res, t.cs, before, after, t.width())
	limit := toolPreviewLines - 1 // the head is the first line
	switch {
	case before != nil:
		limit = diffPreviewLines
	case name == tools.NameTodoWrite:
		limit = todoPreviewLines // the checklist, whole
	}
	writeToolResult(t.errOut, t.cs, head, body, limit, t.width())
	if t.con != nil {
		t.con.setLast(&toolShown{call: name, lines: append([]string{head}, body...)})
	}
	t.waiting("thinking")
}

// showQueued shows, under the spinner, what the user typed ahead: it
// becomes the entry at the next prompt, where it can still be edited.
func (t *turnOutput) showQueued(preview string) {
	note := ""
	if preview != "" {
		// The end is what is being typed: a long entry loses its start.
		const label = "queued: "
		text, room := []rune(safe(preview)), t.width()-1-len(label)
		for len(text) > 1 && visibleWidth(string(text)) > room {
			text = append([]rune("…"), text[2:]...)
		}
		note = label + string(text)
	}
	t.spin.SetNote(note)
}

// TaskEvent shows what the subagents do. On a terminal each running task
// is a live line under the spinner (taskBoard), which becomes a one-line
// result when the task ends; elsewhere each tool call is a line of its
// own, then the result line. Their text and results stay in their own
// sessions. Called from the subagents' goroutines: the board and mu order
// them with the rest.
func (t *turnOutput) TaskEvent(id string, ev agent.TaskEvent) {
	switch ev.Kind {
	case agent.TaskStart, agent.TaskToolUse, agent.TaskToolResult:
		call := ""
		if ev.Kind == agent.TaskToolUse {
			call = safe(ev.Name) + "(" + safe(toolArgument(ev.Name, ev.Input, t.root)) + ")"
		}
		t.tasks.update(id, ev, call)
		if t.spin == nil && call != "" {
			t.taskLine(t.cs.dim(clipStyled("  ↳ "+safe(ev.Task)+" "+call, t.width()-1)))
		}
	case agent.TaskDone:
		took := t.tasks.end(id)
		t.taskLine(taskResultLine(t.cs, safe(ev.Task), ev, took, t.width()))
	}
}

// taskLine prints a line about a subagent above the spinner, or holds it
// while a dialog is on screen.
func (t *turnOutput) taskLine(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held {
		t.heldLines = append(t.heldLines, line)
		return
	}
	t.spin.Stop()
	t.endText()
	fmt.Fprintln(t.errOut, line)
	t.spin.Start(t.done, t.label)
}

// expand is Ctrl-O during a turn: while subagents run, it unfolds (or
// folds) their recent calls on the board; else the last tool output in
// full.
func (t *turnOutput) expand() {
	if t.tasks.toggle() {
		return
	}
	t.expandLast()
}

// expandLast prints the last tool output in full (Ctrl-O).
func (t *turnOutput) expandLast() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spin.Stop()
	t.endText()
	writeExpanded(t.errOut, t.cs, t.con.last(), t.width())
	t.spin.Start(t.done, t.label)
}

func (t *turnOutput) Notice(n contextmgr.Notice) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spin.Stop()
	t.endText()
	if n.Kind.IsWarning() {
		fmt.Fprintln(t.errOut, t.cs.warn("⚠ "+safe(n.Text)))
	} else {
		fmt.Fprintln(t.errOut, t.cs.dim("✻ "+safe(n.Text)))
	}
	if n.Kind == contextmgr.NoticeCompacting {
		t.waiting("compacting")
		return
	}
	t.waiting(t.label)
}

// finish ends the turn's output: spinner gone, last line ended.
func (t *turnOutput) finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spin.Stop()
	t.endText()
}

// toolArgument is the one argument that says what a call does.
func toolArgument(name string, input json.RawMessage, root string) string {
	var args map[string]any
	if err := json.Unmarshal(input, &args); err != nil {
		return clip(string(input), 60)
	}
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch name {
	case tools.NameRead, tools.NameWrite, tools.NameEdit:
		return relPath(str("file_path"), root)
	case tools.NameBash:
		line := clip(termtext.FirstLine(str("command"), 0, " …"), 80)
		if bg, _ := args["run_in_background"].(bool); bg {
			line += " (in the background)"
		}
		return line
	case tools.NameBashOutput:
		return str("bash_id")
	case tools.NameKillShell:
		return str("shell_id")
	case tools.NameWebFetch:
		return clip(termtext.FirstLine(str("url"), 0, " …"), 80)
	case tools.NameTask:
		return clip(termtext.FirstLine(str("description"), 0, " …"), 80)
	case tools.NameTodoWrite:
		return todoArgument(input)
	case tools.NameExitPlanMode:
		return "plan, " + plural(strings.Count(strings.TrimRight(str("plan"), "\n"), "\n")+1, "line")
	case tools.NameGlob, tools.NameGrep:
		s := str("pattern")
		if p := str("path"); p != "" {
			s += " in " + relPath(p, root)
		}
		return clip(s, 80)
	}
	b, _ := json.Marshal(args) // sorted keys: stable
	return clip(string(b), 60)
}

// todoArgument is a TodoWrite call's header: how much of the list is
// done and the item in progress, never the call's JSON (the list itself
// follows as the result).
func todoArgument(input json.RawMessage) string {
	var args struct {
		Todos []chat.Todo `json:"todos"`
	}
	if json.Unmarshal(input, &args) != nil {
		return "task list"
	}
	if len(args.Todos) == 0 {
		return "task list cleared"
	}
	head := tools.TodoSummary(args.Todos)
	for _, t := range args.Todos {
		if t.Status == chat.TodoInProgress {
			return head + " · now: " + clip(termtext.FirstLine(t.Content, 0, " …"), 60)
		}
	}
	return head
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func relPath(p, root string) string {
	if root == "" || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// console is a Run's side of the link to its Asker: the turn whose
// spinner the permission prompt must stop before it writes.
type console struct {
	kb    *keyboard  // the terminal's keys; nil: answers are read as lines
	width func() int // the terminal's width; nil: not a terminal
	// height is the terminal's height in rows; nil: not known.
	height func() int

	mu       sync.Mutex
	active   *turnOutput
	lastTool *toolShown
}

func (c *console) setLast(ts *toolShown) {
	c.mu.Lock()
	c.lastTool = ts
	c.mu.Unlock()
}

func (c *console) last() *toolShown {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastTool
}

func (c *console) setActive(t *turnOutput) {
	c.mu.Lock()
	c.active = t
	c.mu.Unlock()
}

// current is the running turn's output (nil: none, or a nil console —
// an Asker outside Run).
func (c *console) current() *turnOutput {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.active
}

// pause stops the spinner of the running turn, if any.
func (c *console) pause() {
	if t := c.current(); t != nil {
		t.pause()
	}
}

// resume ends pause.
func (c *console) resume() {
	if t := c.current(); t != nil {
		t.resume()
	}
}

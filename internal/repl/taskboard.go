package repl

import (
	"fmt"
	"sync"
	"time"

	"github.com/clawdcode/clawdcode/internal/agent"
)

const (
	// taskRecentCalls is how many of a task's calls the expanded board shows.
	taskRecentCalls = 5
	// boardMaxRows bounds the board so that it and the frame fit on a
	// small terminal: a redraw cannot climb back past the top of the screen.
	boardMaxRows = 12
)

// taskBoard is what a turn's running subagents are doing, drawn under the
// spinner's frame and redrawn in place with it: one line per task — its
// label, its current tool call (or "thinking" between calls) and how long
// it has run — and, expanded (Ctrl-O), its recent calls under each. A
// task leaves the board when it ends; the turn prints its one-line result
// instead. The subagents' goroutines update it while the spinner's reads
// it: mu guards everything.
type taskBoard struct {
	now func() time.Time

	mu       sync.Mutex
	tasks    []*liveTask // in the order they started
	expanded bool
}

// liveTask is one running subagent on the board.
type liveTask struct {
	id, label string
	start     time.Time
	calls     []taskCall // the last taskRecentCalls, oldest first
	running   bool       // the last call has not ended
}

type taskCall struct {
	text   string // "Grep(func Test)", made safe
	failed bool
}

func newTaskBoard() *taskBoard { return &taskBoard{now: time.Now} }

// find returns the task of id, adding it (labelled label) when new: a
// tool call may be the first event the board sees of a task.
func (b *taskBoard) find(id, label string) *liveTask {
	for _, t := range b.tasks {
		if t.id == id {
			return t
		}
	}
	t := &liveTask{id: id, label: label, start: b.now()}
	b.tasks = append(b.tasks, t)
	return t
}

// update folds one of a subagent's events into the board; call is the
// text of a tool_use event's call.
func (b *taskBoard) update(id string, ev agent.TaskEvent, call string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.find(id, safe(ev.Task))
	switch ev.Kind {
	case agent.TaskToolUse:
		t.calls = append(t.calls, taskCall{text: call})
		if len(t.calls) > taskRecentCalls {
			t.calls = t.calls[1:]
		}
		t.running = true
	case agent.TaskToolResult:
		if n := len(t.calls); n > 0 && t.running {
			t.calls[n-1].failed = ev.Result.Error != ""
		}
		t.running = false
	}
}

// end takes the task of id off the board and says how long it ran.
func (b *taskBoard) end(id string) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, t := range b.tasks {
		if t.id == id {
			b.tasks = append(b.tasks[:i], b.tasks[i+1:]...)
			return b.now().Sub(t.start)
		}
	}
	return 0
}

// toggle expands or folds the board; it reports false (and does
// nothing) when no task runs, so Ctrl-O keeps its usual meaning.
func (b *taskBoard) toggle() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.tasks) == 0 {
		return false
	}
	b.expanded = !b.expanded
	return true
}

// lines are the board's rows, each fitting in width-1 columns so that no
// redraw wraps.
func (b *taskBoard) lines(width int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var rows []string
	for _, t := range b.tasks {
		rows = append(rows, t.line(b.now(), width))
		if !b.expanded {
			continue
		}
		for _, c := range t.calls {
			mark := "↳ "
			if c.failed {
				mark = "✗ "
			}
			rows = append(rows, dim(clipWidth("      "+mark+c.text, width-1)))
		}
	}
	if len(rows) > boardMaxRows {
		more := len(rows) - boardMaxRows + 1
		rows = append(rows[:boardMaxRows-1], dim("    … "+plural(more, "more line")))
	}
	if len(b.tasks) > 0 && !b.expanded {
		rows = append(rows, dim(clipWidth("    (ctrl+o to see each task's recent calls)", width-1)))
	}
	return rows
}

// line is the task's row: "  ⎿ [type: description] Tool(arg) · 12s". The
// label and call give way first; the time stays.
func (t *liveTask) line(now time.Time, width int) string {
	doing := "thinking"
	if n := len(t.calls); n > 0 && t.running {
		doing = t.calls[n-1].text
	}
	tail := " · " + now.Sub(t.start).Truncate(time.Second).String()
	head := clipWidth("  ⎿ "+t.label+" "+doing, width-1-visibleWidth(tail))
	return head + dim(tail)
}

// taskResultLine is a finished task's one line: how it ended, what its
// model calls spent and how long it ran.
func taskResultLine(cs colorScheme, label string, ev agent.TaskEvent, took time.Duration, width int) string {
	outcome := cs.dim(ev.Outcome)
	switch ev.Outcome {
	case agent.TaskFailed:
		outcome = cs.err(ev.Outcome)
	case agent.TaskCancelled:
		outcome = cs.warn(ev.Outcome)
	}
	tail := fmt.Sprintf(" · %s tokens · %s", tokenCount(ev.Usage.InputTokens+ev.Usage.OutputTokens), took.Truncate(100*time.Millisecond))
	head := clipWidth("  ⎿ "+label+" ", width-1-visibleWidth(ev.Outcome+tail))
	return head + outcome + cs.dim(tail)
}

// tokenCount is n for a glance: 950, 12.3k, 1.5M.
func tokenCount(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

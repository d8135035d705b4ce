package repl

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/iostreams"
)

// A subagent's tool calls show under its Task call, one line each naming
// the subagent, even when two subagents report at once (-race).
func TestTurnOutputShowsSubagentCalls(t *testing.T) {
	t.Parallel()
	ios, _, _, errOut := iostreams.Test()
	o := newTurnOutput(ios, "/proj", nil, nil)
	o.ToolStart("call_1", "Task", json.RawMessage(`{"description":"find tests","prompt":"p"}`))
	var wg sync.WaitGroup
	for _, task := range []string{"[explore: find tests]", "[general: read docs]"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.TaskEvent("call_1", agent.TaskEvent{Kind: agent.TaskToolUse, Task: task, Name: "Grep", Input: json.RawMessage(`{"pattern":"func Test"}`)})
			o.TaskEvent("call_1", agent.TaskEvent{Kind: agent.TaskAssistant, Task: task, Text: "NOT SHOWN"})
		}()
	}
	wg.Wait()
	got := errOut.String()
	for _, want := range []string{"↳ [explore: find tests] Grep(func Test", "↳ [general: read docs] Grep(func Test"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "NOT SHOWN") {
		t.Errorf("a subagent's text reached the parent's output:\n%s", got)
	}
}

// A subagent's result line waits while a dialog is on screen and comes
// when it is answered; elsewhere it comes at once.
func TestTaskResultLineWaitsForTheDialog(t *testing.T) {
	t.Parallel()
	ios, _, _, errOut := iostreams.Test()
	o := newTurnOutput(ios, "/proj", nil, nil)
	o.TaskEvent("call_1", agent.TaskEvent{Kind: agent.TaskStart, Task: "[explore: find tests]"})
	o.pause()
	o.TaskEvent("call_1", agent.TaskEvent{Kind: agent.TaskDone, Task: "[explore: find tests]", Outcome: agent.TaskOK})
	if strings.Contains(errOut.String(), "find tests") {
		t.Fatalf("a result line was written over the dialog:\n%s", errOut)
	}
	o.resume()
	if !strings.Contains(errOut.String(), "⎿ [explore: find tests] ok · 0 tokens") {
		t.Fatalf("the result line never came:\n%s", errOut)
	}
}

// The board's rows never wrap, keep each task's time when cut, and unfold
// the recent calls only when expanded.
func TestTaskBoardLines(t *testing.T) {
	t.Parallel()
	b := newTaskBoard()
	if b.toggle() {
		t.Fatal("Ctrl-O unfolded an empty board")
	}
	long := "[general: " + strings.Repeat("a long description ", 8) + "]"
	b.update("c1", agent.TaskEvent{Kind: agent.TaskToolUse, Task: long}, "Grep(x)")
	b.update("c1", agent.TaskEvent{Kind: agent.TaskToolResult, Task: long}, "")
	rows := b.lines(60)
	if len(rows) != 2 || !strings.Contains(rows[0], "· 0s") || !strings.Contains(rows[0], "…") {
		t.Fatalf("folded rows %q", rows)
	}
	for _, r := range rows {
		if visibleWidth(r) > 59 {
			t.Errorf("row %q is wider than 59 columns", r)
		}
	}
	if !b.toggle() {
		t.Fatal("Ctrl-O did not unfold the board")
	}
	if rows := b.lines(60); len(rows) != 2 || !strings.Contains(rows[1], "↳ Grep(x)") {
		t.Fatalf("expanded rows %q", rows)
	}
}

// However many tasks and calls, the board stays a bounded number of rows.
func TestTaskBoardIsBounded(t *testing.T) {
	t.Parallel()
	b := newTaskBoard()
	for _, id := range []string{"a", "b", "c", "d"} {
		for range taskRecentCalls {
			b.update(id, agent.TaskEvent{Kind: agent.TaskToolUse, Task: "[general: " + id + "]"}, "Read(x)")
		}
	}
	b.toggle()
	rows := b.lines(80)
	if len(rows) != boardMaxRows || !strings.Contains(rows[len(rows)-1], "13 more lines") {
		t.Fatalf("%d rows, the last %q", len(rows), rows[len(rows)-1])
	}
}

package contextmgr

import (
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// The model's task list (the TodoWrite tool, /todos) is read from the
// session's records and from nothing else: a TodoWrite call's tool_use
// record holds the whole list, and the list is in force once its
// tool_result says the call succeeded. Every boundary carries the list
// in force (compactMetadata.todos), so a resume has it without reading
// the records before it, and every compaction restates it to the model
// after the summary. A summary that claims an unfinished item done, or
// brings back a finished one, changes nothing here.

// todoMaxRefs bounds the refs an item keeps: the most recent calls made
// while it was in progress.
const todoMaxRefs = 24

// taskList is the task list in force and what it needs to follow the
// records: the TodoWrite calls still waiting for their result.
type taskList struct {
	items   []storage.Todo
	pending map[string][]chat.Todo // TodoWrite call id → its list
}

// list is the task list in force (nil = none, or no taskList); a copy.
func (t *taskList) list() []storage.Todo {
	if t == nil || len(t.items) == 0 {
		return nil
	}
	out := make([]storage.Todo, len(t.items))
	for i, it := range t.items {
		it.Refs = append([]string(nil), it.Refs...)
		out[i] = it
	}
	return out
}

// observe follows one record: a TodoWrite call is held until its result,
// any other call is a ref of the items in progress, and a TodoWrite
// result without an error puts its call's list in force.
func (t *taskList) observe(r *storage.Record) {
	switch {
	case r.Type == storage.TypeToolUse && r.Tool != nil && toolcall.Is(r.Tool.Name, toolcall.TodoWrite):
		list, err := chat.ParseTodos(r.Tool.Input)
		if err != nil {
			return
		}
		if t.pending == nil {
			t.pending = map[string][]chat.Todo{}
		}
		t.pending[r.Tool.ID] = list
	case r.Type == storage.TypeToolUse && r.Tool != nil:
		for i := range t.items {
			if t.items[i].Status == chat.TodoInProgress {
				t.items[i].Refs = appendRef(t.items[i].Refs, r.UUID)
			}
		}
	case r.Type == storage.TypeToolResult && r.ToolResult != nil:
		list, ok := t.pending[r.ToolResult.ID]
		if !ok {
			return
		}
		delete(t.pending, r.ToolResult.ID)
		if r.ToolResult.Error == "" {
			t.replace(list)
		}
	}
}

func appendRef(refs []string, ref string) []string {
	if ref == "" {
		return refs
	}
	refs = append(refs, ref)
	if len(refs) > todoMaxRefs {
		refs = append(refs[:0:0], refs[len(refs)-todoMaxRefs:]...)
	}
	return refs
}

// replace puts list in force. An item keeps the refs it had under the
// same content while it stays in progress or is completed now; an item
// pending again starts over.
func (t *taskList) replace(list []chat.Todo) {
	prev := map[string][]string{}
	for _, it := range t.items {
		prev[it.Content] = it.Refs
	}
	items := make([]storage.Todo, len(list))
	for i, it := range list {
		items[i] = storage.Todo{Content: it.Content, Status: it.Status}
		if it.Status != chat.TodoPending {
			items[i].Refs = prev[it.Content]
		}
	}
	t.items = items
}

// restore takes the boundary's list; the records after it (observed by
// the caller) change it as they did live.
func (t *taskList) restore(live *storage.Live) {
	if b := live.Boundary; b != nil && b.CompactMetadata != nil {
		t.items = append([]storage.Todo(nil), b.CompactMetadata.Todos...)
	}
}

// open is how many items are not completed.
func (t *taskList) open() int {
	n := 0
	for _, it := range t.items {
		if it.Status != chat.TodoCompleted {
			n++
		}
	}
	return n
}

// text is the list as the model is told it after a compaction ("" = no
// list): every item with its status, a completed one with its refs.
func (t *taskList) text() string {
	if len(t.items) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Your task list when the conversation was compacted, from your TodoWrite calls (%d of %d items open; trust it over the summary, and a later TodoWrite call over it):", t.open(), len(t.items))
	for _, it := range t.items {
		fmt.Fprintf(&b, "\n%s %s (%s)", chat.TodoMark(it.Status), termtext.Flatten(it.Content, 300), it.Status)
		if it.Status == chat.TodoCompleted && len(it.Refs) > 0 {
			fmt.Fprintf(&b, " — refs %s", strings.Join(it.Refs, ", "))
		}
	}
	return b.String()
}

// Todos is the model's task list in force (/todos), from the session's
// TodoWrite records; nil = none.
func (m *Manager) Todos() []storage.Todo { return m.work.todos.list() }

package chat

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The statuses of an item of the model's task list (the TodoWrite tool,
// CONTRACT.md §3).
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// Todo is one item of the task list the model keeps. The list is replaced
// whole by each TodoWrite call; the tool and the context manager both
// read it from the call's input with ParseTodos, so they never disagree
// about which list is in force.
type Todo struct {
	Content string `json:"content" jsonschema:"What is to be done, in one line."`
	Status  string `json:"status" param:"enum=pending|in_progress|completed" jsonschema:"Where the item stands."`
}

// ParseTodos reads a TodoWrite call's input: {"todos": [{content, status}]}.
// Every item needs a content and one of the three statuses.
func ParseTodos(input json.RawMessage) ([]Todo, error) {
	var in struct {
		Todos *[]Todo `json:"todos"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("todos: %w", err)
	}
	if in.Todos == nil {
		return nil, fmt.Errorf("missing required parameter todos")
	}
	return *in.Todos, CheckTodos(*in.Todos)
}

// CheckTodos says what is wrong with a list, naming the item.
func CheckTodos(list []Todo) error {
	for i, t := range list {
		if strings.TrimSpace(t.Content) == "" {
			return fmt.Errorf("todos[%d]: content is empty", i)
		}
		switch t.Status {
		case TodoPending, TodoInProgress, TodoCompleted:
		default:
			return fmt.Errorf("todos[%d]: status %q is not pending, in_progress or completed", i, t.Status)
		}
	}
	return nil
}

// TodoMark is the checkbox an item is shown with.
func TodoMark(status string) string {
	switch status {
	case TodoCompleted:
		return "[x]"
	case TodoInProgress:
		return "[~]"
	}
	return "[ ]"
}

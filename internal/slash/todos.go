package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

func todosCommand() Command {
	return Command{
		Name:    "todos",
		Summary: "show the task list the model keeps (its TodoWrite calls)",
		Run: func(ctx context.Context, env *Env, args string) error {
			m := env.Context
			_, err := fmt.Fprint(env.IO.Out, formatTodos(m.Todos()))
			return err
		},
	}
}

// formatTodos is /todos' text: the list with its checkboxes, and the
// number of calls each completed item was done with (their refs are for
// Recall, in the session file).
func formatTodos(list []storage.Todo) string {
	if len(list) == 0 {
		return "No task list: the model has not written one (TodoWrite) in this session's context.\n"
	}
	done := 0
	for _, t := range list {
		if t.Status == chat.TodoCompleted {
			done++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tasks: %d/%d done\n", done, len(list))
	for _, t := range list {
		fmt.Fprintf(&b, "  %s %s", chat.TodoMark(t.Status), termtext.FirstLine(t.Content, 200, termtext.Ellipsis))
		if t.Status == chat.TodoCompleted && len(t.Refs) > 0 {
			fmt.Fprintf(&b, "  (%d calls, last ref %s)", len(t.Refs), t.Refs[len(t.Refs)-1])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

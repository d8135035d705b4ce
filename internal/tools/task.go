package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// NameTask is the subagent tool of CONTRACT.md §3 and §12.
const NameTask = toolcall.Task

// TaskParams are Task's parameters (see params.go).
type TaskParams struct {
	Description string `json:"description" param:"text" jsonschema:"A short (3-5 word) description of the task, shown to the user."`
	Prompt      string `json:"prompt" param:"text" jsonschema:"The whole task for the subagent: it sees nothing of this conversation, only this prompt and the project's instructions."`
	Type        string `json:"subagent_type,omitempty" jsonschema:"The kind of subagent to run (default general)."`
}

// TaskRunner runs one subagent to its final message. It is called from
// the goroutine that runs the tool; several calls may run at once.
type TaskRunner interface {
	RunTask(ctx context.Context, p TaskParams) Result
}

// SubagentType is one kind of subagent offered in Task's description.
type SubagentType struct {
	Name, Description string
	// ReadOnly says its subagent can only read (its tools are all
	// PlanTools): a Task of this type runs in plan mode.
	ReadOnly bool
}

// NewTask returns the Task tool over r, offering types. It runs without
// asking (CONTRACT.md §3): the subagent asks for its own tools.
func NewTask(r TaskRunner, types []SubagentType) Tool {
	var b strings.Builder
	b.WriteString("Delegate a self-contained task (a search through the code, a question about a large file, " +
		"a subtask) to a subagent with its own fresh context. It starts from prompt alone, not from this " +
		"conversation, so give it everything it needs; it answers with its final message, which is all that " +
		"enters your context. Use it to keep long exploration out of your context. Several Task calls in one " +
		"answer run at the same time. subagent_type is one of:")
	names := make([]string, len(types))
	for i, t := range types {
		fmt.Fprintf(&b, "\n- %s: %s", t.Name, t.Description)
		names[i] = t.Name
	}
	brief := "Delegate a self-contained task to a subagent with a fresh context: prompt must hold everything it needs; " +
		"only its final answer comes back. subagent_type: " + strings.Join(names, ", ") + "."
	t := typed(&tool{name: NameTask, description: b.String(), brief: brief},
		r.RunTask,
		func(p TaskParams) string {
			if p.Type != "" {
				return p.Type + ": " + p.Description
			}
			return p.Description
		})
	t.readOnly = func(a args) bool {
		p, err := decodeParams[TaskParams](a, true)
		if err != nil {
			return false
		}
		for _, typ := range types {
			if strings.EqualFold(strings.TrimSpace(p.Type), typ.Name) {
				return typ.ReadOnly
			}
		}
		return false // general, or no such type
	}
	return t
}

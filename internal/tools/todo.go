package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// NameTodoWrite is the task-list tool's name (CONTRACT.md §3).
const NameTodoWrite = toolcall.TodoWrite

// NameSkill is the tool that gives the model an Agent Skill's
// instructions (internal/skills).
const NameSkill = toolcall.Skill

// todoParams are TodoWrite's parameters (see params.go).
type todoParams struct {
	Todos []chat.Todo `json:"todos" jsonschema:"The whole task list, in order; it replaces the previous one."`
}

// NewTodoWrite returns the TodoWrite tool. It keeps no state: the list in
// force is the input of the last call that succeeded, which the session
// stores as that call's tool_use record, and the context manager reads it
// back from there (contextmgr's task list) — so a resume, a compaction and
// the REPL's /todos all see the same list.
func NewTodoWrite() Tool {
	return typed(&tool{
		name: NameTodoWrite,
		description: "Keep your task list for the current work: the whole list each time, every item with a status " +
			"(pending, in_progress, completed). Use it for work of three steps or more: mark an item in_progress " +
			"when you start it and completed as soon as it is done. The list is shown to the user and restated " +
			"to you after the conversation is compacted.",
	}, runTodoWrite, func(p todoParams) string {
		return TodoSummary(p.Todos)
	})
}

func runTodoWrite(_ context.Context, p todoParams) Result {
	if err := chat.CheckTodos(p.Todos); err != nil {
		return fail("%v", err)
	}
	if len(p.Todos) == 0 {
		return Result{Output: "Task list cleared."}
	}
	return Result{Output: TodoSummary(p.Todos) + "\n" + TodoChecklist(p.Todos)}
}

// TodoSummary is "2/5 done", the head of a list's display.
func TodoSummary(list []chat.Todo) string {
	done := 0
	for _, t := range list {
		if t.Status == chat.TodoCompleted {
			done++
		}
	}
	return fmt.Sprintf("%d/%d done", done, len(list))
}

// TodoChecklist is the list one item a line, each with its checkbox.
func TodoChecklist(list []chat.Todo) string {
	lines := make([]string, len(list))
	for i, t := range list {
		lines[i] = chat.TodoMark(t.Status) + " " + termtext.Flatten(t.Content, 200)
	}
	return strings.Join(lines, "\n")
}

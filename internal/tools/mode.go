package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Mode is the permission mode a Permissions decides in (CONTRACT §1,
// --permission-mode; Shift-Tab in the REPL).
type Mode int

const (
	// ModeDefault asks for every call no rule allows.
	ModeDefault Mode = iota
	// ModeAcceptEdits runs Write and Edit inside the project without
	// asking; everything else is as in ModeDefault.
	ModeAcceptEdits
	// ModePlan runs the read-only tools only (PlanTools): the model reads
	// and presents a plan, which the user approves to leave the mode.
	ModePlan
	// ModeBypass runs every tool without asking
	// (--dangerously-skip-permissions); it is reachable only when the run
	// was started with that flag.
	ModeBypass
)

// modeNames are the names --permission-mode takes, in the order Shift-Tab
// cycles through them. Bypass has no name: only
// --dangerously-skip-permissions selects it.
var modeNames = []string{ModeDefault: "default", ModeAcceptEdits: "acceptEdits", ModePlan: "plan"}

// PlanTools are the tools that run in plan mode: those that read and do
// not change anything in the project, so that a plan can be researched.
// TodoWrite changes only the session's task list, which is how a plan is
// laid out; BashOutput reads a background command started before the
// mode was entered; WebFetch reads a page (and asks, as in every mode,
// unless a rule allows its domain); Skill reads a skill's instructions.
// Besides them, ExitPlanMode hands the
// plan over, and Task runs when its subagent type can only read
// (ReadOnlyFor, see planAllows). Every other tool (Write, Edit, Bash,
// KillShell, Task with any other type, any MCP tool) is refused there.
var PlanTools = []string{NameRead, NameGlob, NameGrep, NameRecall, NameTodoWrite, NameBashOutput, NameWebFetch, NameSkill}

// ReadOnlyCaller is a tool some of whose calls only read (Task, for a
// subagent type that can only read).
type ReadOnlyCaller interface {
	ReadOnlyFor(input json.RawMessage) bool
}

// planAllows reports whether a call of tool runs in plan mode.
func planAllows(tool Tool, input json.RawMessage) bool {
	if name := tool.Name(); name == NameExitPlanMode || slices.Contains(PlanTools, name) {
		return true
	}
	r, ok := tool.(ReadOnlyCaller)
	return ok && r.ReadOnlyFor(input)
}

// ParseMode reads a --permission-mode value.
func ParseMode(s string) (Mode, error) {
	if i := slices.Index(modeNames, s); i >= 0 {
		return Mode(i), nil
	}
	return ModeDefault, fmt.Errorf("unknown permission mode %q (want default, acceptEdits or plan)", s)
}

// String is the mode's flag name ("bypassPermissions" for ModeBypass).
func (m Mode) String() string {
	if m == ModeBypass {
		return "bypassPermissions"
	}
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Label is how the REPL's status line names the mode ("" for default).
func (m Mode) Label() string {
	switch m {
	case ModeAcceptEdits:
		return "accept edits"
	case ModePlan:
		return "plan"
	case ModeBypass:
		return "permissions skipped"
	}
	return ""
}

// PlanNote is the note a request in plan mode carries, so that the model
// knows what it may do and what is expected of it.
var PlanNote = "Plan mode is on: the user wants a plan before anything changes. " +
	"Only the read-only tools run (" + strings.Join(PlanTools, ", ") + ", and Task with a subagent type that only reads, such as explore); " +
	"Write, Edit, Bash and MCP tools are refused. " +
	"Investigate as needed; when your plan is ready, hand it to the user with ExitPlanMode (not as your answer): " +
	"once they approve it, plan mode ends and you carry it out. To ask the user something instead, answer with your question."

// planDenial is the result a refused call in plan mode gives the model.
func planDenial(tool Tool, input json.RawMessage) string {
	return fmt.Sprintf("%s was not run: plan mode is on, and only read-only tools (%s) run. "+
		"Do not try to make changes: hand your plan to the user with ExitPlanMode; "+
		"once they approve it, plan mode ends and the changes can be made.", tool.Describe(input), strings.Join(PlanTools, ", "))
}

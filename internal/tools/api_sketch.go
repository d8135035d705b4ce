package tools

// THIS FILE IS THE AGREED API SKETCH. The tools helper replaces the bodies
// (and may split the file); the signatures are what other packages compile against.

import (
	"context"
	"encoding/json"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// Result is what a tool answers the model. A non-empty Error marks a failed
// call the model can act on (file missing, old_string not found, denied...);
// Output may still carry text. Go errors are reserved for the program's own faults.
type Result struct {
	Output string
	Error  string
}

// Tool is one tool offered to the model.
type Tool interface {
	Name() string
	Definition() chat.ToolDef
	// NeedsPermission reports whether the tool must be allowed before running
	// (Write, Edit, Bash). Read, Glob, Grep never need it.
	NeedsPermission() bool
	// Describe renders a one-line human summary of a call for permission
	// prompts and the transcript (e.g. "Bash(go test ./...)").
	Describe(input json.RawMessage) string
	Run(ctx context.Context, input json.RawMessage) Result
}

// Env is what tools share within one session: the project root and the
// read-state that lets Edit refuse files changed on disk since last read.
type Env struct {
	Root string
	// internal: file read state, output caps...
}

// NewEnv returns the environment for tools working in root.
func NewEnv(root string) *Env { panic("unimplemented") }

// Set returns the six contract tools, in the order offered to the model.
func Set(env *Env) []Tool { panic("unimplemented") }

// Decision is a user's answer to a permission prompt.
type Decision int

const (
	Deny Decision = iota
	AllowOnce
	AllowAlways // for the rest of this session
)

// Asker asks the user whether a call may run (a TTY prompt). Nil in -p.
type Asker interface {
	Ask(ctx context.Context, tool Tool, input json.RawMessage) (Decision, error)
}

// Permissions is the one place that decides whether a call may run.
type Permissions struct {
	// fields: allowed set, skip-all, asker, session "always" grants
}

// NewPermissions: allowed are tool names from --allowed-tools, skipAll is
// --dangerously-skip-permissions, asker is nil when not on a TTY.
func NewPermissions(allowed []string, skipAll bool, asker Asker) *Permissions { panic("unimplemented") }

// Check returns nil when the call may run; otherwise the denial message that
// becomes the tool result the model sees.
func (p *Permissions) Check(ctx context.Context, tool Tool, input json.RawMessage) (denied string, err error) {
	panic("unimplemented")
}

// Lookup finds a tool by name in set.
func Lookup(set []Tool, name string) (Tool, bool) { panic("unimplemented") }

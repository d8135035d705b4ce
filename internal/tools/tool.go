package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// Result is what a tool answers the model. A non-empty Error marks a failed
// call the model can act on (file missing, old_string not found, denied...);
// Output may still carry text. Go errors are reserved for the program's own faults.
type Result struct {
	Output string
	Error  string
	// Image is an image the call returned (Read of an image file), sent
	// to the model after the tool results; ImageName names its file.
	Image     *chat.Image
	ImageName string
	// Spent is what the call's own model calls used (a Task's subagent),
	// recorded with the result; nil for a tool that calls no model.
	Spent *storage.Usage
	// Final, when set, ends the turn once the calls of this answer are
	// answered — no further model call is made — and is the turn's
	// answer: ExitPlanMode's plan, when it waits for the user.
	Final string
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

// Tool names, as offered to the model (CONTRACT.md §3): toolcall's, the
// one place they are spelt.
const (
	NameRead  = toolcall.Read
	NameWrite = toolcall.Write
	NameEdit  = toolcall.Edit
	NameBash  = toolcall.Bash
	NameGlob  = toolcall.Glob
	NameGrep  = toolcall.Grep
)

// Set returns the contract's file, shell and web tools, in the order
// offered to the model.
func Set(env *Env) []Tool {
	set := []*tool{
		newReadTool(env),
		newWriteTool(env),
		newEditTool(env),
		newBashTool(env),
		newGlobTool(env),
		newGrepTool(env),
		newBashOutputTool(env),
		newKillShellTool(env),
		newWebFetchTool(env),
	}
	out := make([]Tool, len(set))
	for i, t := range set {
		out[i] = t
	}
	return out
}

// NeedsPermission reports whether this call of t must be allowed before it
// runs: a tool may decide by its input (Recall asks for scope "all" only).
func NeedsPermission(t Tool, input json.RawMessage) bool {
	if c, ok := t.(interface {
		NeedsPermissionFor(input json.RawMessage) bool
	}); ok {
		return c.NeedsPermissionFor(input)
	}
	return t.NeedsPermission()
}

// Lookup finds a tool by name in set. An exact match wins; otherwise the
// name is matched case-insensitively, because smaller models sometimes call
// "read" for "Read".
func Lookup(set []Tool, name string) (Tool, bool) {
	for _, t := range set {
		if t.Name() == name {
			return t, true
		}
	}
	for _, t := range set {
		if strings.EqualFold(t.Name(), name) {
			return t, true
		}
	}
	return nil, false
}

// tool is the one implementation of Tool: each of them is a tool value
// with its own run and describe functions, so argument decoding, panic
// recovery and the definition live in one place.
type tool struct {
	name        string
	description string
	schema      string // JSON Schema of the parameters, from their struct (params.go)
	// brief and briefSchema are the brief form of the definition, for
	// small context windows (brief.go).
	brief, briefSchema string
	permission         bool
	run                func(ctx context.Context, a args) Result
	describe           func(a args) string
	// needs, when set, decides per call whether permission is needed
	// (permission is then the answer for calls whose input is unreadable).
	needs func(a args) bool
	// validate, when set, checks a call without running it (see Precheck).
	validate func(ctx context.Context, a args) (Result, bool)
	// readOnly, when set, says whether a call only reads (ReadOnlyFor).
	readOnly func(a args) bool
}

var (
	_ Tool       = (*tool)(nil)
	_ Prechecker = (*tool)(nil)
)

func (t *tool) Name() string          { return t.name }
func (t *tool) NeedsPermission() bool { return t.permission }

// NeedsPermissionFor is NeedsPermission for one call's input.
func (t *tool) NeedsPermissionFor(input json.RawMessage) bool {
	if t.needs == nil {
		return t.permission
	}
	a, err := parseArgs(input)
	if err != nil {
		return t.permission
	}
	return t.needs(a)
}

// ReadOnlyFor reports whether this call only reads (a Task whose
// subagent can only read): plan mode lets it run (planAllows).
func (t *tool) ReadOnlyFor(input json.RawMessage) bool {
	if t.readOnly == nil {
		return false
	}
	a, err := parseArgs(input)
	return err == nil && t.readOnly(a)
}

func (t *tool) Definition() chat.ToolDef {
	return chat.ToolDef{
		Name:        t.name,
		Description: t.description,
		Parameters:  json.RawMessage(t.schema),
	}
}

func (t *tool) Describe(input json.RawMessage) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = t.name
		}
	}()
	a, err := parseArgs(input)
	if err != nil {
		return t.name
	}
	return t.name + "(" + termtext.FirstLine(t.describe(a), 80, termtext.Ellipsis) + ")"
}

// Run decodes the arguments and runs the tool. A panic is turned into an
// error result: one broken call must not take the session down.
func (t *tool) Run(ctx context.Context, input json.RawMessage) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Error: fmt.Sprintf("internal error in %s: %v", t.name, r)}
		}
	}()
	a, err := parseArgs(input)
	if err != nil {
		return invalid(err)
	}
	return t.run(ctx, a)
}

// Prechecker is a tool that can tell, before anyone is asked to allow a
// call, that it would fail.
type Prechecker interface {
	// Precheck returns the error result the call would end with, and
	// false, when its arguments or preconditions are wrong (Edit of a file
	// not read, Write under CLAWDCODE_HOME); true when it may run. It
	// changes nothing; ctx bounds what it reads (an editor's buffer).
	Precheck(ctx context.Context, input json.RawMessage) (Result, bool)
}

// Precheck checks a call before its permission: the loop answers a call
// that cannot succeed with its error at once, so the user is never asked
// to allow a call that then fails. Tools without checks pass.
func Precheck(ctx context.Context, t Tool, input json.RawMessage) (Result, bool) {
	if pc, ok := t.(Prechecker); ok {
		return pc.Precheck(ctx, input)
	}
	return Result{}, true
}

func (t *tool) Precheck(ctx context.Context, input json.RawMessage) (res Result, ok bool) {
	if t.validate == nil {
		return Result{}, true
	}
	defer func() {
		if r := recover(); r != nil {
			res, ok = Result{Error: fmt.Sprintf("internal error in %s: %v", t.name, r)}, false
		}
	}()
	a, err := parseArgs(input)
	if err != nil {
		return invalid(err), false
	}
	return t.validate(ctx, a)
}

// invalid is the result for arguments the tool cannot use.
func invalid(err error) Result {
	return Result{Error: err.Error()}
}

// fail is an error result with a formatted message.
func fail(format string, v ...any) Result {
	return Result{Error: fmt.Sprintf(format, v...)}
}

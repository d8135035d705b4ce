package telemetry

import (
	"context"
	"encoding/json"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Hooks is what the engine tells telemetry, each at one place: a turn (or
// a subagent's run) starting and ending, a tool call starting and ending,
// a permission decision, and the records appended to a session (from
// which compactions are read). Model calls are seen by the LLM client's
// wrapper (WrapLLM); lines changed are read from Write and Edit calls.
// Every method returns at once: nothing is exported on the caller's
// goroutine. Safe for concurrent use (subagents run at once).
type Hooks interface {
	// Turn starts a turn of session: the returned context carries its
	// span, the session and these hooks to the calls made under it;
	// end ends it (err nil: it completed).
	Turn(ctx context.Context, t Turn) (context.Context, func(err error))
	// Tool starts a tool call under the turn of ctx; end ends it with the
	// result's outcome. A Task call's context is its subagent's parent.
	Tool(ctx context.Context, call ToolCall) (context.Context, func(ToolEnd))
	// Decision is a permission decision on a call.
	Decision(ctx context.Context, d Decision)
	// Records are records appended to session.
	Records(session string, recs []*storage.Record)
}

// Turn describes a turn as it starts.
type Turn struct {
	Session string
	Model   string
	Prompt  string
	// Agent names a subagent's type ("" for the session's own turn).
	Agent string
}

// ToolCall describes a tool call as it starts. Input is read only for
// the lines Write and Edit change; it never leaves the process.
type ToolCall struct {
	ID, Name string
	Input    json.RawMessage
}

// ToolEnd is how a tool call ended: its error, if any (never exported:
// it may quote a file or a command's output).
type ToolEnd struct {
	Error string
}

// Decision is a permission decision: whether the call may run, and what
// decided (SourceFree: the tool needs no permission; SourcePolicy: a
// rule, the mode or the user).
type Decision struct {
	Tool    string
	Allowed bool
	Source  string
}

// Decision sources.
const (
	SourceFree   = "free"
	SourcePolicy = "policy"
)

// Off is telemetry switched off: every hook does nothing, allocates
// nothing and loads none of the OpenTelemetry SDK.
var Off Hooks = off{}

type off struct{}

func noEnd(error)       {}
func noToolEnd(ToolEnd) {}

func (off) Turn(ctx context.Context, _ Turn) (context.Context, func(error)) { return ctx, noEnd }
func (off) Tool(ctx context.Context, _ ToolCall) (context.Context, func(ToolEnd)) {
	return ctx, noToolEnd
}
func (off) Decision(context.Context, Decision) {}
func (off) Records(string, []*storage.Record)  {}

type hooksKey struct{}
type sessionKey struct{}

// From is the hooks a turn put in ctx (Off when none did): what a tool
// call, a permission check or a model call under that turn reports to.
func From(ctx context.Context) Hooks {
	if h, ok := ctx.Value(hooksKey{}).(Hooks); ok {
		return h
	}
	return Off
}

// SessionOf is the session of the turn ctx is under ("" when none).
func SessionOf(ctx context.Context) string {
	s, _ := ctx.Value(sessionKey{}).(string)
	return s
}

func withTurn(ctx context.Context, h Hooks, session string) context.Context {
	return context.WithValue(context.WithValue(ctx, hooksKey{}, h), sessionKey{}, session)
}

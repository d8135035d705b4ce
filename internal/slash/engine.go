package slash

import (
	"context"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/checkpoint"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Engine is everything the slash commands need of the session engine,
// declared in one place: a command never discovers a feature by a type
// assertion, so a wrapper around the engine either has the whole contract
// or does not compile (it can no longer make /undo or /handoff silently
// "not available"). The REPL's Engine extends it with Submit.
type Engine interface {
	// Sessions: the current one, a new one, an earlier one.
	SessionID() string
	Title() string
	Rename(title string) error
	StartNew(ctx context.Context, title string) error
	Resume(ctx context.Context, id string) error
	Project() *storage.Project

	// The context and the model it is sent to. Context is nil only when
	// the manager could not be built.
	Context() *contextmgr.Manager
	Model() string
	SetModel(name string)
	ListModels(ctx context.Context) ([]string, error)
	MCPServers() []mcphost.Status
	// JoinMCPTools offers the tools of the MCP servers ready now from the
	// next request on, so that /context counts what that request carries.
	JoinMCPTools(ctx context.Context)
	// WindowSource says where the context window came from; About and
	// Permissions are what /status shows of the run.
	WindowSource() string
	About() agent.About
	Permissions() tools.PermissionSummary
	// The rules of this session (/permissions add and rm; "always"
	// answers), and one saved to the project's config file.
	SessionRules() []tools.Rule
	AddSessionRule(r tools.Rule)
	RemoveSessionRule(r tools.Rule) bool
	SaveProjectRule(r tools.Rule) error
	// SubagentTypes are the kinds of subagent Task offers (/agents).
	SubagentTypes() []agent.SubagentType

	// Memories is the project's and the user's memories (/memory);
	// SuggestMemory asks the model for a memory of this session, kept as
	// a pending suggestion (/memory suggest).
	Memories() *memory.Book
	SuggestMemory(ctx context.Context) ([]memory.Suggestion, error)

	// Going back and branching off. The Drift methods say which files the
	// user changed after the agent's edit, which a restore would lose.
	// SessionDiff is every file Write and Edit changed in this session,
	// before its first change and now (/diff).
	SessionDiff(ctx context.Context) ([]checkpoint.FileDiff, error)
	UndoDrift(ctx context.Context) ([]checkpoint.Drift, error)
	Undo(ctx context.Context) ([]checkpoint.Restored, error)
	RewindPoints(ctx context.Context) ([]agent.RewindPoint, error)
	RewindDrift(ctx context.Context, pt agent.RewindPoint) ([]checkpoint.Drift, error)
	Rewind(ctx context.Context, pt agent.RewindPoint, restoreFiles bool) ([]checkpoint.Restored, error)
	Fork(ctx context.Context, id, title string) (string, error)
	Handoff(ctx context.Context, instructions string) (*agent.HandoffResult, error)
}

var _ Engine = (*agent.Engine)(nil)

package slash

import (
	"context"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/checkpoint"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/skills"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Parts are the engine's parts the commands use (and the REPL shows),
// each declared here as the small interface of what is called of it, and each checked
// against the engine's part (var _ below): a command never discovers a
// feature by a type assertion, so a wrapper either has the whole of a
// part or does not compile. A front end hands its engine's parts over
// with PartsOf; a test sets only the parts its command uses.
type Parts struct {
	Sessions    Sessions
	Context     Context
	Model       Model
	Permissions Permissions
	Tasks       Tasks
	Shells      Shells
	Memory      Memory
	Checkpoints Checkpoints
	MCP         MCP
	Skills      Skills
	// About is what /status and /config show of the run beyond the engine.
	About agent.About
}

// PartsOf hands out e's parts to the commands.
func PartsOf(e *agent.Engine) Parts {
	return Parts{
		Sessions:    e.Sessions(),
		Context:     e.Context(),
		Model:       e.Turns(),
		Permissions: e.Permissions(),
		Tasks:       e.Tasks(),
		Shells:      e.Shells(),
		Memory:      e.Memory(),
		Checkpoints: e.Checkpoints(),
		MCP:         e.MCP(),
		Skills:      e.Skills(),
		About:       e.About(),
	}
}

// Sessions: the current session, a new one, an earlier one, and a new
// one that continues this one (/fork, /handoff). Live is the current
// session's live context as stored, which a front end replays.
type Sessions interface {
	ID() string
	Title() string
	Rename(title string) error
	Project() *storage.Project
	Live(ctx context.Context) (*storage.Live, error)
	StartNew(ctx context.Context, title string) error
	Resume(ctx context.Context, id string) error
	Fork(ctx context.Context, id, title string) (string, error)
	Handoff(ctx context.Context, instructions string) (*agent.HandoffResult, error)
}

// Context: the current session's context window (/context, /compact,
// /cost, /pin, /todos, /status).
type Context interface {
	Usage() contextmgr.Usage
	Spend() contextmgr.Spend
	WindowSource() string
	ResetWindow() error
	Compact(ctx context.Context, instructions string) (*contextmgr.CompactResult, error)
	Preview(ctx context.Context, instructions string) (*contextmgr.Draft, error)
	Pins() []storage.Pin
	Pin(text string) (storage.Pin, error)
	Unpin(n int) (storage.Pin, error)
	Todos() []storage.Todo
}

// Model: the model requests go to, and those the server offers (/model).
type Model interface {
	Model() string
	SetModel(name string)
	ListModels(ctx context.Context) ([]string, error)
}

// Permissions: the policy in force, and the rules of this session and the
// project's file (/permissions, /status); the directories added to the
// project's (/add-dir).
type Permissions interface {
	Summary() tools.PermissionSummary
	SessionRules() []tools.Rule
	AddSessionRule(r tools.Rule)
	RemoveSessionRule(r tools.Rule) bool
	SaveProjectRule(r tools.Rule) error
	AddDir(dir string) (string, error)
	Dirs() []string
}

// Tasks: the kinds of subagent Task offers, and a new one (/agents).
type Tasks interface {
	Types() []agent.SubagentType
	Create(a agent.NewAgent) (string, error)
}

// Shells: the commands the model started in the background (/bashes,
// the status line): their list, one's output, stopping one.
type Shells interface {
	List() []tools.ShellInfo
	Output(id string) (tools.ShellInfo, string, error)
	Stop(id string) (tools.ShellInfo, error)
	Running() int
}

// Memory: the project's and the user's memories, and a suggestion asked of
// the model, kept pending (/memory, /memory suggest).
type Memory interface {
	Book() *memory.Book
	Suggest(ctx context.Context) ([]memory.Suggestion, error)
}

// Checkpoints: going back, and returning from a rewind. The Drift methods
// say which files the user changed after the agent's edit, which a
// restore would lose; Diff is every file Write and Edit changed in this
// session (/diff).
type Checkpoints interface {
	Diff(ctx context.Context) ([]checkpoint.FileDiff, error)
	UndoDrift(ctx context.Context) ([]checkpoint.Drift, error)
	Undo(ctx context.Context) ([]checkpoint.Restored, error)
	RewindPoints(ctx context.Context) ([]agent.RewindPoint, error)
	RewindDrift(ctx context.Context, pt agent.RewindPoint) ([]checkpoint.Drift, error)
	Rewind(ctx context.Context, pt agent.RewindPoint, restoreFiles bool) ([]checkpoint.Restored, error)
	ReturnPoint(ctx context.Context) (*agent.ReturnPoint, error)
	ReturnDrift(ctx context.Context, rp agent.ReturnPoint) ([]checkpoint.Drift, error)
	Return(ctx context.Context, rp agent.ReturnPoint, restoreFiles bool) ([]checkpoint.Restored, error)
}

// MCP: the configured MCP servers (/mcp, /status); Join offers the tools
// of those ready now from the next request on, so that /context counts
// what that request carries.
type MCP interface {
	Servers() []mcphost.Status
	Join(ctx context.Context)
}

// Skills: the Agent Skills offered, and the project's not offered
// (/skills).
type Skills interface {
	List() []skills.Skill
	Ignored() []skills.Skill
}

var (
	_ Skills      = (*agent.Skills)(nil)
	_ Sessions    = (*agent.Sessions)(nil)
	_ Context     = (*agent.Context)(nil)
	_ Model       = (*agent.Turns)(nil)
	_ Permissions = (*agent.Permissions)(nil)
	_ Tasks       = (*agent.Tasks)(nil)
	_ Shells      = (*agent.Shells)(nil)
	_ Memory      = (*agent.Memory)(nil)
	_ Checkpoints = (*agent.Checkpoints)(nil)
	_ MCP         = (*agent.MCP)(nil)
)

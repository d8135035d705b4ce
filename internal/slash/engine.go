package slash

import (
	"context"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/checkpoint"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/storage"
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

	// Memories is the project's and the user's memories (/memory);
	// SuggestMemory asks the model for a memory of this session, kept as
	// a pending suggestion (/memory suggest).
	Memories() *memory.Book
	SuggestMemory(ctx context.Context) ([]memory.Suggestion, error)

	// Going back and branching off. The Drift methods say which files the
	// user changed after the agent's edit, which a restore would lose.
	UndoDrift(ctx context.Context) ([]checkpoint.Drift, error)
	Undo(ctx context.Context) ([]checkpoint.Restored, error)
	RewindPoints(ctx context.Context) ([]agent.RewindPoint, error)
	RewindDrift(ctx context.Context, pt agent.RewindPoint) ([]checkpoint.Drift, error)
	Rewind(ctx context.Context, pt agent.RewindPoint, restoreFiles bool) ([]checkpoint.Restored, error)
	Fork(ctx context.Context, id, title string) (string, error)
	Handoff(ctx context.Context, instructions string) (*agent.HandoffResult, error)
}

var _ Engine = (*agent.Engine)(nil)

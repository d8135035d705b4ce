package acp

import (
	"context"
	"encoding/json"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/chat"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Engine is one session engine as the editor's session drives it: the
// parts it uses, each declared below as the interface of what is called
// of it, the commands, and how the engine ends. The command line builds
// it (Options.Open) and hands the parts out.
type Engine struct {
	Sessions Sessions
	Turns    Turns
	Modes    Modes
	Context  Context
	// Parts and Commands run the slash commands a prompt starts with.
	Parts    slash.Parts
	Commands *slash.Registry
	// Propose is the permission policy's rules an "always" would add for
	// a call (tools.Permissions.Propose), to name them to the user.
	Propose func(tool tools.Tool, input json.RawMessage) []tools.Rule
	// Close ends the engine: its commands, its session, its MCP servers.
	Close func() error
}

// Sessions: the id a session has, or will have once its first message
// creates it, and its live context to replay (*agent.Sessions).
type Sessions interface {
	ID() string
	NextID() string
	Live(ctx context.Context) (*storage.Live, error)
}

// Turns: a prompt run through the model, and the Notification hooks of
// a question put to the user (*agent.Turns).
type Turns interface {
	SubmitImages(ctx context.Context, text string, images []chat.Image, sink agent.Sink) (*agent.TurnResult, error)
	Model() string
	Notify(ctx context.Context, kind, message string)
}

// Modes: the permission mode, which the editor's mode menu shows and
// sets, and who answers the plans the model hands over in plan mode
// (*agent.Permissions).
type Modes interface {
	Mode() tools.Mode
	SetMode(m tools.Mode) bool
	SetPlanApprover(a agent.PlanApprover)
}

// Context: the context window's use and what the session spent, for the
// editor's meter (*agent.Context).
type Context interface {
	Usage() contextmgr.Usage
	Spend() contextmgr.Spend
}

var (
	_ Sessions = (*agent.Sessions)(nil)
	_ Turns    = (*agent.Turns)(nil)
	_ Modes    = (*agent.Permissions)(nil)
	_ Context  = (*agent.Context)(nil)
)

// OpenRequest is what the command line builds an engine from for an
// editor's session: the session's directory, the MCP servers the client
// adds to the project's own, the session to load ("" = a new one), and
// what the editor offers the tools — its permission questions, its
// buffers and its terminal (nil where the client does not offer them).
// Terminal is offered; the command line decides whether commands go
// there (not while the sandbox is on).
type OpenRequest struct {
	Cwd        string
	MCPServers []mcphost.ServerConfig
	Load       string

	Asker       tools.Asker
	TextReader  tools.TextReader
	TextWriter  tools.TextWriter
	Terminal    tools.Terminal
	WatchOutput func(ctx context.Context, chunk []byte)
}

package slash

// THIS FILE IS THE AGREED API SKETCH. The agent/slash helper replaces the
// bodies; one file per command plus a registry. The REPL and the CLI (-p
// with a slash prompt) compile against these signatures.

import (
	"context"
	"errors"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// ErrExit is returned by /exit: the front end leaves.
var ErrExit = errors.New("exit")

// Engine is what the commands need of the session engine (*agent.Engine).
type Engine interface {
	SessionID() string
	StartNew(ctx context.Context, title string) error
	Resume(ctx context.Context, id string) error
	Project() *storage.Project
	Context() *contextmgr.Manager
	Model() string
	SetModel(name string)
}

// Env is what a command runs with. Output goes to IO.Out (data) / IO.ErrOut.
type Env struct {
	Engine Engine
	IO     *iostreams.IOStreams
	// Pick lets the user choose one of sessions interactively; nil when not
	// interactive (then /resume lists instead of asking).
	Pick func(ctx context.Context, sessions []storage.SessionInfo) (id string, err error)
}

// Command is one slash command.
type Command struct {
	Name    string // without the slash
	Args    string // usage of the arguments, e.g. "[instructions]"
	Summary string
	Run     func(ctx context.Context, env *Env, args string) error
}

// Registry holds the commands.
type Registry struct{}

// Default returns the registry of the contract's commands.
func Default() *Registry { panic("unimplemented") }

// Commands lists the commands in /help order.
func (r *Registry) Commands() []Command { panic("unimplemented") }

// Parse splits "/name args" (ok=false if line is not a slash command).
func Parse(line string) (name, args string, ok bool) { panic("unimplemented") }

// Run parses and runs line; unknown commands are an error naming /help.
func (r *Registry) Run(ctx context.Context, env *Env, line string) error { panic("unimplemented") }

package repl

// THIS FILE IS THE AGREED API SKETCH. The REPL helper replaces the bodies.

import (
	"context"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Options configure the interactive session.
type Options struct {
	IO          *iostreams.IOStreams
	Engine      *agent.Engine
	Commands    *slash.Registry
	HistoryPath string // $CLAWDCODE_HOME/history
	FirstPrompt string // positional prompt, sent as the first message
}

// Run is the REPL: it returns nil on /exit, Ctrl-D or a second Ctrl-C.
func Run(ctx context.Context, opts Options) error { panic("unimplemented") }

// NewAsker returns the TTY permission prompt (allow once / always / deny).
func NewAsker(io *iostreams.IOStreams) tools.Asker { panic("unimplemented") }

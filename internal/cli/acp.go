package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/clawdcode/clawdcode/internal/acp"
	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/buildinfo"
	"github.com/clawdcode/clawdcode/internal/config"
	"github.com/clawdcode/clawdcode/internal/sandbox"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// acpOptions is `clawdcode acp`'s invocation: the engine's flags, as the
// root command takes them, resolved again for each session's directory.
type acpOptions struct {
	base RootOptions
	raw  rootFlagValues
	in   rootFlags
}

// NewCmdACP builds `clawdcode acp`: the Agent Client Protocol on stdin
// and stdout, for editors (CONTRACT.md section 14).
func NewCmdACP(f *Factory, runF func(context.Context, *acpOptions) error) *cobra.Command {
	opts := &acpOptions{base: RootOptions{OutputFormat: FormatText}}
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve editors over the Agent Client Protocol (stdin/stdout)",
		Long: `Run clawdcode as an Agent Client Protocol agent: JSON-RPC 2.0 on stdin and
stdout, protocol version 1, for Zed, JetBrains IDEs, Neovim (CodeCompanion)
and Emacs (agent-shell). An editor starts it; see docs/editors.md for each
one's configuration. Sessions started this way are ordinary sessions of their
project: clawdcode sessions list shows them, -c and -r continue them.

The flags set every session's engine as they set the REPL's; each session
reads the configuration of its own directory (the editor's project).`,
		Example: `  clawdcode acp
  clawdcode acp --model gpt-4.1 --permission-mode acceptEdits`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.in = opts.raw.rootFlags(cmd.Flags(), &opts.base)
			// Validate the flags once, before anything is served.
			probe := opts.base
			f.trustProject = f.projectTrust(cmd.Context(), probe.TrustProject, false)
			if err := probe.resolve(f, opts.in); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return acpRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().SortFlags = false
	opts.raw.registerEngine(cmd, &opts.base)
	cmd.Flags().Lookup("max-turns").Usage = "bound on model calls of one prompt (0 = none)"
	return cmd
}

// acpRun serves the protocol until the editor closes stdin or a signal
// ends the run. stdout is the protocol's alone: the process's own fd 1
// is pointed at stderr first, so that nothing else (a library, a child
// that inherits it) can write a stray line into the protocol.
func acpRun(ctx context.Context, f *Factory, opts *acpOptions) error {
	out, err := protocolOut(f.IO.Out)
	if err != nil {
		return err
	}
	warn := warnTo(f.IO.ErrOut)
	return acp.Serve(ctx, acp.Options{
		In:      f.IO.In,
		Out:     out,
		Version: buildinfo.Version,
		Logger:  f.Logger(),
		Warn:    warn,
		Open: func(ctx context.Context, req acp.OpenRequest) (*acp.Engine, error) {
			return openACPEngine(ctx, f, opts, req)
		},
		List: func(_ context.Context, cwd string) ([]storage.SessionInfo, error) {
			p, err := f.forDir(cwd).Project()
			if err != nil {
				return nil, err
			}
			return p.List()
		},
	})
}

// protocolOut takes the process's stdout for the protocol: a descriptor
// of its own, with fd 1 then pointed at stderr. A stdout that is not the
// process's (a test's buffer) is used as it is.
func protocolOut(w io.Writer) (io.Writer, error) {
	file, ok := w.(*os.File)
	if !ok || file.Fd() != 1 {
		return w, nil
	}
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("take stdout for the protocol: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("take stdout for the protocol: %w", err)
	}
	return os.NewFile(uintptr(fd), "stdout"), nil
}

// openACPEngine builds a session's engine as the REPL builds its own, in
// the session's directory, with what the editor offers the tools.
func openACPEngine(ctx context.Context, f *Factory, opts *acpOptions, req acp.OpenRequest) (*acp.Engine, error) {
	sub := f.forDir(req.Cwd)
	// Nobody can answer the project file's trust question here: it goes
	// by the answer on record, or --trust-project, as -p does.
	sub.trustProject = sub.projectTrust(ctx, opts.base.TrustProject, false)
	o := opts.base
	if err := o.resolve(sub, opts.in); err != nil {
		return nil, err
	}
	o.Resume = req.Load
	sub.extraMCP = req.MCPServers
	sub.engineExtras = func(c *agent.Config) {
		c.TextReader, c.TextWriter, c.WatchOutput = req.TextReader, req.TextWriter, req.WatchOutput
		if cfg, err := sub.Config(); err == nil && req.Terminal != nil && commandsInTerminal(cfg) {
			c.Terminal = req.Terminal
		}
	}
	perms, err := sub.Permissions(&o, req.Asker)
	if err != nil {
		return nil, err
	}
	eng, err := openEngine(ctx, sub, &o, req.Asker, true, true)
	if err != nil {
		return nil, err
	}
	return &acp.Engine{
		Sessions: eng.Sessions(),
		Turns:    eng.Turns(),
		Modes:    eng.Permissions(),
		Context:  eng.Context(),
		Parts:    slash.PartsOf(eng),
		Commands: sub.Commands(),
		Propose:  perms.Propose,
		Close: func() error {
			err := eng.Close()
			sub.closeSandbox()
			sub.finishAutoSync()
			noteSuggestions(f.IO.ErrOut, eng.Memory())
			return err
		},
	}, nil
}

// commandsInTerminal decides whether Bash's commands run in the editor's
// terminal (when it offers one): only with the sandbox off (CONTRACT.md
// section 13), when they would run as the user does here anyway. With it
// on they run sandboxed here, their output streamed to the editor as the
// call's content (Engine's WatchOutput), since the editor's terminal is
// no sandbox.
func commandsInTerminal(cfg *config.Config) bool { return cfg.Sandbox.Mode == sandbox.Off }

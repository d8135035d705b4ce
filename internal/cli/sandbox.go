package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/clawdcode/clawdcode/internal/config"
	"github.com/clawdcode/clawdcode/internal/sandbox"
	"github.com/clawdcode/clawdcode/internal/tools"
	"github.com/spf13/cobra"
)

// Sandbox is the run's sandbox for commands (CONTRACT §13), built once
// from the configuration. perms, the run's policy (nil for `clawdcode
// sandbox`: the configuration's rules), says whether plan mode is on and
// which hosts its WebFetch(domain:…) rules allow.
func (f *Factory) Sandbox(perms *tools.Permissions) (*sandbox.Sandbox, error) {
	return f.sandbox.get(func() (*sandbox.Sandbox, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		p, err := f.Project()
		if err != nil {
			return nil, err
		}
		home, err := f.HomeDir()
		if err != nil {
			return nil, err
		}
		if perms == nil {
			perms = tools.NewPermissions(tools.PermissionsConfig{Root: p.Root, Allow: cfg.Allow, Deny: cfg.Deny})
		}
		userHome, _ := os.UserHomeDir()
		sc := cfg.Sandbox
		source := sc.ModeSource
		if source == config.SourceDefault || source == "" {
			source = "the default"
		}
		return sandbox.New(sandbox.Config{
			Mode:         sc.Mode,
			Source:       source,
			Root:         p.Root,
			Home:         home,
			Writable:     append(sandbox.Resolve(sc.Writable, userHome, p.Root), f.addDirs...),
			DenyRead:     sandbox.Resolve(sc.DenyRead, userHome, p.Root),
			Network:      sc.Network,
			AllowDomains: sc.AllowDomains,
			AllowHost:    perms.AllowsHost,
			DenyHost:     perms.DeniesHost,
			Plan:         func() bool { return perms.Mode() == tools.ModePlan },
			Warn:         warnTo(f.IO.ErrOut),
		}), nil
	})
}

// closeSandbox ends the sandbox's hosts, if any started.
func (f *Factory) closeSandbox() {
	f.sandbox.once.Do(func() {}) // nothing is built after this
	if sb := f.sandbox.v; sb != nil {
		sb.Close()
	}
}

// SandboxOptions is `clawdcode sandbox`'s invocation.
type SandboxOptions struct {
	// Mode is --mode, nil when not given (the configuration's).
	Mode *string
	Argv []string
}

// NewCmdSandbox builds `clawdcode sandbox [--mode M] -- CMD…`: one
// command run exactly as the agent's are (the same sandbox, environment
// and process handling), its status the exit status.
func NewCmdSandbox(f *Factory, runF func(context.Context, *SandboxOptions) error) *cobra.Command {
	opts := &SandboxOptions{}
	var mode string
	cmd := &cobra.Command{
		Use:   "sandbox [--mode M] -- CMD...",
		Short: "Run one command inside the sandbox the agent's commands get",
		Long: `Run one command inside the sandbox the agent's commands run in (the
configuration's [sandbox], or --mode), with the environment they get,
and exit with its status. A line starting "sandbox:" on stderr names what
the sandbox refused it. /status shows the sandbox in force.`,
		Example: `  clawdcode sandbox -- sh -c 'touch ~/x'
  clawdcode sandbox --mode read-only -- go test ./...`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("mode") {
				opts.Mode = &mode
			}
			opts.Argv = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sandboxRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&mode, "mode", "", "read-only, workspace-write or off (default: the configuration's, else workspace-write)")
	_ = cmd.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions(
		[]string{"read-only", "workspace-write", "off"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func sandboxRun(ctx context.Context, f *Factory, opts *SandboxOptions) error {
	if opts.Mode != nil {
		if _, err := sandbox.ParseMode(*opts.Mode); err != nil {
			return usageErrorf("invalid --mode: %v", err)
		}
	}
	if _, err := f.ResolveConfig(config.Flags{Sandbox: opts.Mode}); err != nil {
		return err
	}
	sb, err := f.Sandbox(nil)
	if err != nil {
		return err
	}
	p, err := f.Project()
	if err != nil {
		return err
	}
	cfg, _ := f.Config()
	env := tools.NewEnv(p.Root)
	env.PassEnv, env.SecretEnv = cfg.EnvPassthrough, []string{cfg.APIKeyEnv}
	argv0, err := exec.LookPath(opts.Argv[0])
	if err != nil {
		return &UsageError{Err: fmt.Errorf("sandbox: %w", err)}
	}
	if argv0, err = absPath(argv0); err != nil {
		return err
	}
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	if sb.Mode() != sandbox.Off {
		sb.Contained() // says once, on stderr, when the system offers no sandbox
	}
	// What it says on stderr is kept too, for the notes.
	stderr := tools.NewCappedBuffer(64 << 10)
	proc, err := sb.Start(sandbox.Command{
		Argv: append([]string{argv0}, opts.Argv[1:]...), Env: env.CommandEnv(), Dir: dir,
		Output: f.IO.Out, Stderr: io.MultiWriter(f.IO.ErrOut, stderr), OutputGrace: pipeGraceSandbox,
	})
	if err != nil {
		return err
	}
	ws, err := waitOrKill(ctx, proc)
	if err != nil {
		return err
	}
	for _, n := range proc.Notes(stderr.String()) {
		fmt.Fprintln(f.IO.ErrOut, n)
	}
	switch {
	case ws.Signaled():
		return &exitStatus{code: 128 + int(ws.Signal())}
	case ws.ExitStatus() != 0:
		return &exitStatus{code: ws.ExitStatus()}
	}
	return nil
}

// pipeGraceSandbox bounds the wait for the command's output once it has
// exited (a job it left in the background may hold the pipes).
const pipeGraceSandbox = 2 * time.Second

// waitOrKill waits for the command; an interrupt ends its process group
// (SIGTERM, then SIGKILL after a grace) and is the error.
func waitOrKill(ctx context.Context, proc *sandbox.Process) (syscall.WaitStatus, error) {
	select {
	case <-proc.Done():
		return proc.Wait()
	case <-ctx.Done():
	}
	if proc.Pid > 0 {
		_ = syscall.Kill(-proc.Pid, syscall.SIGTERM)
		select {
		case <-proc.Done():
		case <-time.After(pipeGraceSandbox):
			_ = syscall.Kill(-proc.Pid, syscall.SIGKILL)
			<-proc.Done()
		}
	}
	return 0, context.Cause(ctx)
}

func absPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	return abs, nil
}

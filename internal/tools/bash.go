package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/clawdcode/clawdcode/internal/sandbox"
	"github.com/clawdcode/clawdcode/internal/secrets"
)

const (
	bashDefaultTimeout = 120 * time.Second
	bashMaxTimeout     = 600 * time.Second
	// killGrace is how long a timed-out or cancelled command gets between
	// SIGTERM and SIGKILL to clean up (remove temp files, flush output).
	killGrace = 2 * time.Second
	killPoll  = 20 * time.Millisecond
	// pipeGrace bounds the wait for output after the shell exits: a
	// background job that keeps the output pipe open must not hold the call.
	pipeGrace = 2 * time.Second
)

// bashParams are Bash's parameters (see params.go). Timeout is a pointer:
// absent means the default, 0 is a mistake the model is told about.
type bashParams struct {
	Command string `json:"command" param:"text" jsonschema:"The command line to run, e.g. \"go test ./...\"."`
	Timeout *int   `json:"timeout,omitempty" param:"min=1,max=600000" jsonschema:"Timeout in milliseconds (default 120000, max 600000)."`
	// RunInBackground starts the command and returns at once (background.go).
	RunInBackground bool `json:"run_in_background,omitempty" jsonschema:"Return at once with an id for BashOutput and KillShell; no timeout applies."`
	// Sandbox false runs the command outside the sandbox (sandboxed.go).
	Sandbox *bool `json:"sandbox,omitempty" jsonschema:"false: run outside the sandbox, after the user agrees; only when the sandbox refused something the task needs."`
}

// outside reports whether the call asked to run outside the sandbox.
func (p bashParams) outside() bool { return p.Sandbox != nil && !*p.Sandbox }

func newBashTool(env *Env) *tool {
	return typed(&tool{
		name: NameBash,
		description: "Run a shell command with bash in the project root and return its combined stdout and stderr. " +
			"Use it for builds, tests, git and other programs; prefer Read, Edit, Write, Glob and Grep for files. " +
			"stdin is empty (interactive programs will not get input). Each call runs in a fresh shell: " +
			"`cd` and variables do not carry over, so chain commands with && when needed. " +
			"Background jobs (`cmd &`) keep running after the call; redirect their output to a file. " +
			"The timeout defaults to 120000 ms (2 minutes), at most 600000 ms; on timeout the command and " +
			"everything it started are killed. A non-zero exit status is reported as an error with the output. " +
			"Long output keeps its beginning and end. " +
			"run_in_background: true is for servers and watchers: it runs until it exits, KillShell, or the session ends. " +
			"Commands run in a sandbox: they write only inside the project and the temporary directory (never .git/config, " +
			".git/hooks/ or .clawdcode/) and reach only allowed hosts, through the proxy in HTTPS_PROXY; a line starting " +
			"\"sandbox:\" in the result names what it refused.",
		permission: true,
	}, env.runBash, func(p bashParams) string { return strings.TrimSpace(p.Command) })
}

func (e *Env) runBash(ctx context.Context, p bashParams) Result {
	if p.RunInBackground {
		return e.runBackground(p.Command, p.outside())
	}
	ms := 0
	if p.Timeout != nil {
		ms = *p.Timeout
	}
	timeout, err := bashTimeout(ms, p.Timeout != nil)
	if err != nil {
		return fail("invalid arguments: %v", err)
	}
	if t := e.terminal(); t != nil {
		return e.runInTerminal(ctx, t, p.Command, timeout)
	}
	return e.execShell(ctx, p.Command, p.outside(), timeout, OutputCap)
}

// bashTimeout is how long a call may run: bashDefaultTimeout when the
// model gave no timeout, else its milliseconds, clamped to bashMaxTimeout
// rather than refused (a model asking for an hour gets the most allowed).
func bashTimeout(ms int, given bool) (time.Duration, error) {
	if !given {
		return bashDefaultTimeout, nil
	}
	if ms <= 0 {
		return 0, fmt.Errorf("timeout must be a positive number of milliseconds, got %d", ms)
	}
	return min(time.Duration(ms)*time.Millisecond, bashMaxTimeout), nil
}

// execShell runs command and renders the outcome. It always returns once
// the shell has exited, or once its group was killed after timeout or
// cancellation, even if a stray descendant keeps the output pipe open.
func (e *Env) execShell(ctx context.Context, command string, outside bool, timeout time.Duration, limit int) Result {
	out := NewCappedBuffer(limit)
	proc, err := e.startShell(command, e.watched(ctx, out), outside)
	if err != nil {
		return fail("%v", err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopped string
	select {
	case <-proc.exited:
	case <-timer.C:
		stopped = fmt.Sprintf("command timed out after %s and was killed", timeout)
		proc.kill()
	case <-ctx.Done():
		stopped = "command was interrupted and killed"
		proc.kill()
	}

	text := withNotes(out.String(), proc.notes(out.String()))
	if stopped != "" {
		return Result{Output: text, Error: stopped}
	}
	if status := proc.status(); status != "" {
		return Result{Output: text, Error: status}
	}
	if text == "" {
		text = "(no output)"
	}
	return Result{Output: text}
}

// process is a shell command started in its own process group, in the
// foreground (execShell) or the background (backgroundShells): inside the
// sandbox (sb), or, without one, as a plain child process.
type process struct {
	pid    int             // the shell's, which is also its group's id (0: unknown, it had ended)
	shown  int             // the shell's pid as commands beside it see it
	exited <-chan struct{} // closed once the shell has exited and its output is in
	err    error           // cmd.Wait's answer, set before exited is closed
	sb     *sandbox.Process
}

// startShell starts command with its stdout and stderr both going to out:
// through the sandbox when the Env has one (outside it when outside is
// set, as Bash {"sandbox": false} asks), else as a plain child process.
func (e *Env) startShell(command string, out io.Writer, outside bool) (*process, error) {
	if e.Sandbox != nil {
		sp, err := e.Sandbox.Start(sandbox.Command{
			Argv: []string{e.shell, "-c", command}, Env: e.commandEnv(os.Environ()), Dir: e.Root,
			Output: out, Outside: outside, OutputGrace: pipeGrace,
		})
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", e.shell, err)
		}
		return &process{pid: sp.Pid, shown: sp.Shown, exited: sp.Done(), sb: sp}, nil
	}
	cmd := exec.Command(e.shell, "-c", command)
	cmd.Dir = e.Root
	// Same writer for both: exec then hands the child one pipe as fd 1 and 2,
	// so stdout and stderr interleave exactly as the command wrote them.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Stdin = nil // /dev/null: the terminal belongs to the user
	cmd.Env = e.commandEnv(os.Environ())
	// A new session: its own process group (so the whole tree can be
	// signalled) and no controlling terminal (so nothing can open /dev/tty
	// and read the user's keystrokes or stop on SIGTTIN).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.WaitDelay = pipeGrace
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", e.shell, err)
	}
	done := make(chan struct{})
	p := &process{pid: cmd.Process.Pid, shown: cmd.Process.Pid, exited: done}
	go func() {
		p.err = cmd.Wait()
		close(done)
	}()
	return p, nil
}

// kill ends the process group (killGroup) and returns once the shell has
// exited.
func (p *process) kill() { killGroup(p.pid, p.exited) }

// status is how the shell ended, once exited is closed: "" for success,
// else "exit status N" or what killed it.
func (p *process) status() string {
	if p.sb != nil {
		ws, err := p.sb.Wait()
		if err != nil {
			return fmt.Sprintf("run command: %v", err)
		}
		return waitDescription(ws)
	}
	var exitErr *exec.ExitError
	switch {
	case p.err == nil, errors.Is(p.err, exec.ErrWaitDelay):
		// ErrWaitDelay: the shell succeeded but a background job kept the
		// pipe open; the command itself is done.
		return ""
	case errors.As(p.err, &exitErr):
		return exitDescription(exitErr)
	default:
		return fmt.Sprintf("run command: %v", p.err)
	}
}

// killGroup stops the process group led by pid: SIGTERM to every member,
// then SIGKILL to whatever is left once the grace is over. The grace is for
// the whole group, not just the shell: a test runner's children get their
// chance to clean up even though the shell itself dies at once. It returns
// once the group is gone or was sent SIGKILL, and exited (the shell's) is
// closed.
func killGroup(pid int, exited <-chan struct{}) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	deadline := time.Now().Add(killGrace)
	tick := time.NewTicker(killPoll)
	defer tick.Stop()
	wait, gone := exited, false
	for !time.Now().After(deadline) {
		select {
		case <-wait:
			wait, gone = nil, true // a nil channel is never ready again
		case <-tick.C:
		}
		if gone && errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH) {
			return // the group is gone: nothing left to kill
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-exited // prompt now: the shell is dead and WaitDelay bounds the pipes
}

func exitDescription(err *exec.ExitError) string {
	if ws, ok := err.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("command killed by signal %s", ws.Signal())
	}
	return fmt.Sprintf("exit status %d", err.ExitCode())
}

// waitDescription is exitDescription for a wait status: "" for success.
func waitDescription(ws syscall.WaitStatus) string {
	switch {
	case ws.Signaled():
		return fmt.Sprintf("command killed by signal %s", ws.Signal())
	case ws.ExitStatus() != 0:
		return fmt.Sprintf("exit status %d", ws.ExitStatus())
	}
	return ""
}

// commandEnv is the environment a command runs with: the user's without
// the credentials (secrets.ChildEnv: clawdcode's own API key would
// otherwise be one `env` away from the model, and from there in the
// session file), plus settings that keep programs from waiting on a
// terminal.
func (e *Env) commandEnv(environ []string) []string {
	env := secrets.ChildEnv(environ, e.PassEnv, e.SecretEnv)
	return append(env,
		"GIT_TERMINAL_PROMPT=0", // git would otherwise ask for credentials on /dev/tty
		"GIT_PAGER=cat", "PAGER=cat",
	)
}

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

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
}

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
			"Long output keeps its beginning and end.",
		permission: true,
	}, env.runBash, func(p bashParams) string { return strings.TrimSpace(p.Command) })
}

func (e *Env) runBash(ctx context.Context, p bashParams) Result {
	ms := 0
	if p.Timeout != nil {
		ms = *p.Timeout
	}
	timeout, err := bashTimeout(ms, p.Timeout != nil)
	if err != nil {
		return fail("invalid arguments: %v", err)
	}
	return e.execShell(ctx, p.Command, timeout, OutputCap)
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
func (e *Env) execShell(ctx context.Context, command string, timeout time.Duration, limit int) Result {
	out := NewCappedBuffer(limit)
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
		return fail("start %s: %v", e.shell, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
	var stopped string
	select {
	case waitErr = <-done:
	case <-timer.C:
		stopped = fmt.Sprintf("command timed out after %s and was killed", timeout)
		waitErr = killGroup(cmd.Process.Pid, done)
	case <-ctx.Done():
		stopped = "command was interrupted and killed"
		waitErr = killGroup(cmd.Process.Pid, done)
	}

	text := out.String()
	if stopped != "" {
		return Result{Output: text, Error: stopped}
	}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil, errors.Is(waitErr, exec.ErrWaitDelay):
		// ErrWaitDelay: the shell succeeded but a background job kept the
		// pipe open; the command itself is done.
		if text == "" {
			text = "(no output)"
		}
		return Result{Output: text}
	case errors.As(waitErr, &exitErr):
		return Result{Output: text, Error: exitDescription(exitErr)}
	default:
		return Result{Output: text, Error: fmt.Sprintf("run command: %v", waitErr)}
	}
}

// killGroup stops the process group led by pid: SIGTERM to every member,
// then SIGKILL to whatever is left once the grace is over. The grace is for
// the whole group, not just the shell: a test runner's children get their
// chance to clean up even though the shell itself dies at once.
func killGroup(pid int, done <-chan error) error {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	deadline := time.Now().Add(killGrace)
	tick := time.NewTicker(killPoll)
	defer tick.Stop()
	var err error
	exited := false
	for {
		select {
		case err = <-done:
			exited, done = true, nil // a nil channel is never ready again
		case <-tick.C:
		}
		if exited && errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH) {
			return err // the group is gone: nothing left to kill
		}
		if time.Now().After(deadline) {
			break
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	if !exited {
		err = <-done // prompt now: the shell is dead and WaitDelay bounds the pipes
	}
	return err
}

func exitDescription(err *exec.ExitError) string {
	if ws, ok := err.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("command killed by signal %s", ws.Signal())
	}
	return fmt.Sprintf("exit status %d", err.ExitCode())
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

package tools

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Terminal runs a Bash call's command in a terminal the user watches, an
// editor's (the Agent Client Protocol's terminal/*), in place of a shell
// of this process: the editor shows the output live and the command runs
// in the editor's environment. Only commands in the foreground go there;
// one started with run_in_background stays this process's, for
// BashOutput and KillShell.
//
// Run returns once the command ended, was killed at cmd.Timeout, or ctx
// was cancelled (the command then killed as well); its error is the
// terminal's own failure (the editor refused or went away), not the
// command's.
type Terminal interface {
	Run(ctx context.Context, cmd TerminalCommand) (TerminalResult, error)
}

// TerminalCommand is a command line to run in a Terminal.
type TerminalCommand struct {
	// Shell runs Line: Shell -c Line.
	Shell, Line string
	// Dir is the working directory (the project root).
	Dir string
	// Env are NAME=VALUE settings added to the terminal's environment:
	// those that keep programs from waiting on a terminal that nobody
	// types in.
	Env []string
	// Timeout is when the command is killed; OutputLimit the output
	// bytes kept (the end, when there are more).
	Timeout     time.Duration
	OutputLimit int
}

// TerminalResult is how a command in a Terminal ended.
type TerminalResult struct {
	Output    string
	Truncated bool // output was lost at its start (over OutputLimit)
	// ExitCode is the command's exit status, nil when a signal ended it
	// (Signal names it) or it was killed at its timeout (TimedOut).
	ExitCode *int
	Signal   string
	TimedOut bool
}

// UseTerminal makes Bash run its foreground commands in t (nil: in this
// process's shells again).
func (e *Env) UseTerminal(t Terminal) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.term = t
}

// WatchOutput makes fn receive a foreground Bash command's output as the
// command writes it, with the call's ctx (CallID names the call): a
// front end shows a running command's output (an editor's tool call
// content). fn is called from the goroutine copying the output, so it
// must not block; nil stops it.
func (e *Env) WatchOutput(fn func(ctx context.Context, chunk []byte)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.watch = fn
}

// terminal is the Terminal in use, nil for this process's shells.
func (e *Env) terminal() Terminal {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.term
}

// watched is out, or out and the WatchOutput function when one is set.
func (e *Env) watched(ctx context.Context, out io.Writer) io.Writer {
	e.mu.Lock()
	fn := e.watch
	e.mu.Unlock()
	if fn == nil {
		return out
	}
	return io.MultiWriter(out, watchWriter{ctx: ctx, fn: fn})
}

// watchWriter hands each write to a WatchOutput function.
type watchWriter struct {
	ctx context.Context
	fn  func(context.Context, []byte)
}

func (w watchWriter) Write(p []byte) (int, error) {
	w.fn(w.ctx, p)
	return len(p), nil
}

// runInTerminal is Bash's foreground run in t, its outcome said as
// execShell says one of this process's commands.
func (e *Env) runInTerminal(ctx context.Context, t Terminal, command string, timeout time.Duration) Result {
	res, err := t.Run(ctx, TerminalCommand{
		Shell: e.shell, Line: command, Dir: e.Root,
		Env:     []string{"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat"},
		Timeout: timeout, OutputLimit: OutputCap,
	})
	switch {
	case ctx.Err() != nil:
		return Result{Output: res.Output, Error: "command was interrupted and killed"}
	case err != nil:
		return fail("run the command in the editor's terminal: %v", err)
	}
	text := res.Output
	if res.Truncated {
		text = fmt.Sprintf("(the output's beginning is cut: only its last %d bytes are kept)\n", OutputCap) + text
	}
	switch {
	case res.TimedOut:
		return Result{Output: text, Error: fmt.Sprintf("command timed out after %s and was killed", timeout)}
	case res.Signal != "":
		return Result{Output: text, Error: "command killed by signal " + res.Signal}
	case res.ExitCode != nil && *res.ExitCode != 0:
		return Result{Output: text, Error: fmt.Sprintf("exit status %d", *res.ExitCode)}
	}
	if text == "" {
		text = "(no output)"
	}
	return Result{Output: text}
}

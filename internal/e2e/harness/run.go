package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"testing"
	"time"
)

// Result is a finished process as a test sees it.
type Result struct {
	Stdout, Stderr string
	// Code is the exit status: -1 for a process ended by a signal, which
	// is also what a deadline of exec.CommandContext does.
	Code int
}

// Run runs cmd to completion, collecting its stdout and stderr (which must
// not be set). An exit status other than zero is not an error: it is
// Result.Code. The error is for a process that could not be started or
// waited for; the output collected so far is returned with it. Run does not
// tell a deadline from any other kill: the caller, who owns the context,
// asks it.
func Run(cmd *exec.Cmd) (Result, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		return r, err
	}
	return r, nil
}

// String is the whole of r, for a failure message.
func (r Result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.Code, r.Stdout, r.Stderr)
}

// Command is binary with args, started in dir with env (and nothing else).
// A killed process's pipes are waited for at most 5 s, so that a
// grandchild holding them open cannot hang the test.
func Command(ctx context.Context, binary, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Wait is Run for a test: cmd, made with exec.CommandContext(ctx, ...),
// runs to completion, and tb fails if ctx ended first or cmd could not run.
func Wait(tb testing.TB, ctx context.Context, cmd *exec.Cmd) Result {
	tb.Helper()
	r, err := Run(cmd)
	if ctx.Err() != nil {
		tb.Fatalf("clawdcode %q did not finish within its deadline\n%s", cmd.Args[1:], r)
	}
	if err != nil {
		tb.Fatalf("run clawdcode %q: %v", cmd.Args[1:], err)
	}
	return r
}

package tools

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTerminal answers each command with its next result and keeps what
// it was asked to run.
type fakeTerminal struct {
	mu      sync.Mutex
	ran     []TerminalCommand
	results []TerminalResult
	err     error
}

func (f *fakeTerminal) Run(_ context.Context, cmd TerminalCommand) (TerminalResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, cmd)
	if f.err != nil {
		return TerminalResult{}, f.err
	}
	res := f.results[0]
	f.results = f.results[1:]
	return res, nil
}

func exitCode(n int) *int { return &n }

// Bash in a terminal: the command runs there, in the project root, with
// the call's timeout, and its outcome reads as a local command's does.
func TestBashRunsInTheTerminal(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	term := &fakeTerminal{results: []TerminalResult{
		{Output: "ok\n", ExitCode: exitCode(0)},
		{Output: "FAIL\n", ExitCode: exitCode(1)},
		{Output: "tail", Truncated: true, ExitCode: exitCode(0)},
		{TimedOut: true},
		{Signal: "SIGKILL"},
	}}
	env.UseTerminal(term)
	r := call(t, env, NameBash, obj{"command": "go test ./...", "timeout": 5000})
	wantOK(t, r)
	if r.Output != "ok\n" {
		t.Fatalf("output %q", r.Output)
	}
	got := term.ran[0]
	if got.Line != "go test ./..." || got.Dir != env.Root || got.Timeout != 5*time.Second || got.Shell == "" || got.OutputLimit != OutputCap {
		t.Fatalf("the terminal was asked to run %+v", got)
	}
	wantError(t, call(t, env, NameBash, obj{"command": "false"}), "exit status 1")
	if r := call(t, env, NameBash, obj{"command": "yes"}); !strings.HasPrefix(r.Output, "(the output's beginning is cut") {
		t.Fatalf("truncated output reads %q", r.Output)
	}
	wantError(t, call(t, env, NameBash, obj{"command": "sleep 1000"}), "timed out after 2m0s")
	wantError(t, call(t, env, NameBash, obj{"command": "kill -9 $$"}), "killed by signal SIGKILL")

	// A command in the background stays this process's.
	r = call(t, env, NameBash, obj{"command": "echo bg", "run_in_background": true})
	wantOK(t, r)
	if len(term.ran) != 5 {
		t.Fatalf("the background command went to the terminal: %+v", term.ran[len(term.ran)-1])
	}
	env.StopBackground()
}

// A terminal that fails (the editor refused) is a failed call naming it.
func TestBashTerminalFailure(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	env.UseTerminal(&fakeTerminal{err: errors.New("terminal/create: no such session")})
	wantError(t, call(t, env, NameBash, obj{"command": "ls"}), "editor's terminal", "no such session")
}

// WatchOutput sees a local command's output as it is written, with the
// call's id.
func TestBashOutputIsWatched(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	var (
		mu   sync.Mutex
		seen strings.Builder
		ids  = map[string]bool{}
	)
	env.WatchOutput(func(ctx context.Context, chunk []byte) {
		mu.Lock()
		defer mu.Unlock()
		seen.Write(chunk)
		ids[CallID(ctx)] = true
	})
	r := callCtx(t, WithCallID(context.Background(), "call_b"), env, NameBash, obj{"command": "echo one; echo two >&2"})
	wantOK(t, r)
	mu.Lock()
	defer mu.Unlock()
	if seen.String() != "one\ntwo\n" || !ids["call_b"] || len(ids) != 1 {
		t.Fatalf("watched %q with call ids %v", seen.String(), ids)
	}
}

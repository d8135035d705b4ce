// Package cli is clawdcode's command line: cobra commands built by
// constructors (no package state), flag and environment resolution into the
// engine's configuration, the -p output formats, the sessions commands, and
// the one mapping from errors to exit statuses (Describe).
//
// Exit statuses follow CONTRACT.md section 1: 0 success, 1 runtime error,
// 2 usage error, 130 interrupted. Every error is printed once, to stderr, as
// "clawdcode: <message>" plus at most a few hint lines; data goes to stdout.
package cli

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/sandbox"
	"github.com/clawdcode/clawdcode/internal/secrets"
)

// Main runs clawdcode with the process's arguments and streams and returns
// the exit status.
func Main() int {
	// A sandbox host is clawdcode run by itself (internal/sandbox): one
	// comparison of an argument decides, before anything else runs.
	if code, ok := sandbox.Helper(); ok {
		return code
	}
	// First of all, before any goroutine of ours exists: Protect may
	// re-execute the process to take the credentials out of its /proc
	// environment, where every tool's child could read them.
	protectErr := secrets.Protect()
	startingHeap()
	f := NewFactory(iostreams.System())
	if protectErr != nil {
		warnTo(f.IO.ErrOut)(protectErr.Error() + "; a tool's command may be able to read the API key from clawdcode's environment")
	}
	ctx, stop := withSignals(context.Background(), f)
	defer stop()
	return Run(ctx, f, os.Args[1:])
}

// Run executes one command line and returns its exit status, having printed
// any error to f.IO.ErrOut. Tests call it in-process.
func Run(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(resumeArgs(args))
	_, err := root.ExecuteContextC(ctx)
	// The commands' sandbox hosts end with the run (the process's exit
	// would end them too; a test's in-process run does not exit).
	f.closeSandbox()
	f.finishAutoSync()
	f.stopTelemetry()
	failure := Describe(f.endpointHint(err), context.Cause(ctx))
	// A server's error may quote the key (a careless proxy's 401): the
	// line may end up in a CI log, so it goes out redacted too.
	failure.Message = f.redactString(failure.Message)
	for i, h := range failure.Hints {
		failure.Hints[i] = f.redactString(h)
	}
	failure.Print(f.IO.ErrOut)
	f.printIndexWarning(err)
	return failure.Code
}

// withSignals cancels the returned context (cause errInterrupted) on the
// first SIGINT, SIGTERM or SIGHUP, and exits at once with 130 on the
// second, for a run that does not stop in time. Once the REPL owns Ctrl-C,
// SIGINT is left to it (it cancels only the current turn). SIGHUP — the
// terminal was closed — is a SIGTERM: by default it would kill clawdcode
// on the spot, leaving a running command (in its own session, so the
// hangup never reaches it) behind and the turn unrecorded.
func withSignals(parent context.Context, f *Factory) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		received := 0
		for {
			select {
			case <-done:
				return
			case s := <-sigs:
				if s == os.Interrupt && f.replOwnsInterrupt.Load() {
					continue
				}
				received++
				if received > 1 {
					os.Exit(ExitInterrupted)
				}
				cancel(errInterrupted)
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// startingHeap lets the heap reach 8 MiB before the first collection,
// twice the runtime's 4 MiB, and then collects as usual (GOGC=100). Most
// runs are short (a -p turn allocates 2–5 MB and exits): a collection
// there costs 1–2 ms of CPU, and its workers' memory, to free what the
// exit frees anyway (BENCHMARKS.md, the turns near the trigger). The Go
// compiler starts its heap larger for the same reason. A GOGC the user
// set is left alone.
func startingHeap() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(startingGCPercent)
	// Unreachable from the start: its cleanup runs after the first
	// collection. It holds a pointer, so the tiny allocator (whose
	// objects may never be cleaned up) does not take it.
	first := &struct{ _ *int }{}
	runtime.AddCleanup(first, func(int) { debug.SetGCPercent(100) }, 0)
}

// startingGCPercent makes the first heap goal 8 MiB (4 MiB × 200 %).
const startingGCPercent = 200

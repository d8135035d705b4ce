package cli

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/iostreams"
)

// TestSignals sends real signals to the test process; withSignals has them
// registered throughout, so none reaches the default handler.
func TestSignals(t *testing.T) {
	ios, _, _, _ := iostreams.Test()

	f := NewFactory(ios)
	ctx, stop := withSignals(context.Background(), f)
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
		if cause := context.Cause(ctx); cause != errInterrupted {
			t.Errorf("cause %v, want errInterrupted", cause)
		}
	case <-time.After(time.Minute): // a safety net, not a measure
		t.Fatal("SIGINT did not cancel the run")
	}
	stop()

	// Once the REPL owns Ctrl-C, SIGINT leaves the run alone; SIGTERM
	// still ends it.
	f = NewFactory(ios)
	ctx, stop = withSignals(context.Background(), f)
	defer stop()
	f.handOverInterrupt()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
		t.Fatal("SIGINT cancelled the run after the REPL took it over")
	case <-time.After(200 * time.Millisecond):
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a safety net, not a measure
		t.Fatal("SIGTERM did not cancel the run")
	}
}

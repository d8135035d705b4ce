package hooks

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// outputLimit bounds what a hook's stdout or stderr may weigh: past it the
// middle is dropped and the one omission marker says how much. A reason a
// hook gives becomes part of the session, so it must stay small enough to
// resume, compact and fork.
const outputLimit = 64 << 10

// pipeGrace bounds the wait for a hook's output once its group is ended: a
// descendant that left the group (setsid) and kept a pipe open must not
// hold the session.
const pipeGrace = time.Second

// runGroup runs cmd in its own process group and returns what it wrote,
// each stream cut to outputLimit where it is read. When the command exits,
// or ctx ends first, the whole group is killed: a hook's `sleep 100 &` does
// not outlive the hook.
func runGroup(ctx context.Context, cmd *exec.Cmd) (stdout, stderr string, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return "", "", fmt.Errorf("hook output pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return "", "", fmt.Errorf("hook output pipe: %w", err)
	}
	defer outR.Close()
	defer errR.Close()
	// *os.File writers: the child gets the pipes themselves and Wait
	// returns when it exits, not when every holder of a pipe has.
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The payload is copied to stdin by exec: a descendant holding stdin
	// without reading must not hold Wait either.
	cmd.WaitDelay = pipeGrace
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		return "", "", err
	}
	outBuf, errBuf := tools.NewCappedBuffer(outputLimit), tools.NewCappedBuffer(outputLimit)
	var readers sync.WaitGroup
	readers.Add(2)
	go drain(&readers, outBuf, outR)
	go drain(&readers, errBuf, errR)

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-waited
	}
	// What the hook left running in its group ends with it.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	finishReading(&readers, outR, errR)
	return outBuf.String(), errBuf.String(), err
}

// drain copies r into dst until r ends. dst is wrapped so that its own
// methods, not a ReadFrom, decide what is kept.
func drain(wg *sync.WaitGroup, dst io.Writer, r io.Reader) {
	defer wg.Done()
	_, _ = io.Copy(struct{ io.Writer }{dst}, r)
}

// finishReading waits for the readers to reach the end of their pipes, or
// closes the pipes after pipeGrace when a stray descendant holds them.
func finishReading(readers *sync.WaitGroup, pipes ...*os.File) {
	done := make(chan struct{})
	go func() { readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(pipeGrace):
		for _, p := range pipes {
			p.Close()
		}
		<-done
	}
}

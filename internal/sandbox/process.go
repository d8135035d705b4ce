package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

func newProcess(s *Sandbox, m Mode) *Process {
	p := &Process{Mode: m, exited: make(chan struct{}), started: time.Now(), sb: s}
	p.copied = make(chan struct{})
	return p
}

// copyOutput copies the command's output pipes to their writers until
// every writer of the pipes has closed them.
func (p *Process) copyOutput(grace time.Duration, pipes map[*os.File]io.Writer) {
	p.grace = grace
	var wg sync.WaitGroup
	for r, w := range pipes {
		wg.Go(func() {
			defer r.Close()
			_, _ = io.Copy(w, r)
		})
	}
	go func() {
		wg.Wait()
		close(p.copied)
	}()
}

// pipes makes the command's output pipes: one for stdout and stderr, or
// two when c.Stderr is set. It returns the write ends to hand over.
func pipes(c Command) (map[*os.File]io.Writer, []*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	readers, writers := map[*os.File]io.Writer{r: c.Output}, []*os.File{w}
	if c.Stderr != nil {
		r2, w2, err := os.Pipe()
		if err != nil {
			r.Close()
			w.Close()
			return nil, nil, err
		}
		readers[r2] = c.Stderr
		writers = append(writers, w2)
	}
	return readers, writers, nil
}

func closeFiles[T io.Closer](files []T) {
	for _, f := range files {
		f.Close()
	}
}

// finish records how the shell ended; Done closes once its output is in,
// or OutputGrace after (a job it left in the background may hold the
// pipe open as long as it runs).
func (p *Process) finish(ws syscall.WaitStatus, err error) {
	p.once.Do(func() {
		p.status, p.err = ws, err
		p.ended = time.Now()
		go func() {
			timer := time.NewTimer(p.grace)
			defer timer.Stop()
			select {
			case <-p.copied:
			case <-timer.C:
			}
			close(p.exited)
		}()
	})
}

// startPlain runs c as a plain child process, where no host can start:
// as clawdcode ran commands before the sandbox.
func startPlain(c Command, p *Process) error {
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	readers, writers, err := pipes(c)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = writers[0], writers[len(writers)-1]
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	closeFiles(writers)
	if err != nil {
		closeFiles(mapKeys(readers))
		return fmt.Errorf("start %s: %w", c.Argv[0], err)
	}
	p.Pid, p.Shown = cmd.Process.Pid, cmd.Process.Pid
	p.copyOutput(c.OutputGrace, readers)
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		ws := syscall.WaitStatus(0)
		if errors.As(err, &ee) {
			ws, _ = ee.Sys().(syscall.WaitStatus)
			err = nil
		}
		p.finish(ws, err)
	}()
	return nil
}

func mapKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// source says where the mode in force came from.
func (s *Sandbox) source(m Mode) string {
	if m == ReadOnly && s.cfg.Mode != ReadOnly {
		return "plan mode"
	}
	if s.cfg.Source == "" {
		return "default"
	}
	return s.cfg.Source
}

// networkText says what network commands have.
func (s *Sandbox) networkText(netns bool) string {
	switch {
	case s.cfg.Network:
		return "network: any host ([sandbox] network = true)"
	case !netns:
		return "network: none (no network namespace here, so no proxy either)"
	}
	n := len(s.cfg.AllowDomains)
	return fmt.Sprintf("network: none but the allowed hosts (%d in allow_domains, and WebFetch(domain:…) rules) through clawdcode's proxy", n)
}

// processState is the part of Process that finish fills in.
type processState struct {
	once   sync.Once
	copied chan struct{}
	grace  time.Duration
	ended  time.Time
}

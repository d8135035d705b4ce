package tools

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// backgroundShells are the commands Bash started with run_in_background:
// each runs in its own process group (startShell) with its output in an
// outputRing, until it exits, KillShell ends it, or the session does
// (Env.StopBackground). They are numbered bash_1, bash_2, … in the order
// they started, and stay listed once ended, with how they ended.
type backgroundShells struct {
	mu     sync.Mutex
	shells []*backgroundShell
	closed bool // StopBackground ran: nothing new may start
}

type backgroundShell struct {
	id      string
	command string
	started time.Time
	proc    *process
	out     *outputRing

	mu     sync.Mutex
	ended  time.Time // zero while the shell runs
	killed bool      // KillShell or the session's end stopped it

	// stop kills the group once: after that its id may belong to
	// another group, which a second KillShell must not signal.
	stop sync.Once
}

// ShellInfo describes a background command, for /bashes.
type ShellInfo struct {
	ID      string
	Command string
	// Running is true until the shell has exited; Status then says how
	// ("exit status 0", "killed by KillShell", …).
	Running bool
	Status  string
	// Runtime is how long it has run (until it ended).
	Runtime time.Duration
	// Bytes is how much it has printed in all (more than is kept).
	Bytes int64
}

// start runs command in the background and returns its record.
func (b *backgroundShells) start(e *Env, command string, outside bool) (*backgroundShell, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("the session is ending: no new background command")
	}
	out := newOutputRing(BackgroundOutputCap)
	proc, err := e.startShell(command, out, outside)
	if err != nil {
		return nil, err
	}
	s := &backgroundShell{
		id:      "bash_" + strconv.Itoa(len(b.shells)+1),
		command: command,
		started: time.Now(),
		proc:    proc,
		out:     out,
	}
	b.shells = append(b.shells, s)
	go func() {
		<-proc.exited
		s.markEnded()
	}()
	return s, nil
}

// find returns the shell with id, or nil.
func (b *backgroundShells) find(id string) *backgroundShell {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.shells {
		if s.id == id {
			return s
		}
	}
	return nil
}

// ids lists the shells' ids, for a model that named an unknown one.
func (b *backgroundShells) ids() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, len(b.shells))
	for i, s := range b.shells {
		out[i] = s.id
	}
	return out
}

// list describes every shell, in the order they started.
func (b *backgroundShells) list() []ShellInfo {
	b.mu.Lock()
	shells := append([]*backgroundShell(nil), b.shells...)
	b.mu.Unlock()
	out := make([]ShellInfo, len(shells))
	for i, s := range shells {
		out[i] = s.info()
	}
	return out
}

// stopAll kills every shell's group, in parallel, and returns once all
// are gone; no shell can start after it.
func (b *backgroundShells) stopAll() {
	b.mu.Lock()
	b.closed = true
	shells := append([]*backgroundShell(nil), b.shells...)
	b.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range shells {
		wg.Go(s.kill)
	}
	wg.Wait()
}

// kill ends the shell's whole group — also when the shell itself has
// exited, for what it left running — and returns once it is gone (the
// first call kills; others wait for it).
func (s *backgroundShell) kill() {
	s.stop.Do(func() {
		s.mu.Lock()
		if s.ended.IsZero() {
			s.killed = true
		}
		s.mu.Unlock()
		s.proc.kill()
		// The shell has exited when kill returns: say so now, not when
		// the goroutine that waits for it gets to run, so a BashOutput
		// right after KillShell never reads "running".
		s.markEnded()
	})
}

// markEnded notes when the shell was seen to have exited, once.
func (s *backgroundShell) markEnded() {
	s.mu.Lock()
	if s.ended.IsZero() {
		s.ended = time.Now()
	}
	s.mu.Unlock()
}

func (s *backgroundShell) info() ShellInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := ShellInfo{ID: s.id, Command: s.command, Bytes: s.out.Len(), Running: s.ended.IsZero()}
	if i.Running {
		i.Runtime = time.Since(s.started)
		i.Status = "running"
		return i
	}
	i.Runtime = s.ended.Sub(s.started)
	switch status := s.proc.status(); {
	case s.killed:
		i.Status = "killed"
	case status == "":
		i.Status = "exit status 0"
	default:
		i.Status = status
	}
	return i
}

// Shells describes the background commands of this Env, in the order they
// started (for /bashes).
func (e *Env) Shells() []ShellInfo { return e.background.list() }

// StopBackground kills every background command's process group and
// returns once they are gone. The engine calls it when the session ends
// (the REPL quits, -p finishes, a signal or a hang-up arrives); no
// background command can start after it.
func (e *Env) StopBackground() { e.background.stopAll() }

// ShellOutput is the last limit bytes a background command printed (as
// much as is kept; the model's BashOutput reading position is left where
// it was), for the user (/bashes). An unknown id is an error naming the
// ids there are.
func (e *Env) ShellOutput(id string, limit int) (ShellInfo, string, error) {
	s := e.background.find(id)
	if s == nil {
		return ShellInfo{}, "", errors.New(e.unknownShell(id).Error)
	}
	info := s.info()
	return info, s.out.tail(limit), nil
}

// StopShell ends a background command and its process group for the user
// (/bashes), as KillShell does for the model.
func (e *Env) StopShell(id string) (ShellInfo, error) {
	s := e.background.find(id)
	if s == nil {
		return ShellInfo{}, errors.New(e.unknownShell(id).Error)
	}
	s.kill()
	return s.info(), nil
}

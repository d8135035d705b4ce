package sessionsync

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Auto pushes each session's new records at the end of each turn ([sync]
// auto = true), in the background: TurnEnded only queues the session and
// returns, so the prompt never waits on the store. One goroutine pushes
// the queued sessions one after another (a session queued again while it
// waits is pushed once). Close gives a push still running a bounded moment
// and then cancels it; a push cut short — by Close, a kill or a network
// failure — is finished by the next run: the session stays marked pending
// in the local state until a push of it completes, and the first turn of
// any later run with auto on pushes every pending session too.
//
// Failures are never the turn's: each is kept as one line (the same line
// once) for Close to return, and the session is pushed by the next turn or
// sync.
type Auto struct {
	open  func(ctx context.Context) (*Syncer, error)
	root  string    // the project the turns are in
	since time.Time // when the run began: sessions written since are its

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	queue    []string
	queued   map[string]bool
	running  bool
	closed   bool
	idle     chan struct{} // closed when the worker stops
	problems []string
	seen     map[string]bool
	syncer   *Syncer
	started  bool   // the pending sessions of earlier runs were queued
	current  string // the session being pushed ("" = none)
}

// NewAuto returns the pusher of the project at root; open builds the
// Syncer on the first turn's end (nothing of sync runs before).
func NewAuto(root string, open func(ctx context.Context) (*Syncer, error)) *Auto {
	ctx, cancel := context.WithCancel(context.Background())
	return &Auto{open: open, root: root, since: time.Now(), ctx: ctx, cancel: cancel, queued: map[string]bool{}, seen: map[string]bool{}}
}

// TurnEnded queues session id's push and returns at once.
func (a *Auto) TurnEnded(id string) {
	if id == "" || !validID(id) {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	if !a.queued[id] {
		a.queued[id] = true
		a.queue = append(a.queue, id)
	}
	if !a.running {
		a.running = true
		a.idle = make(chan struct{})
		go a.work()
	}
}

// work pushes the queued sessions until none is left.
func (a *Auto) work() {
	for {
		a.mu.Lock()
		if len(a.queue) == 0 || a.closed {
			a.running = false
			close(a.idle)
			a.mu.Unlock()
			return
		}
		id := a.queue[0]
		a.queue = a.queue[1:]
		delete(a.queued, id)
		a.current = id
		a.mu.Unlock()
		a.push(id, a.root)
		a.mu.Lock()
		a.current = ""
		a.mu.Unlock()
	}
}

// push pushes one session, marked pending until it is done, and the other
// sessions of the project the run wrote to (a subagent's, a fork's, the
// one a handoff left); the first push of the run also takes up the
// sessions earlier runs left pending.
func (a *Auto) push(id, root string) {
	s, err := a.syncerOnce()
	if err != nil {
		if a.ctx.Err() != nil {
			return
		}
		a.problem(fmt.Sprintf("sync: session %s not pushed: %v", id, err))
		return
	}
	_ = s.state.markPending(id, root)
	pending := map[string]string{id: root}
	a.mu.Lock()
	if !a.started {
		a.started = true
		for pid, proot := range s.state.pendings() {
			pending[pid] = proot
		}
	}
	a.mu.Unlock()
	for _, other := range s.writtenSince(root, a.since) {
		if _, ok := pending[other]; !ok {
			pending[other] = root
		}
	}
	for pid, proot := range pending {
		err := s.PushSession(a.ctx, proot, pid)
		if a.ctx.Err() != nil {
			return // cut short by Close: still pending, for the next run
		}
		if errors.Is(err, errPushLater) {
			continue // still pending
		}
		if err != nil {
			a.problem(fmt.Sprintf("sync: session %s not pushed: %v (the next sync pushes it)", pid, err))
			continue
		}
		s.state.clearPending(pid)
	}
}

func (a *Auto) syncerOnce() (*Syncer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.syncer != nil {
		return a.syncer, nil
	}
	s, err := a.open(a.ctx)
	if err != nil {
		return nil, err
	}
	a.syncer = s
	return s, nil
}

func (a *Auto) problem(line string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.seen[line] {
		a.seen[line] = true
		a.problems = append(a.problems, line)
	}
}

// Close waits at most wait for the pushes queued, cancels them past that
// (each stays pending, for the next run, and is named in one line), and
// returns the problems of the run's pushes, one line each.
func (a *Auto) Close(wait time.Duration) []string {
	a.mu.Lock()
	idle := a.idle
	running := a.running
	a.mu.Unlock()
	cut := []string(nil)
	if running {
		t := time.NewTimer(wait)
		select {
		case <-idle:
		case <-t.C:
			a.mu.Lock()
			if a.current != "" {
				cut = append(cut, a.current)
			}
			cut = append(cut, a.queue...)
			a.closed = true
			a.mu.Unlock()
			a.cancel()
			<-idle
		}
		t.Stop()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	a.cancel()
	for _, id := range cut {
		if a.syncer != nil {
			_ = a.syncer.state.markPending(id, a.root)
		}
		line := fmt.Sprintf("sync: session %s was not pushed before exit; the next run (or clawdcode sync) pushes it", id)
		if !a.seen[line] {
			a.seen[line] = true
			a.problems = append(a.problems, line)
		}
	}
	return a.problems
}

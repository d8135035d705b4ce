package storage

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// A child started by this process at the moment a session is closed holds
// a copy of its descriptor until it execs, and with it the flock. A
// session closed a moment ago is therefore not "open in another process":
// removing or reopening it waits that moment out.
func TestJustClosedSessionIsNotBusy(t *testing.T) {
	t.Parallel()
	for _, op := range []string{"remove", "open"} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			p := newTestProject(t)
			s := mustCreate(t, p)
			mustAppend(t, s, userRecord("hello"))
			// A copy of the descriptor, as a fork in progress has.
			dup, err := syscall.Dup(int(s.f.Fd()))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			time.AfterFunc(50*time.Millisecond, func() { syscall.Close(dup) })
			switch op {
			case "remove":
				err = p.Remove(s.ID())
			case "open":
				var o *Session
				if o, err = p.Open(context.Background(), s.ID()); err == nil {
					o.Close()
				}
			}
			if err != nil {
				t.Fatalf("%s a session closed a moment ago: %v", op, err)
			}
		})
	}
}

// A session held by another open file description for longer is busy.
func TestHeldSessionIsBusy(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("hello"))
	defer s.Close()
	if err := p.Remove(s.ID()); !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("Remove of an open session: %v, want ErrSessionBusy", err)
	}
}

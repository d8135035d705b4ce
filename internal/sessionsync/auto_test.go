package sessionsync

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestAutoNeverHoldsATurnAndFinishesNextRun: against a store that never
// answers, TurnEnded returns at once and Close gives up after its bound,
// naming the session in one line; the next run's first push (of another
// session) pushes the one left pending too.
func TestAutoNeverHoldsATurnAndFinishesNextRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	obj := newMem()
	m := newMachine(t, root)
	open := func(context.Context) (*Syncer, error) { return m.syncer(obj, ""), nil }
	first := m.newSession("first", 1)

	obj.hang.Store(true)
	a := NewAuto(m.proj.Root, open)
	a.TurnEnded(first) // a hanging store would block the test here if it waited
	lines := a.Close(50 * time.Millisecond)
	if len(lines) != 1 || !strings.Contains(lines[0], first) || !strings.Contains(lines[0], "not pushed before exit") {
		t.Fatalf("Close against a hanging store said %q", lines)
	}

	obj.hang.Store(false)
	second := m.newSession("second", 1)
	next := NewAuto(m.proj.Root, open)
	next.TurnEnded(second)
	if lines := next.Close(time.Minute); len(lines) != 0 {
		t.Fatalf("the next run's push: %q", lines)
	}
	r := mustRemote(t, m.syncer(obj, ""))
	for _, id := range []string{first, second} {
		if h, _, err := r.getHead(context.Background(), id); err != nil || h == nil {
			t.Errorf("session %s is not in the store: %v", id, err)
		}
	}
}

// TestAutoPushesEverySessionTheRunWrote: a turn's end pushes its session
// and the others of the project the run wrote (a subagent's, a fork's),
// not the ones it did not touch.
func TestAutoPushesEverySessionTheRunWrote(t *testing.T) {
	t.Parallel()
	obj := newMem()
	m := newMachine(t, t.TempDir())
	open := func(context.Context) (*Syncer, error) { return m.syncer(obj, ""), nil }
	old := m.newSession("before the run", 1)
	time.Sleep(10 * time.Millisecond) // a file time apart from the run's start
	a := NewAuto(m.proj.Root, open)
	turn := m.newSession("the turn", 1)
	sub := m.newSession("its subagent", 1)
	a.TurnEnded(turn)
	if lines := a.Close(time.Minute); len(lines) != 0 {
		t.Fatal(lines)
	}
	r := mustRemote(t, m.syncer(obj, ""))
	for id, want := range map[string]bool{turn: true, sub: true, old: false} {
		h, _, err := r.getHead(context.Background(), id)
		if err != nil || (h != nil) != want {
			t.Errorf("session %s in the store: %v, want %v (%v)", id, h != nil, want, err)
		}
	}
}

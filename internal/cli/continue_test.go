package cli

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestContinueSkipsASessionRemovedBeforeItOpens is `-c` racing `sessions
// rm`, made deterministic: the session -c chose is removed just before it
// is opened. -c then continues the next most recent session; -r, which
// named the removed one, fails with the store's one-line error.
func TestContinueSkipsASessionRemovedBeforeItOpens(t *testing.T) {
	t.Parallel()
	older := newSessionsEnv(t, "older work", "ok")
	p, err := storage.NewStore(older.home).Project(older.root)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	newer, err := p.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newer.Append(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "newer work"}}); err != nil {
		t.Fatal(err)
	}
	newer.Close()

	ios, _, _, _ := iostreams.Test()
	f := NewFactory(ios)
	f.Getenv = func(string) string { return "" }
	f.Getwd = func() (string, error) { return older.root, nil }
	f.Home = func() (string, error) { return older.home, nil }

	opts := &RootOptions{Continue: true}
	id, err := sessionToOpen(f, opts)
	if err != nil || id != newer.ID() {
		t.Fatalf("-c chose %s, %v; want the newer %s", id, err, newer.ID())
	}
	var tried []string
	resume := func(id string) error {
		tried = append(tried, id)
		pp, _ := f.Project()
		s, err := pp.Open(context.Background(), id)
		if err != nil {
			return err
		}
		return s.Close()
	}
	// `sessions rm` wins the race.
	if err := os.Remove(newer.Path()); err != nil {
		t.Fatal(err)
	}
	if err := resumeChosen(f, opts, id, resume); err != nil || len(tried) != 2 || tried[1] != older.id {
		t.Fatalf("-c after the removal: %v, tried %v; want %s next", err, tried, older.id)
	}

	tried = nil
	err = resumeChosen(f, &RootOptions{Resume: newer.ID()}, newer.ID(), resume)
	if !errors.Is(err, storage.ErrNotFound) || len(tried) != 1 {
		t.Fatalf("-r of the removed session: %v, tried %v", err, tried)
	}
	failure := Describe(err, nil)
	if failure.Code != ExitUsage || failure.Message != "session "+newer.ID()+" does not exist (was it removed?)" {
		t.Errorf("-r of the removed session: %+v", failure)
	}
}

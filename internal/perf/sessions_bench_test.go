package perf

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// listSessions and listSessionBytes size BenchmarkSessionsList: 1,000
// sessions of ~40 KB (40 MB in all, not the 5 GB: with the index
// in place a list reads no session file, so their size does not matter;
// the IndexMissing case reads each file's head and tail only).
const (
	listSessions     = 1000
	listSessionBytes = 40 << 10
)

// fillProject writes n sessions into w's project: the first through the
// store (so the project directory and its marker are the store's own),
// the rest as files beside it, as a long-lived project accumulates them.
func fillProject(tb testing.TB, w *world, n int) *storage.Project {
	tb.Helper()
	ctx := context.Background()
	p, err := storage.NewStore(w.home).Project(w.project)
	if err != nil {
		tb.Fatal(err)
	}
	if _, _, _, err := createSession(ctx, p, bigSession{bulk: listSessionBytes}); err != nil {
		tb.Fatal(err)
	}
	for range n - 1 {
		id := uuid.NewString()
		f, err := os.OpenFile(filepath.Join(p.Dir, id+".jsonl"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := (bigSession{bulk: listSessionBytes}).write(ctx, f, id, p.Root, 0); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return p
}

// BenchmarkSessionsList is `clawdcode sessions list` in a project with
// 1,000 sessions. IndexWarm is the usual case (the index is kept by every
// session close); IndexMissing rebuilds the index from the files on every
// run. Target ≤ 50 ms.
func BenchmarkSessionsList(b *testing.B) {
	w := newWorld(b)
	p := fillProject(b, w, listSessions)
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(w.run(b, "sessions", "list", "--json").stdout), &list); err != nil || len(list) != listSessions {
		b.Fatalf("sessions list --json: %d sessions, %v", len(list), err)
	}
	b.Run("IndexWarm", func(b *testing.B) {
		var s sample
		for b.Loop() {
			s.add(w.run(b, "sessions", "list"))
		}
		s.report(b, "")
	})
	b.Run("IndexMissing", func(b *testing.B) {
		var s sample
		for b.Loop() {
			if err := os.Remove(filepath.Join(p.Dir, "index.json")); err != nil {
				b.Fatal(err)
			}
			s.add(w.run(b, "sessions", "list"))
		}
		s.report(b, "")
	})
}

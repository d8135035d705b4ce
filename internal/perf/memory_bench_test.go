package perf

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/recall"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// BenchmarkRecall1GB is the Recall tool's search over the 1 GiB session of
// BenchmarkResume1GB (the file in the page cache, as after any use of it).
// Target ≤ 1 s. Absent: a word that is nowhere, so every byte is searched
// (the worst case); Common: a frequent word, which stops at the limit;
// Ref: the first record of the file read by its uuid (Around), found by
// the same search of the raw bytes.
func BenchmarkRecall1GB(b *testing.B) {
	fx := resumeFixtures["Uncounted"].build(b, "Uncounted")
	home := filepath.Join(fx.root, "clawdcode-home")
	store := storage.NewStore(home)
	p, err := store.Project(filepath.Join(fx.root, "project"))
	if err != nil {
		b.Fatal(err)
	}
	s := &recall.Searcher{Store: store, Project: p, Session: func() string { return fx.id }}
	ctx := context.Background()
	first := firstRecord(b, p.Path(fx.id))
	for _, c := range []struct {
		name, query string
		want        int
	}{
		{"Absent", "xylophone", 0},
		{"Common", "boundary", 10},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				hits, err := s.Find(ctx, c.query, tools.ScopeSession, 10)
				if err != nil {
					b.Fatal(err)
				}
				if len(hits) < c.want || (c.want == 0 && len(hits) != 0) {
					b.Fatalf("%d hits for %q, want %d", len(hits), c.query, c.want)
				}
			}
		})
	}
	b.Run("Ref", func(b *testing.B) {
		for b.Loop() {
			hits, err := s.Around(ctx, first.UUID, tools.ScopeSession, tools.RecallNeighbours)
			if err != nil || len(hits) == 0 {
				b.Fatalf("around %s: %d hits, %v", first.UUID, len(hits), err)
			}
		}
	})
}

// BenchmarkFork1GB is /fork (and --fork-session) of the 1 GiB session of
// BenchmarkResume1GB in the engine: find the last boundary from the end,
// read the ~1.1 MB live context, write it into a new session with one
// write, and load the new session's context. Target ≤ 100 ms: the cost
// follows the context, not the 1 GiB history. Each new session is removed
// outside the timed region, so the fixture stays as the resume benchmark
// expects it.
func BenchmarkFork1GB(b *testing.B) {
	fx := resumeFixtures["Uncounted"].build(b, "Uncounted")
	store := storage.NewStore(filepath.Join(fx.root, "clawdcode-home"))
	p, err := store.Project(filepath.Join(fx.root, "project"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var written int64
	for b.Loop() {
		eng, err := agent.New(agent.Config{Model: "gpt-4.1", Window: 1000000, Project: p, LLM: &instantModel{}})
		if err != nil {
			b.Fatal(err)
		}
		id, err := eng.Sessions().Fork(ctx, fx.id, "")
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := eng.Close(); err != nil {
			b.Fatal(err)
		}
		if fi, err := os.Stat(p.Path(id)); err == nil {
			written = fi.Size()
		}
		if err := p.Remove(id); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(written)/(1<<20), "fork-MiB")
}

// firstRecord is the first user record of a session file.
func firstRecord(tb testing.TB, path string) *storage.Record {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r storage.Record
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Type == storage.TypeUser && r.Message != nil && len(r.Message.Content) > 24 {
			return &r
		}
	}
	tb.Fatal("no user record in ", path)
	return nil
}

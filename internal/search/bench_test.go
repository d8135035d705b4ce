package search

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

var benchWords = strings.Fields(`the a to of and in is it that for on with as this be by
are from or an not file function test error return value type package import struct
string int slice map pointer interface method call read write edit build run check
handler request response server client session record index offset boundary summary
context window token count model reply tool result output input path directory line
change fix update add remove rename refactor move keep because when then after before
config option flag env default timeout retry limit size bytes lines fields records`)

// benchText is about n bytes of prose and code with a long tail of
// identifiers, numbers and hashes, as real tool output has.
func benchText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		switch r.IntN(12) {
		case 0:
			fmt.Fprintf(&b, "%s%d ", benchWords[r.IntN(len(benchWords))], r.IntN(50000))
		case 1:
			fmt.Fprintf(&b, "%08x%08x\n", r.Uint32(), r.Uint32())
		case 2:
			fmt.Fprintf(&b, "internal/%s/%s_%d.go:%d: ", benchWords[r.IntN(len(benchWords))], benchWords[r.IntN(len(benchWords))], r.IntN(100), r.IntN(900))
		default:
			b.WriteString(benchWords[r.IntN(len(benchWords))])
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// writeBenchSession writes a session file of about size bytes: turns of
// a user request, an assistant reply, a tool call and its output.
func writeBenchSession(tb testing.TB, p *storage.Project, seed uint64, size int64) {
	tb.Helper()
	s, err := p.Create(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	id := s.ID()
	if _, err := s.Append(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "start"}}); err != nil {
		tb.Fatal(err)
	}
	s.Close()
	f, err := os.OpenFile(p.Path(id), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	r := rand.New(rand.NewPCG(seed, 1))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var n, written int64
	add := func(rec *storage.Record) {
		n++
		rec.UUID = fmt.Sprintf("%08x-0000-4000-8000-%012x", seed, n)
		rec.SessionID, rec.CWD, rec.Version, rec.Timestamp = id, p.Root, "bench", t0.Add(time.Duration(n)*time.Second)
		b, _ := json.Marshal(rec)
		written += int64(len(b) + 1)
		w.Write(b)
		w.WriteByte('\n')
	}
	for written < size {
		add(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: benchText(r, 300)}})
		add(&storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: benchText(r, 500), Model: "gpt-4.1", Usage: &storage.Usage{InputTokens: 1000, OutputTokens: 100}}})
		in, _ := json.Marshal(map[string]string{"command": benchText(r, 60)})
		add(&storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: fmt.Sprint("call_", n), Name: "Bash", Input: in}})
		add(&storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: fmt.Sprint("call_", n-1), Output: benchText(r, 4000)}})
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	_ = enc
}

// benchStore is a store of sessions totalling about size bytes, in files
// of perFile bytes.
func benchStore(tb testing.TB, size, perFile int64) (*storage.Store, *storage.Project, int64) {
	tb.Helper()
	store := storage.NewStore(tb.TempDir())
	p, err := store.Project(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	var total int64
	for i := uint64(0); total < size; i++ {
		writeBenchSession(tb, p, i, perFile)
		total += perFile
	}
	var bytes int64
	filepath.Walk(p.Dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(path, ".jsonl") {
			bytes += fi.Size()
		}
		return nil
	})
	return store, p, bytes
}

// BenchmarkIndexBuild is the first search's work: indexing every session
// from nothing (SEARCH_BENCH_MB sets the size, 64 MB by default).
func BenchmarkIndexBuild(b *testing.B) {
	mb := int64(64)
	if v := os.Getenv("SEARCH_BENCH_MB"); v != "" {
		fmt.Sscan(v, &mb)
	}
	store, _, bytes := benchStore(b, mb<<20, 4<<20)
	b.SetBytes(bytes)
	ctx := context.Background()
	cpu0 := cpuTime()
	for b.Loop() {
		os.RemoveAll(filepath.Join(store.Home(), dirName))
		if err := New(store, nil).Update(ctx); err != nil {
			b.Fatal(err)
		}
	}
	// On a shared machine the wall clock measures the neighbours too: the
	// CPU time says what the work costs.
	b.ReportMetric(float64(bytes)*float64(b.N)/1e6/(cpuTime()-cpu0).Seconds(), "MB/cpu-s")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWarm is a search of two common words with the index in place,
// and CatchUp the update after one appended turn (SEARCH_BENCH_MB sets the
// size of the store, 64 MB by default).
func BenchmarkWarm(b *testing.B) {
	mb := int64(64)
	if v := os.Getenv("SEARCH_BENCH_MB"); v != "" {
		fmt.Sscan(v, &mb)
	}
	store, p, _ := benchStore(b, mb<<20, 4<<20)
	ctx := context.Background()
	ix := New(store, nil)
	if err := ix.Update(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("Search", func(b *testing.B) {
		for b.Loop() {
			hits, err := ix.Search(ctx, Query{Text: "handler timeout"})
			if err != nil || len(hits) == 0 {
				b.Fatal(len(hits), err)
			}
		}
	})
	b.Run("CatchUp", func(b *testing.B) {
		ents, _ := filepath.Glob(filepath.Join(p.Dir, "*.jsonl"))
		s, err := p.Open(ctx, strings.TrimSuffix(filepath.Base(ents[0]), ".jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		r := rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			b.StopTimer()
			s.Append(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: benchText(r, 300)}})
			s.Append(&storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: "x", Output: benchText(r, 4000)}})
			b.StartTimer()
			if err := ix.Update(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

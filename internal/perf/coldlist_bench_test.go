package perf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// coldListSessions × coldListBytes is BenchmarkSessionsListCold5GB's
// project: 5 GB of sessions, each a short exchange around one ~100 MB
// tool result (few large records, so the fixture is written at disk speed
// rather than encoded record by record).
const (
	coldListSessions = 50
	coldListBytes    = 100 << 20
)

// writeBulkSession writes one session file as clawdcode writes it (every
// record with its listing) whose tool result holds about bulk bytes.
func writeBulkSession(tb testing.TB, dir, root string, start time.Time, bulk int) {
	tb.Helper()
	id := uuid.NewString()
	f, err := os.OpenFile(filepath.Join(dir, id+".jsonl"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	parent := (*string)(nil)
	n := 0
	emit := func(r *storage.Record, messages int) {
		n++
		r.UUID, r.ParentUUID, r.SessionID, r.CWD, r.Version = uuid.NewString(), parent, id, root, "bench"
		r.Timestamp = start.Add(time.Duration(n) * time.Second).UTC()
		r.Listing = &storage.Listing{Messages: messages, Tokens: 1000 * messages}
		p := r.UUID
		parent = &p
		b, err := json.Marshal(r)
		if err != nil {
			tb.Fatal(err)
		}
		// The bulk goes where the placeholder is, written in pieces.
		if head, tail, ok := bytes.Cut(b, []byte("@BULK@")); ok {
			w.Write(head)
			chunk := []byte(strings.Repeat("0123456789abcdef", 4096))
			for left := bulk; left > 0; left -= len(chunk) {
				w.Write(chunk[:min(len(chunk), left)])
			}
			b = tail
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	emit(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "Summarise the build log"}}, 1)
	emit(&storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: "Reading it.", Model: "gpt-4o", Usage: &storage.Usage{InputTokens: 900, OutputTokens: 100}}}, 2)
	emit(&storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: "call_1", Name: "Read", Input: json.RawMessage(`{"file_path":"build.log"}`)}}, 2)
	emit(&storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: "call_1", Output: "@BULK@"}}, 2)
	emit(&storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: "It built.", Model: "gpt-4o", Usage: &storage.Usage{InputTokens: 1900, OutputTokens: 100}}}, 3)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkSessionsListCold5GB is `clawdcode sessions list` over 5 GB of
// sessions with index.json missing before every run (issue 11, "Listing
// without an index"): only each file's head and last line are read.
// Target ≤ 2 s. The fixture is removed when the benchmark ends.
func BenchmarkSessionsListCold5GB(b *testing.B) {
	w := newWorld(b)
	p, err := storage.NewStore(w.home).Project(w.project)
	if err != nil {
		b.Fatal(err)
	}
	// The directory and its marker are the store's own: one real session.
	s, err := p.Create(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Append(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "hello"}}); err != nil {
		b.Fatal(err)
	}
	s.Close()
	start := time.Now().Add(-time.Hour)
	for i := range coldListSessions {
		writeBulkSession(b, p.Dir, p.Root, start.Add(time.Duration(i)*time.Minute), coldListBytes)
	}
	index := filepath.Join(p.Dir, "index.json")
	var s0 sample
	for b.Loop() {
		if err := os.Remove(index); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
		r := w.run(b, "sessions", "list", "--json")
		var rows []struct{ Messages int }
		err := json.Unmarshal([]byte(r.stdout), &rows)
		total := 0
		for _, row := range rows {
			total += row.Messages
		}
		if err != nil || len(rows) != coldListSessions+1 || total != 1+3*coldListSessions {
			b.Fatalf("sessions list --json: %d rows, %d messages, %v", len(rows), total, err)
		}
		s0.add(r)
	}
	s0.report(b, "")
	b.ReportMetric(float64(coldListSessions)*coldListBytes/(1<<30), "GiB")
}

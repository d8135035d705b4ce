package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// hugeRecordBytes is the one huge tool result of BenchmarkHugeRecord: the
// issue's 200 MB line.
const hugeRecordBytes = 200 << 20

// hugeRecordSession writes a session whose history holds one tool result
// of size bytes, compacted away since: a user turn reads a huge file,
// the model answers, the next exchange is retained by a compaction, and
// one more exchange follows. It returns the session's id.
// hugeResultUUID is the huge tool result's uuid, for a Recall by ref.
const hugeResultUUID = "0b5e55ed-0000-4000-8000-000000000100"

func hugeRecordSession(tb testing.TB, w *world, size int) (*storage.Project, string) {
	tb.Helper()
	ctx := context.Background()
	p, err := storage.NewStore(w.home).Project(w.project)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := p.Create(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	msg := func(typ, text string) *storage.Record {
		return &storage.Record{Type: typ, Message: &storage.Message{Role: typ, Content: text}}
	}
	appendAll := func(recs ...*storage.Record) []int64 {
		offs, err := s.AppendBatch(recs...)
		if err != nil {
			tb.Fatal(err)
		}
		return offs
	}
	appendAll(msg(storage.TypeUser, "read the dump, please"))
	appendAll(msg(storage.TypeAssistant, "Reading it."))
	input, _ := json.Marshal(map[string]string{"file_path": "dump.txt"})
	appendAll(&storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: "call_1", Name: "Read", Input: input}})
	appendAll(&storage.Record{UUID: hugeResultUUID, Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: "call_1", Output: strings.Repeat("0123456789abcdef\n", size/17)}})
	appendAll(msg(storage.TypeAssistant, "It is a log of digits."))
	retained := msg(storage.TypeUser, "what next?")
	retainedOff := appendAll(retained)[0]
	appendAll(msg(storage.TypeAssistant, "Anything you like."))
	appendAll(
		&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeCompactBoundary,
			Message:         &storage.Message{Role: "system", Content: "Conversation compacted"},
			CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerManual, PreTokens: 60_000_000, RetainedOffset: retainedOff, RetainedUUID: retained.UUID}},
		&storage.Record{Type: storage.TypeUser, IsCompactSummary: true,
			Message:         &storage.Message{Role: "user", Content: "Summary: the user had a huge dump read; it is a log of digits."},
			CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerManual, PreTokens: 60_000_000, PostTokens: 40}},
	)
	appendAll(msg(storage.TypeUser, "thanks"))
	appendAll(msg(storage.TypeAssistant, "You are welcome."))
	return p, s.ID()
}

// manyLargeSession writes a session whose live context (no compaction)
// holds n tool results of each bytes.
func manyLargeSession(tb testing.TB, p *storage.Project, n, each int) string {
	tb.Helper()
	s, err := p.Create(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	add := func(r *storage.Record) {
		if _, err := s.Append(r); err != nil {
			tb.Fatal(err)
		}
	}
	add(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "read the four dumps"}})
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		add(&storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: "Reading."}})
		add(&storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: id, Name: "Read", Input: json.RawMessage(`{"file_path":"dump.txt"}`)}})
		add(&storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: id, Output: strings.Repeat("0123456789abcdef\n", each/17)}})
	}
	add(&storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: "Done."}})
	return s.ID()
}

// BenchmarkHugeRecord is what one 200 MB line in a session's history costs
// the commands that read the session, through the binary, with peak RSS:
// a cold `sessions list` (index.json missing), `sessions show` (the live
// context, which no longer holds the line), `sessions show --full` (which
// prints it, clipped) and a cold `-c` turn (the live context only). The
// targets: list, show and -c follow the size of what they need (the head
// and tail, the live context), not the line; show --full a small multiple
// of the line.
func BenchmarkHugeRecord(b *testing.B) {
	w := newWorld(b)
	w.srv.SetResponder(llmtest.Agent())
	p, id := hugeRecordSession(b, w, hugeRecordBytes)
	index := filepath.Join(p.Dir, "index.json")
	// Four 50 MB results in the live context of a session in a second
	// world (so that -c above still picks the first): show streams them.
	w4 := newWorld(b)
	p4, err := storage.NewStore(w4.home).Project(w4.project)
	if err != nil {
		b.Fatal(err)
	}
	id4 := manyLargeSession(b, p4, 4, 50<<20)
	cases := []struct {
		name string
		w    *world
		args []string
		cold bool
	}{
		{"ListCold", w, []string{"sessions", "list"}, true},
		{"Show", w, []string{"sessions", "show", id}, false},
		{"ShowFull", w, []string{"sessions", "show", "--full", id}, false},
		{"ContinueCold", w, []string{"-c", "-p", "hi"}, true},
		{"ShowLiveFour50MB", w4, []string{"sessions", "show", id4}, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var s sample
			for b.Loop() {
				if c.cold {
					if err := os.Remove(index); err != nil && !os.IsNotExist(err) {
						b.Fatal(err)
					}
				}
				s.add(c.w.run(b, c.args...))
			}
			s.report(b, "")
		})
	}
}

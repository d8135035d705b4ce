package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// realisticRecord returns the i-th record of a coding session: a user
// turn, a reply, a tool call and a tool result of a few KB, in turn.
func realisticRecord(i int) *Record {
	switch i % 4 {
	case 0:
		return userRecord(fmt.Sprintf("Please look at internal/pkg%d/file.go and fix the failing test; keep the API as it is. (%d)", i%50, i))
	case 1:
		return assistantRecord(strings.Repeat("I will read the file first, then change the function that fails. ", 8), 12000+i, 300)
	case 2:
		return &Record{Type: TypeToolUse, Tool: &ToolUse{ID: fmt.Sprintf("call_%d", i), Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"internal/pkg%d/file.go"}`, i%50))}}
	default:
		return &Record{Type: TypeToolResult, ToolResult: &ToolResult{ID: fmt.Sprintf("call_%d", i-1), Output: strings.Repeat("func example() error {\n\treturn nil\n}\n", 100)}}
	}
}

// encodeRecords renders records as session lines, filling the common
// fields the way Append does, starting at file offset base.
func encodeRecords(w *bytes.Buffer, sessionID string, base int64, from, n int, parent string) (offs []int64, uuids []string) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := from; i < from+n; i++ {
		r := realisticRecord(i)
		r.UUID = uuid.NewString()
		if parent != "" {
			p := parent
			r.ParentUUID = &p
		}
		r.SessionID, r.CWD, r.Version = sessionID, "/home/u/project", "bench"
		r.Timestamp = t0.Add(time.Duration(i) * time.Second)
		offs = append(offs, base+int64(w.Len()))
		uuids = append(uuids, r.UUID)
		enc.Encode(r)
		parent = r.UUID
	}
	return offs, uuids
}

func BenchmarkAppend(b *testing.B) {
	for _, sync := range []bool{false, true} {
		name := "NoSync"
		if sync {
			name = "Sync"
		}
		b.Run(name, func(b *testing.B) {
			s := mustCreate(b, newTestProject(b))
			defer s.Close()
			recs := make([]*Record, 64)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// A fresh record each time, as the caller builds one.
				r := recs[i%len(recs)]
				if r == nil || r.UUID != "" {
					r = realisticRecord(i % 2) // user and assistant lines, ~200-700 bytes
					recs[i%len(recs)] = r
				}
				if _, err := s.Append(r); err != nil {
					b.Fatal(err)
				}
				if sync {
					if err := s.Sync(); err != nil {
						b.Fatal(err)
					}
				}
				recs[i%len(recs)] = nil
				i++
			}
		})
	}
}

// BenchmarkLoadLive1GB resumes a 1 GB session whose last boundary is about
// 1 MB from the end; the retained region before it is ~64 KB.
func BenchmarkLoadLive1GB(b *testing.B) {
	const size = 1 << 30
	path := filepath.Join(b.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	var block bytes.Buffer
	encodeRecords(&block, "s", 0, 0, 4000, "")
	var written int64
	var tail bytes.Buffer
	for written < size-2<<20 {
		n, err := f.Write(block.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		written += int64(n)
	}
	offs, uuids := encodeRecords(&tail, "s", written, 0, 16, "")
	retainedOff, retainedUUID := offs[0], uuids[0]
	bOff := written + int64(tail.Len())
	enc := json.NewEncoder(&tail)
	enc.SetEscapeHTML(false)
	enc.Encode(&Record{UUID: uuid.NewString(), Type: TypeSystem, Subtype: SubtypeCompactBoundary,
		Message:         &Message{Role: "system", Content: "Conversation compacted"},
		CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 250000, RetainedOffset: retainedOff, RetainedUUID: retainedUUID}})
	enc.Encode(&Record{UUID: uuid.NewString(), Type: TypeUser, IsCompactSummary: true,
		Message:         &Message{Role: "user", Content: strings.Repeat("summary ", 2000)},
		CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 250000, PostTokens: 30000}})
	for int64(tail.Len()) < bOff-written+1<<20 {
		encodeRecords(&tail, "s", written+int64(tail.Len()), 0, 4, "")
	}
	if _, err := f.Write(tail.Bytes()); err != nil {
		b.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	b.Logf("file %d MB, boundary %d KB from the end, live region %d KB", fi.Size()>>20, (fi.Size()-bOff)>>10, (fi.Size()-retainedOff)>>10)

	ctx := context.Background()
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	b.ReportAllocs()
	records := 0
	for b.Loop() {
		live, err := LoadLive(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if live.Boundary == nil || len(live.Warnings) != 0 {
			b.Fatalf("boundary %v, warnings %q", live.Boundary, live.Warnings)
		}
		records = len(live.Records)
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(records), "records")
	b.ReportMetric(float64(ms1.Sys-ms0.Sys)/(1<<20), "MB-sys-growth")
	b.ReportMetric(float64(ms1.Sys)/(1<<20), "MB-sys")
}

// listProject builds a project of n closed sessions written directly (the
// sessions' shape matters to List, not how they were appended).
func listProject(b *testing.B, n, recordsPer int) *Project {
	p := newTestProject(b)
	if _, err := p.ensureDir(); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for i := range n {
		id := uuid.NewString()
		buf.Reset()
		encodeRecords(&buf, id, 0, i, recordsPer, "")
		if err := os.WriteFile(filepath.Join(p.Dir, id+".jsonl"), buf.Bytes(), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return p
}

func BenchmarkList1000(b *testing.B) {
	const sessions, recordsPer = 1000, 40 // ~50 KB each
	b.Run("IndexWarm", func(b *testing.B) {
		p := listProject(b, sessions, recordsPer)
		if _, err := p.List(); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			list, err := p.List()
			if err != nil || len(list) != sessions {
				b.Fatalf("%d sessions, %v", len(list), err)
			}
		}
	})
	b.Run("IndexMissing", func(b *testing.B) {
		p := listProject(b, sessions, recordsPer)
		b.ReportAllocs()
		for b.Loop() {
			os.Remove(filepath.Join(p.Dir, indexName))
			list, err := p.List()
			if err != nil || len(list) != sessions {
				b.Fatalf("%d sessions, %v", len(list), err)
			}
		}
	})
}

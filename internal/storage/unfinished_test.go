package storage

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

func boundaryRecord(retained int64, retainedUUID string) *Record {
	return &Record{
		Type: TypeSystem, Subtype: SubtypeCompactBoundary,
		Message:         &Message{Role: "system", Content: "Conversation compacted"},
		CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 1000, RetainedOffset: retained, RetainedUUID: retainedUUID},
	}
}

func summaryRecord(text string) *Record {
	return &Record{
		Type: TypeUser, IsCompactSummary: true,
		Message:         &Message{Role: "user", Content: text},
		CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 1000, PostTokens: 100},
	}
}

func TestAppendBatch(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	defer s.Close()
	first := userRecord("first")
	mustAppend(t, s, first)
	b, sum := boundaryRecord(0, first.UUID), summaryRecord("the summary")
	offs, err := s.AppendBatch(b, sum)
	if err != nil {
		t.Fatal(err)
	}
	after := userRecord("after")
	afterOff := mustAppend(t, s, after)

	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []*Record{b, sum} {
		line, _, _ := strings.Cut(string(data[offs[i]:]), "\n")
		var got Record
		if err := json.Unmarshal([]byte(line), &got); err != nil || got.UUID != r.UUID {
			t.Fatalf("line at offset %d = %q, want record %s (%v)", offs[i], line, r.UUID, err)
		}
		if got.SessionID != s.ID() || got.Timestamp.IsZero() || got.CWD == "" || got.Version == "" {
			t.Errorf("common fields not filled: %+v", got)
		}
	}
	if b.ParentUUID == nil || *b.ParentUUID != first.UUID {
		t.Errorf("boundary parent = %v, want %s", b.ParentUUID, first.UUID)
	}
	if sum.ParentUUID == nil || *sum.ParentUUID != b.UUID {
		t.Errorf("summary parent = %v, want the boundary %s", sum.ParentUUID, b.UUID)
	}
	if after.ParentUUID == nil || *after.ParentUUID != sum.UUID {
		t.Errorf("next record's parent = %v, want the summary %s", after.ParentUUID, sum.UUID)
	}
	if want := int64(len(data)) - int64(len(readLines(t, s.Path())[3])) - 1; afterOff != want {
		t.Errorf("next append at %d, want %d", afterOff, want)
	}
	if offs, err := s.AppendBatch(); err != nil || len(offs) != 0 {
		t.Errorf("empty batch = %v, %v", offs, err)
	}
}

// TestAppendBatchAfterTornLine: like Append, a batch on a file that ends
// inside a line starts with a '\n', and its offsets account for it.
func TestAppendBatchAfterTornLine(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	first := userRecord("first")
	mustAppend(t, s, first)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, s.Path(), `{"type":"user","mess`)
	s, err := p.Open(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	offs, err := s.AppendBatch(boundaryRecord(0, first.UUID), summaryRecord("sum"))
	if err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, s.Path())
	if len(lines) != 4 || !strings.Contains(lines[2], SubtypeCompactBoundary) || !strings.Contains(lines[3], "sum") {
		t.Fatalf("lines = %q", lines)
	}
	data, _ := os.ReadFile(s.Path())
	for i, off := range offs {
		if off == 0 || data[off-1] != '\n' || !strings.HasPrefix(string(data[off:]), lines[2+i]) {
			t.Errorf("offset %d of record %d does not start line %d", off, i, 2+i)
		}
	}
}

func TestAppendBatchClosed(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendBatch(userRecord("late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("AppendBatch after Close = %v, want ErrClosed", err)
	}
}

// TestLoadLiveIgnoresUnfinishedCompaction: a boundary without its summary
// right after it is a compaction that a crash cut short. The context in
// force was the history before it, so LoadLive must not cut that history
// off: it ignores the boundary (with a warning) and uses the last complete
// boundary before it, or the whole file.
func TestLoadLiveIgnoresUnfinishedCompaction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// write builds the file: s is the session, raw appends bytes.
		write func(t *testing.T, s *Session) (raw string)
		want  string
		// wantSummary is the summary in force, "" for none.
		wantSummary string
		warnings    int
	}{
		{
			name: "crash after the boundary",
			write: func(t *testing.T, s *Session) string {
				mustAppend(t, s, userRecord("a"))
				r := userRecord("b")
				off := mustAppend(t, s, r)
				mustAppend(t, s, boundaryRecord(off, r.UUID))
				return ""
			},
			want: "a,b", warnings: 1,
		},
		{
			name: "summary torn",
			write: func(t *testing.T, s *Session) string {
				mustAppend(t, s, userRecord("a"))
				r := userRecord("b")
				off := mustAppend(t, s, r)
				mustAppend(t, s, boundaryRecord(off, r.UUID))
				return `{"type":"user","isCompactSummary":true,"mess`
			},
			want: "a,b", warnings: 2, // the boundary and the torn line
		},
		{
			name: "resumed after the crash",
			write: func(t *testing.T, s *Session) string {
				mustAppend(t, s, userRecord("a"))
				r := userRecord("b")
				off := mustAppend(t, s, r)
				mustAppend(t, s, boundaryRecord(off, r.UUID))
				mustAppend(t, s, userRecord("c"))
				mustAppend(t, s, summaryRecord("a stray summary later on"))
				return ""
			},
			want: "a,b,c,a stray summary later on", warnings: 1,
		},
		{
			name: "an earlier compaction finished",
			write: func(t *testing.T, s *Session) string {
				mustAppend(t, s, userRecord("old"))
				r := userRecord("kept")
				off := mustAppend(t, s, r)
				compact(t, s, off, r.UUID, "summary A")
				r2 := userRecord("d")
				off2 := mustAppend(t, s, r2)
				mustAppend(t, s, boundaryRecord(off2, r2.UUID))
				mustAppend(t, s, userRecord("e"))
				return ""
			},
			want: "kept,<boundary>,summary A,d,e", wantSummary: "summary A", warnings: 1,
		},
		{
			name: "two unfinished compactions",
			write: func(t *testing.T, s *Session) string {
				r := userRecord("a")
				off := mustAppend(t, s, r)
				mustAppend(t, s, boundaryRecord(off, r.UUID))
				mustAppend(t, s, userRecord("b"))
				mustAppend(t, s, boundaryRecord(off, r.UUID))
				return ""
			},
			want: "a,b", warnings: 2,
		},
		{
			name: "the batch of a finished compaction",
			write: func(t *testing.T, s *Session) string {
				mustAppend(t, s, userRecord("old"))
				r := userRecord("kept")
				off := mustAppend(t, s, r)
				if _, err := s.AppendBatch(boundaryRecord(off, r.UUID), summaryRecord("summary")); err != nil {
					t.Fatal(err)
				}
				return ""
			},
			want: "kept,<boundary>,summary", wantSummary: "summary",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newTestProject(t)
			s := mustCreate(t, p)
			raw := tt.write(t, s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if raw != "" {
				appendRaw(t, s.Path(), raw)
			}
			live, err := LoadLive(context.Background(), s.Path())
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(contents(live), ","); got != tt.want {
				t.Errorf("live = %s, want %s", got, tt.want)
			}
			gotSummary := ""
			if live.Summary != nil {
				gotSummary = live.Summary.Message.Content
			}
			if gotSummary != tt.wantSummary || (tt.wantSummary == "") != (live.Boundary == nil) {
				t.Errorf("summary %q (boundary %v), want %q", gotSummary, live.Boundary != nil, tt.wantSummary)
			}
			if len(live.Warnings) != tt.warnings {
				t.Errorf("warnings %q, want %d", live.Warnings, tt.warnings)
			}
			for _, w := range live.Warnings {
				if strings.Contains(w, "compact boundary") && !strings.Contains(w, "no summary") {
					t.Errorf("warning does not say why the boundary is ignored: %q", w)
				}
			}

			// The writer's own view agrees with a reader's.
			s, err = p.Open(context.Background(), s.ID())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			mine, err := s.LoadLive(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(contents(mine), ","); got != tt.want {
				t.Errorf("Session.LoadLive = %s, want %s", got, tt.want)
			}
		})
	}
}

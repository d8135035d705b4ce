package storage

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// streamLive collects what StreamLive yields.
func streamLive(t *testing.T, path string) (summary *Record, recs []LiveRecord, warns []string) {
	t.Helper()
	err := StreamLive(context.Background(), path, func(s *Record) error {
		summary = s
		return nil
	}, func(lr LiveRecord) error {
		recs = append(recs, lr)
		return nil
	}, func(w string) { warns = append(warns, w) })
	if err != nil {
		t.Fatal(err)
	}
	return summary, recs, warns
}

// TestStreamLiveIsLoadLive: StreamLive yields exactly what LoadLive
// returns — records, summary and warnings — for a plain session, a
// compacted one, one with an unfinished compaction and a torn line, one
// whose boundary points at the wrong offset, and one with a rewind.
func TestStreamLiveIsLoadLive(t *testing.T) {
	t.Parallel()
	compacted := func(t *testing.T, s *Session, retainedOff int64, retainedUUID string) {
		t.Helper()
		_, err := s.AppendBatch(
			&Record{Type: TypeSystem, Subtype: SubtypeCompactBoundary, Message: &Message{Role: "system", Content: "compacted"},
				CompactMetadata: &CompactMetadata{Trigger: TriggerManual, PreTokens: 100, RetainedOffset: retainedOff, RetainedUUID: retainedUUID}},
			&Record{Type: TypeUser, IsCompactSummary: true, Message: &Message{Role: "user", Content: "the summary"},
				CompactMetadata: &CompactMetadata{Trigger: TriggerManual, PreTokens: 100, PostTokens: 10}})
		if err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]func(t *testing.T, s *Session){
		"plain": func(t *testing.T, s *Session) {
			mustAppend(t, s, userRecord("one"))
			mustAppend(t, s, assistantRecord("two", 1, 1))
		},
		"compacted": func(t *testing.T, s *Session) {
			mustAppend(t, s, userRecord("old"))
			r := userRecord("kept")
			off := mustAppend(t, s, r)
			mustAppend(t, s, assistantRecord("kept too", 1, 1))
			compacted(t, s, off, r.UUID)
			mustAppend(t, s, userRecord("after"))
		},
		"unfinished compaction and a torn line": func(t *testing.T, s *Session) {
			mustAppend(t, s, userRecord("old"))
			r := userRecord("kept")
			off := mustAppend(t, s, r)
			compacted(t, s, off, r.UUID)
			mustAppend(t, s, userRecord("after"))
			mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeCompactBoundary, Message: &Message{Role: "system", Content: "crashed"},
				CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 5}})
			appendRaw(t, s.Path(), `{"type":"user","mess`)
		},
		"wrong retained offset": func(t *testing.T, s *Session) {
			r := userRecord("kept")
			mustAppend(t, s, userRecord("old"))
			mustAppend(t, s, r)
			compacted(t, s, 3, r.UUID)
		},
		"rewind": func(t *testing.T, s *Session) {
			mustAppend(t, s, userRecord("one"))
			target := userRecord("two")
			mustAppend(t, s, target)
			mustAppend(t, s, assistantRecord("answer", 1, 1))
			mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeRewind, Rewind: &RewindInfo{UUID: target.UUID}})
			mustAppend(t, s, userRecord("three"))
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newTestProject(t)
			s := mustCreate(t, p)
			build(t, s)
			s.Close()
			want, err := LoadLive(context.Background(), s.Path())
			if err != nil {
				t.Fatal(err)
			}
			summary, recs, warns := streamLive(t, s.Path())
			if !reflect.DeepEqual(recs, want.Records) {
				t.Errorf("records differ: stream %d, load %d", len(recs), len(want.Records))
			}
			if !reflect.DeepEqual(summary, want.Summary) {
				t.Errorf("summary = %+v, want %+v", summary, want.Summary)
			}
			if strings.Join(warns, "\n") != strings.Join(want.Warnings, "\n") {
				t.Errorf("warnings = %q, want %q", warns, want.Warnings)
			}
		})
	}
}

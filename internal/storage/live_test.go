package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// compact appends a boundary retaining from the record at retained (with
// uuid retainedUUID) and a summary, as the context manager does.
func compact(t testing.TB, s *Session, retained int64, retainedUUID, summary string) (bOff int64) {
	t.Helper()
	bOff = mustAppend(t, s, &Record{
		Type: TypeSystem, Subtype: SubtypeCompactBoundary,
		Message:         &Message{Role: "system", Content: "Conversation compacted"},
		CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 1000, RetainedOffset: retained, RetainedUUID: retainedUUID},
	})
	mustAppend(t, s, &Record{
		Type: TypeUser, IsCompactSummary: true,
		Message:         &Message{Role: "user", Content: summary},
		CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 1000, PostTokens: 100},
	})
	return bOff
}

func contents(l *Live) []string {
	var out []string
	for _, lr := range l.Records {
		switch {
		case lr.Record.IsBoundary():
			out = append(out, "<boundary>")
		case lr.Record.Message != nil:
			out = append(out, lr.Record.Message.Content)
		case lr.Record.Tool != nil:
			out = append(out, "tool_use "+lr.Record.Tool.ID)
		case lr.Record.ToolResult != nil:
			out = append(out, "tool_result "+lr.Record.ToolResult.ID)
		}
	}
	return out
}

func TestLoadLiveWithoutBoundary(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	defer s.Close()
	var offs []int64
	for i := range 3 {
		offs = append(offs, mustAppend(t, s, userRecord(fmt.Sprint(i))))
	}
	live, err := s.LoadLive(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(contents(live), ","); got != "0,1,2" || live.Boundary != nil || live.Summary != nil {
		t.Fatalf("live = %s (boundary %v)", got, live.Boundary)
	}
	for i, lr := range live.Records {
		if lr.Offset != offs[i] {
			t.Fatalf("offset %d = %d, want %d", i, lr.Offset, offs[i])
		}
	}
}

func TestLoadLiveSeveralBoundaries(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("old 1"))
	mustAppend(t, s, assistantRecord("old 2", 1, 1))
	r3 := userRecord("kept 3")
	off3 := mustAppend(t, s, r3)
	mustAppend(t, s, assistantRecord("kept 4", 1, 1))
	compact(t, s, off3, r3.UUID, "summary A")
	r5 := userRecord("kept 5")
	mustAppend(t, s, r5)
	mustAppend(t, s, &Record{Type: TypeToolUse, Tool: &ToolUse{ID: "c1", Name: "Read", Input: json.RawMessage(`{"file_path":"a"}`)}})
	mustAppend(t, s, &Record{Type: TypeToolResult, ToolResult: &ToolResult{ID: "c1", Output: "x"}})
	// The second compaction retains from before the first boundary: the
	// retained region spans boundary A and summary A, which are superseded.
	b2 := compact(t, s, off3, r3.UUID, "summary B")
	mustAppend(t, s, userRecord("after"))
	s.Close()

	live, err := LoadLive(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := "kept 3,kept 4,kept 5,tool_use c1,tool_result c1,<boundary>,summary B,after"
	if got := strings.Join(contents(live), ","); got != want {
		t.Fatalf("live =\n %s\nwant\n %s", got, want)
	}
	if live.Boundary == nil || live.Records[5].Offset != b2 || live.Summary == nil || live.Summary.Message.Content != "summary B" {
		t.Fatalf("boundary/summary = %+v / %+v", live.Boundary, live.Summary)
	}
	if len(live.Warnings) != 0 {
		t.Fatalf("warnings %q", live.Warnings)
	}
}

func TestLoadLiveNothingRetained(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	defer s.Close()
	mustAppend(t, s, userRecord("old"))
	compact(t, s, 0, "", "summary")
	mustAppend(t, s, userRecord("new"))
	live, err := s.LoadLive(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(contents(live), ","); got != "<boundary>,summary,new" {
		t.Fatalf("live = %s", got)
	}
}

func TestLoadLiveDoesNotDecodeBeforeRetained(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("old"))
	s.Close()
	// Lines that would each warn if decoded, one with a fake marker.
	appendRaw(t, s.Path(), "garbage one\n{\"subtype\":\"compact_boundary\" not json\n\x00\x00\n")
	s, err := p.Open(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	r := userRecord("kept")
	off := mustAppend(t, s, r)
	compact(t, s, off, r.UUID, "summary")
	s.Close()

	live, err := LoadLive(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(live.Warnings) != 0 {
		t.Fatalf("the part before the retained offset was decoded: %q", live.Warnings)
	}
	if got := strings.Join(contents(live), ","); got != "kept,<boundary>,summary" {
		t.Fatalf("live = %s", got)
	}
	// A full replay does see them.
	if _, _, warns := readAll(t, s.Path()); len(warns) != 3 {
		t.Fatalf("ReadAll warnings %q, want 3", warns)
	}
}

func TestLoadLiveWrongRetainedOffsetFallsBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		offset func(good int64) int64
		uuid   func(good string) string
		want   string
	}{
		{"offset points at another record", func(g int64) int64 { return 0 }, func(g string) string { return g }, "kept,more,<boundary>,summary"},
		{"offset mid-line", func(g int64) int64 { return g + 5 }, func(g string) string { return g }, "kept,more,<boundary>,summary"},
		{"offset past the boundary", func(g int64) int64 { return 1 << 40 }, func(g string) string { return g }, "kept,more,<boundary>,summary"},
		{"uuid nowhere", func(g int64) int64 { return 0 }, func(string) string { return "no-such-uuid" }, "<boundary>,summary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustCreate(t, newTestProject(t))
			mustAppend(t, s, userRecord("old"))
			mustAppend(t, s, userRecord("older boundary follows"))
			compact(t, s, 0, "", "superseded summary")
			r := userRecord("kept")
			good := mustAppend(t, s, r)
			mustAppend(t, s, userRecord("more"))
			compact(t, s, tt.offset(good), tt.uuid(r.UUID), "summary")
			s.Close()

			live, err := LoadLive(context.Background(), s.Path())
			if err != nil {
				t.Fatal(err)
			}
			if len(live.Warnings) != 1 || !strings.Contains(live.Warnings[0], "retained offset") || !strings.Contains(live.Warnings[0], s.Path()) {
				t.Fatalf("warnings %q, want one about the retained offset", live.Warnings)
			}
			if got := strings.Join(contents(live), ","); got != tt.want {
				t.Fatalf("live = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestLoadLiveIgnoresMarkerInsideContent(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	defer s.Close()
	mustAppend(t, s, userRecord("old"))
	compact(t, s, 0, "", "summary")
	// The marker as text (escaped) and as a nested object (raw): neither
	// is a boundary.
	mustAppend(t, s, userRecord(`"subtype":"compact_boundary"`))
	mustAppend(t, s, &Record{Type: TypeToolUse, Tool: &ToolUse{ID: "c", Name: "Write", Input: json.RawMessage(`{"type":"system","subtype":"compact_boundary"}`)}})
	live, err := s.LoadLive(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := `<boundary>,summary,"subtype":"compact_boundary",tool_use c`
	if got := strings.Join(contents(live), ","); got != want {
		t.Fatalf("live = %s, want %s", got, want)
	}
}

func TestLoadLiveBoundaryInChunkEdges(t *testing.T) {
	t.Parallel()
	// Boundaries at many positions relative to the 64 KiB chunks, with
	// long lines in between, all found.
	for _, pad := range []int{0, 1, scanChunk - 200, scanChunk - 20, scanChunk, 3 * scanChunk} {
		s := mustCreate(t, newTestProject(t))
		mustAppend(t, s, userRecord(strings.Repeat("p", pad)))
		r := userRecord("kept")
		off := mustAppend(t, s, r)
		compact(t, s, off, r.UUID, "summary")
		mustAppend(t, s, userRecord(strings.Repeat("q", pad)))
		live, err := s.LoadLive(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(live.Records) != 4 || live.Boundary == nil || live.Records[0].Record.Message.Content != "kept" {
			t.Fatalf("pad %d: live = %d records, boundary %v", pad, len(live.Records), live.Boundary)
		}
		s.Close()
	}
}

func TestLoadLiveHonoursRewind(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s, err := p.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u1, u2, u3 := userRecord("one"), userRecord("two"), userRecord("three")
	u2.UUID = "00000000-0000-4000-8000-000000000002"
	for _, r := range []*Record{u1, assistantRecord("a1", 1, 1), u2, assistantRecord("a2", 1, 1),
		{Type: TypeSystem, Subtype: SubtypeRewind, Rewind: &RewindInfo{UUID: u2.UUID}},
		u3, assistantRecord("a3", 1, 1),
		{Type: TypeSystem, Subtype: SubtypeRewind, Rewind: &RewindInfo{UUID: "not-in-the-live-context"}},
	} {
		if _, err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	live, err := s.LoadLive(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, lr := range live.Records {
		if lr.Record.Message != nil {
			got = append(got, lr.Record.Message.Content)
		} else {
			got = append(got, lr.Record.Subtype)
		}
	}
	// The rewind that found its target dropped it and what followed (and
	// itself); the one whose target is not there is ignored.
	if strings.Join(got, ",") != "one,a1,three,a3" {
		t.Fatalf("live after rewind = %v", got)
	}
}

// TestLoadLiveRewindsPastACompaction: a rewind whose target a compaction
// replaced brings back the context as it was just before that message —
// the older summary and the records it kept — and what followed the
// rewind; a compaction after it starts from that context.
func TestLoadLiveRewindsPastACompaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := newTestProject(t).Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u1, u2, u3 := userRecord("one"), userRecord("two"), userRecord("three")
	o1 := mustAppend(t, s, u1)
	mustAppend(t, s, assistantRecord("a1", 1, 1))
	compact(t, s, o1, u1.UUID, "first summary")
	o2 := mustAppend(t, s, u2)
	mustAppend(t, s, assistantRecord("a2", 1, 1))
	mustAppend(t, s, u3)
	compact(t, s, 0, "", "second summary") // nothing retained: two is gone
	live, err := s.LoadLive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(contents(live), ","); got != "<boundary>,second summary" {
		t.Fatalf("before the rewind: %s", got)
	}

	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeRewind, Rewind: &RewindInfo{UUID: u2.UUID, Offset: o2}})
	mustAppend(t, s, userRecord("two again"))
	live, err = s.LoadLive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(contents(live), ","); got != "one,a1,<boundary>,first summary,two again" {
		t.Fatalf("after the rewind: %s", got)
	}
	if live.Summary == nil || live.Summary.Message.Content != "first summary" {
		t.Fatalf("summary in force = %+v", live.Summary)
	}
	var streamed []string
	err = StreamLive(ctx, s.Path(), func(*Record) error { return nil }, func(lr LiveRecord) error {
		streamed = append(streamed, lr.Record.UUID)
		return nil
	}, nil)
	if err != nil || len(streamed) != len(live.Records) {
		t.Fatalf("StreamLive gave %d records (%v), LoadLive %d", len(streamed), err, len(live.Records))
	}

	// A wrong offset finds nothing: the rewind is ignored.
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeRewind, Rewind: &RewindInfo{UUID: u3.UUID, Offset: o2}})
	if live, err = s.LoadLive(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(contents(live), ","); got != "one,a1,<boundary>,first summary,two again" {
		t.Fatalf("after a rewind with a wrong offset: %s", got)
	}

	// A compaction after the rewind keeps from "one": the records the
	// rewind dropped stay out.
	compact(t, s, o1, u1.UUID, "third summary")
	if live, err = s.LoadLive(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(contents(live), ","); got != "one,a1,two again,<boundary>,third summary" {
		t.Fatalf("after a compaction that follows the rewind: %s", got)
	}
}

// TestLoadLiveReturnsFromARewind: a rewind whose target is an earlier
// rewind record returns to the conversation as it was just before that
// one (what it dropped, and nothing of what was said after it), and can
// itself be returned from; Rewound names the last rewind honoured.
func TestLoadLiveReturnsFromARewind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := newTestProject(t).Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u1, u2 := userRecord("one"), userRecord("two")
	mustAppend(t, s, u1)
	mustAppend(t, s, assistantRecord("a1", 1, 1))
	o2 := mustAppend(t, s, u2)
	mustAppend(t, s, assistantRecord("a2", 1, 1))
	back := &Record{Type: TypeSystem, Subtype: SubtypeRewind, Rewind: &RewindInfo{UUID: u2.UUID, Offset: o2}}
	oBack := mustAppend(t, s, back)
	mustAppend(t, s, userRecord("two instead"))
	load := func() (*Live, string) {
		t.Helper()
		live, err := s.LoadLive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return live, strings.Join(contents(live), ",")
	}
	if live, got := load(); got != "one,a1,two instead" || live.Rewound == nil || live.Rewound.Record.UUID != back.UUID {
		t.Fatalf("after the rewind: %s (rewound %+v)", got, live.Rewound)
	}

	forth := &Record{Type: TypeSystem, Subtype: SubtypeRewind, Rewind: &RewindInfo{UUID: back.UUID, Offset: oBack}}
	oForth := mustAppend(t, s, forth)
	mustAppend(t, s, userRecord("three"))
	if live, got := load(); got != "one,a1,two,a2,three" || live.Rewound == nil || live.Rewound.Record.UUID != forth.UUID {
		t.Fatalf("after the return: %s (rewound %+v)", got, live.Rewound)
	}

	// Returning from the return is the rewound conversation again.
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeRewind, Rewind: &RewindInfo{UUID: forth.UUID, Offset: oForth}})
	if _, got := load(); got != "one,a1,two instead" {
		t.Fatalf("after returning from the return: %s", got)
	}
}

package storage

import (
	"context"
	"os"
	"strings"
	"testing"
)

func liveContents(l *Live) string {
	var got []string
	for _, lr := range l.Records {
		r := lr.Record
		switch {
		case r.IsBoundary():
			got = append(got, "boundary")
		case r.Message != nil:
			got = append(got, r.UUID[:8]+":"+r.Message.Content)
		default:
			got = append(got, r.Type+"/"+r.Subtype)
		}
	}
	return strings.Join(got, ",")
}

// TestAppendForkCopiesTheLiveContextOnly: a fork of a compacted session
// holds the fork record and the parent's live context — retained records,
// boundary, summary, what came after — and resumes to the same context;
// the history before the retained records is not copied, and the parent's
// file is not written.
func TestAppendForkCopiesTheLiveContextOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newTestProject(t)
	parent := mustCreate(t, p)
	mustAppend(t, parent, userRecord("old history, summarised away"))
	mustAppend(t, parent, assistantRecord("old reply", 1, 1))
	kept := userRecord("retained question")
	retOff := mustAppend(t, parent, kept)
	mustAppend(t, parent, assistantRecord("retained answer", 1, 1))
	if _, err := parent.AppendBatch(
		&Record{Type: TypeSystem, Subtype: SubtypeCompactBoundary, Message: &Message{Role: "system", Content: "Conversation compacted"},
			CompactMetadata: &CompactMetadata{Trigger: TriggerManual, PreTokens: 100, RetainedOffset: retOff, RetainedUUID: kept.UUID}},
		&Record{Type: TypeUser, IsCompactSummary: true, Message: &Message{Role: "user", Content: "the summary"},
			CompactMetadata: &CompactMetadata{Trigger: TriggerManual, PreTokens: 100, PostTokens: 20}},
	); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, parent, userRecord("after the compaction"))
	want, err := parent.LoadLive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(parent.Path())

	fork := mustCreate(t, p)
	defer fork.Close()
	if err := fork.AppendFork(parent.ID(), want); err != nil {
		t.Fatal(err)
	}
	got, err := fork.LoadLive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) > 0 || got.Boundary == nil || got.Summary == nil {
		t.Fatalf("the fork does not resume from its boundary: %q", got.Warnings)
	}
	// The fork record comes before the retained records, so the live context
	// from the retained offset is exactly the parent's.
	if liveContents(got) != liveContents(want) {
		t.Fatalf("fork live context\n%s\nwant\n%s", liveContents(got), liveContents(want))
	}
	lines := readLines(t, fork.Path())
	if !strings.Contains(lines[0], `"subtype":"fork"`) || !strings.Contains(lines[0], parent.ID()) ||
		strings.Contains(strings.Join(lines, "\n"), "old history") {
		t.Fatalf("fork file:\n%s", strings.Join(lines, "\n"))
	}
	after, _ := os.ReadFile(parent.Path())
	if string(before) != string(after) {
		t.Fatal("the parent's file changed")
	}
}

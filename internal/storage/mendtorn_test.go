package storage

import (
	"context"
	"testing"
)

// TestMendTornTailKeepsTheSessionWhole: a write cut between a compaction's
// boundary and its summary (a kill in the middle of an import's batch)
// leaves a torn line; MendTornTail acknowledges it with a repair record
// before the summary is written again, and then the session has nothing
// for `sessions check` to report, and a load finds the compaction: the
// torn line and the repair record do not part the boundary from its
// summary (issue 32). A last line that decodes whole is a record, and is
// left alone.
func TestMendTornTailKeepsTheSessionWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newTestProject(t)
	s := mustCreate(t, p)
	first := userRecord("first")
	mustAppend(t, s, first)
	mustAppend(t, s, boundaryRecord(0, first.UUID))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, s.Path(), `{"type":"user","isCompactSumm`)
	s, err := p.Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if mended, err := s.MendTornTail(); err != nil || !mended {
		t.Fatalf("MendTornTail = %v, %v; want a repair", mended, err)
	}
	if mended, err := s.MendTornTail(); err != nil || mended {
		t.Fatalf("MendTornTail again = %v, %v; want nothing to do", mended, err)
	}
	mustAppend(t, s, summaryRecord("the summary"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := CheckSession(ctx, s.Path(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) > 0 {
		t.Errorf("sessions check finds %+v", c.Problems)
	}
	l, err := LoadLive(ctx, s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if l.Summary == nil || l.Summary.Message.Content != "the summary" || len(l.Warnings) > 0 {
		t.Errorf("load: summary %+v, warnings %q; want the compaction in force, silently", l.Summary, l.Warnings)
	}

	// A record whole but for its '\n' needs no repair.
	whole := mustCreate(t, p)
	mustAppend(t, whole, userRecord("one"))
	if err := whole.Close(); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, whole.Path(), `{"type":"user","uuid":"u2","message":{"role":"user","content":"two"}}`)
	whole, err = p.Open(ctx, whole.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	if mended, err := whole.MendTornTail(); err != nil || mended {
		t.Errorf("MendTornTail of a whole record = %v, %v; want nothing", mended, err)
	}
}

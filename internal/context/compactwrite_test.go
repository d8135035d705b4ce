package contextmgr

import (
	"context"
	"errors"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestCompactionIsOneWrite: a compaction's boundary and summary reach the
// log in one AppendBatch, boundary first, so no crash can fall between
// them. A Log without AppendBatch still gets both, one after the other,
// and either way a resume restores the compacted context.
func TestCompactionIsOneWrite(t *testing.T) {
	t.Parallel()
	for _, batch := range []bool{true, false} {
		f := newFixture(t, 8000, nil)
		if !batch {
			m, err := New(context.Background(), appendOnly{f.log}, nil, f.opt)
			if err != nil {
				t.Fatal(err)
			}
			f.m = m
		}
		for i := range 6 {
			f.turn(i)
		}
		before := len(f.log.writes)
		if _, err := f.m.Compact(context.Background(), storage.TriggerManual, ""); err != nil {
			t.Fatal(err)
		}
		writes := f.log.writes[before:]
		want := 1
		if !batch {
			want = 2
		}
		if len(writes) != want {
			t.Fatalf("batch %v: the compaction made %d writes, want %d", batch, len(writes), want)
		}
		var recs []*storage.Record
		for _, w := range writes {
			recs = append(recs, w...)
		}
		if len(recs) != 2 || !recs[0].IsBoundary() || !recs[1].IsSummary() {
			t.Fatalf("batch %v: the compaction wrote %d records, want the boundary then the summary", batch, len(recs))
		}
		if recs[1].ParentUUID == nil || *recs[1].ParentUUID != recs[0].UUID {
			t.Errorf("batch %v: the summary's parent is not the boundary", batch)
		}
		want1 := f.request().Messages
		got := f.resume(false)
		req, err := got.Request(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(req.Messages) != len(want1) || req.Messages[1].Content != want1[1].Content {
			t.Errorf("batch %v: the resumed request differs from the compacting process's", batch)
		}
	}
}

// TestCompactionWriteFails: when the one write fails nothing of the
// compaction is in force: the live context is what it was.
func TestCompactionWriteFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 8000, nil)
	for i := range 6 {
		f.turn(i)
	}
	before := f.request()
	f.log.failErr = errors.New("disk full")
	if _, err := f.m.Compact(context.Background(), storage.TriggerManual, ""); err == nil {
		t.Fatal("compaction succeeded on a failing log")
	}
	f.log.failErr = nil
	if f.m.Compactions() != 0 || f.m.live.summary() != nil {
		t.Fatal("a compaction whose write failed is in force")
	}
	if after := f.request(); len(after.Messages) != len(before.Messages) {
		t.Errorf("the request changed after a failed compaction: %d messages, was %d", len(after.Messages), len(before.Messages))
	}
}

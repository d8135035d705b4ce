package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// recordLine is r as a session line, as another program might write it.
func recordLine(t *testing.T, sessionID, uuid string, r *storage.Record) []byte {
	t.Helper()
	r.UUID, r.SessionID, r.Timestamp = uuid, sessionID, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// appendBehind appends lines to a session file as another program does:
// in place, leaving the project directory's stamp where it was.
func appendBehind(t *testing.T, path string, lines ...[]byte) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	for _, l := range lines {
		if _, err := fh.Write(l); err != nil {
			t.Fatal(err)
		}
	}
}

// An index that trusts a project's stamp takes the project from its
// manifest without looking at its files: a record another program
// appended in place is not seen (its stamp did not move), and is once
// clawdcode appends anything to the project, which moves the stamp.
// Without the store's touch after an append, the last search finds 2.
func TestAnAppendMovesTheProjectsStamp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.now = later
	p := f.project()
	a := f.session(p, user("heron one"))
	b := f.session(p, user("heron two"))
	if n := len(f.search(Query{Text: "heron"})); n != 2 {
		t.Fatalf("%d hits, want 2", n)
	}
	appendBehind(t, a.Path(), recordLine(t, a.ID(), "behind-1", user("heron three")))
	if n := len(f.search(Query{Text: "heron"})); n != 2 {
		t.Fatalf("%d hits with the project's stamp unmoved, want 2: the index looked at the files of a project it had no reason to", n)
	}
	f.append(b, assistant("heron four"))
	if n := len(f.search(Query{Text: "heron"})); n != 4 {
		t.Errorf("%d hits after an append moved the stamp, want 4", n)
	}
	if len(f.warns) != 0 {
		t.Errorf("warnings: %q", f.warns)
	}
}

// Records a sync brings (AppendReplica writes another store's lines as
// they are) move the project's stamp as an append does, so the next
// search finds them. Without the touch in AppendReplica it finds 1.
func TestARecordSyncedInIsFound(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.now = later
	p := f.project()
	a := f.session(p, user("egret one"))
	if n := len(f.search(Query{Text: "egret"})); n != 1 {
		t.Fatalf("%d hits, want 1", n)
	}
	if _, err := a.AppendReplica(recordLine(t, a.ID(), "synced-1", user("egret two"))); err != nil {
		t.Fatal(err)
	}
	if n := len(f.search(Query{Text: "egret"})); n != 2 {
		t.Errorf("%d hits after a synced record, want 2", n)
	}
}

// A session file another program rewrote in place (no rename, so the
// project's stamp did not move) is found out by the first hit read from
// it: the file is indexed anew and the search asked again, with the
// answer a fresh index gives and no word of damage.
func TestAFileRewrittenInPlaceIsIndexedAnew(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.now = later
	p := f.project()
	s := f.session(p, user("walrus tusk"), assistant("walrus reply"))
	if n := len(f.search(Query{Text: "walrus"})); n != 2 {
		t.Fatalf("%d hits, want 2", n)
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.OpenFile(s.Path(), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.Write(recordLine(t, s.ID(), "r1", user("a narwhal horn, much longer than before")))
	fh.Write(recordLine(t, s.ID(), "r2", user("the walrus once")))
	fh.Close()
	// Written a second later, as another program would (a write in the
	// same clock tick as the last could leave the mtime as it was).
	later := fi.ModTime().Add(time.Second)
	if err := os.Chtimes(s.Path(), later, later); err != nil {
		t.Fatal(err)
	}
	hits := f.search(Query{Text: "walrus"})
	if len(hits) != 1 || hits[0].UUID != "r2" {
		t.Errorf("hits %+v, want r2 alone", hits)
	}
	if n := len(f.search(Query{Text: "narwhal"})); n != 1 {
		t.Errorf("narwhal: %d hits, want 1", n)
	}
	if len(f.warns) != 0 {
		t.Errorf("a file changed behind the index is no damage: %q", f.warns)
	}
}

// More hits than the limit: Find says so and how many records match; a
// limit of up to 100,000 returns them all (the hits read stopped at
// 20,000 before, whatever the limit).
func TestALimitReturnsEveryHitAndSaysWhenThereAreMore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project()
	s := f.session(p)
	const n = 25000
	for i := 0; i < n; i += 1000 {
		batch := make([]*storage.Record, 1000)
		for k := range batch {
			batch[k] = user(fmt.Sprintf("gannet number %d", i+k))
		}
		if _, err := s.AppendBatch(batch...); err != nil {
			t.Fatal(err)
		}
	}
	ix := f.index()
	ctx := context.Background()
	all, err := ix.Find(ctx, Query{Text: "gannet", Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	uuids := map[string]bool{}
	for _, h := range all.Hits {
		uuids[h.UUID] = true
	}
	if len(all.Hits) != n || len(uuids) != n || all.More || all.Matched != n {
		t.Errorf("limit %d: %d hits (%d records), more %v, matched %d; want %d, none more", MaxLimit, len(all.Hits), len(uuids), all.More, all.Matched, n)
	}
	for _, c := range []struct {
		q     string
		limit int
		hits  int
		more  bool
	}{
		{"gannet", n - 1, n - 1, true},
		{"gannet", 20, 20, true},
		{"gannet", n, n, false},
		{`"gannet number 7"`, 1, 1, false},
		{"number 24999", 1, 1, false},
		{"number 2499", 1, 1, false},
		{"gannet 17", 5, 1, false},
	} {
		r, err := ix.Find(ctx, Query{Text: c.q, Limit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hits) != c.hits || r.More != c.more {
			t.Errorf("%s, limit %d: %d hits, more %v; want %d, %v", c.q, c.limit, len(r.Hits), r.More, c.hits, c.more)
		}
		if line := MoreLine(r); (line != "") != c.more {
			t.Errorf("%s, limit %d: more line %q", c.q, c.limit, line)
		}
	}
	r, _ := ix.Find(ctx, Query{Text: "gannet", Limit: 20})
	if want := fmt.Sprintf("20 of %d matching records shown; --limit %d shows them all", n, n); MoreLine(r) != want {
		t.Errorf("more line %q, want %q", MoreLine(r), want)
	}
}

// The index's answer equals a brute-force one after another program
// replaced a session file (written elsewhere and renamed over it, as a
// copy or a sync does) or added one, with the project's stamp trusted:
// the kernel moved it.
func TestFilesReplacedOrAddedBehindTheStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.now = later
	p := f.project()
	a := f.session(p, user("osprey alpha"), assistant("osprey beta"))
	f.session(p, user("osprey gamma"))
	f.search(Query{Text: "osprey"})
	// a, replaced: one record kept, one changed, one added.
	tmp := a.Path() + ".part"
	lines := slices.Concat(recordLine(t, a.ID(), "k1", user("osprey alpha")),
		recordLine(t, a.ID(), "k2", user("kestrel instead")),
		recordLine(t, a.ID(), "k3", assistant("osprey delta")))
	if err := os.WriteFile(tmp, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, a.Path()); err != nil {
		t.Fatal(err)
	}
	// A new session file, copied in.
	id := "0badc0de-0000-4000-8000-000000000001"
	if err := os.WriteFile(p.Path(id), recordLine(t, id, "n1", user("osprey epsilon")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"osprey", "kestrel", "alpha"} {
		cs, _ := parseQuery(q)
		hits := f.search(Query{Text: q, Limit: 100})
		var got []string
		for _, h := range hits {
			got = append(got, h.SessionID+" "+h.UUID)
		}
		slices.Sort(got)
		if want := bruteForce(t, f.store, cs); !slices.Equal(got, want) {
			t.Errorf("%s:\n index %q\n files %q", q, got, want)
		}
	}
	if len(f.warns) != 0 {
		t.Errorf("warnings: %q", f.warns)
	}
}

// A build reports its progress: at its end, every file and byte it had
// to read, and Done; a search that reads nothing new tells nothing.
func TestABuildReportsItsProgress(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project()
	var size int64
	for i := range 3 {
		s := f.session(p, user(fmt.Sprintf("puffin %d", i)), assistant("a puffin reply"))
		fi, err := os.Stat(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	var got []Progress
	ix := f.index()
	ix.OnProgress(func(p Progress) { got = append(got, p) })
	if _, err := ix.Find(context.Background(), Query{Text: "puffin"}); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("no progress reported")
	}
	last := got[len(got)-1]
	if !last.Done || last.Files != 3 || last.TotalFiles != 3 || last.Bytes != size || last.TotalBytes != size {
		t.Errorf("last report %+v, want 3 of 3 files, %d of %d bytes, done", last, size, size)
	}
	got = nil
	if _, err := ix.Find(context.Background(), Query{Text: "puffin"}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("a search with nothing to read reported %+v", got)
	}
}

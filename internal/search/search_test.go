package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

type fixture struct {
	t     *testing.T
	store *storage.Store
	warns []string
	now   func() time.Time // the index's clock (nil: the real one)
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{t: t, store: storage.NewStore(t.TempDir())}
}

func (f *fixture) index() *Index {
	ix := New(f.store, func(s string) { f.warns = append(f.warns, s) })
	if f.now != nil {
		ix.now = f.now
	}
	return ix
}

// later is a clock an hour ahead: every project's change stamp is old
// when the index reads it, so the index trusts it (none is racy), as it
// trusts a project left alone for a while.
func later() time.Time { return time.Now().Add(time.Hour) }

func (f *fixture) project() *storage.Project {
	f.t.Helper()
	p, err := f.store.Project(f.t.TempDir())
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) session(p *storage.Project, recs ...*storage.Record) *storage.Session {
	f.t.Helper()
	s, err := p.Create(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { s.Close() })
	f.append(s, recs...)
	return s
}

func (f *fixture) append(s *storage.Session, recs ...*storage.Record) {
	f.t.Helper()
	for _, r := range recs {
		if _, err := s.Append(r); err != nil {
			f.t.Fatal(err)
		}
	}
}

func user(text string) *storage.Record {
	return &storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: text}}
}

func assistant(text string) *storage.Record {
	return &storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: text}}
}

func (f *fixture) search(q Query) []Hit {
	f.t.Helper()
	hits, err := f.index().Search(context.Background(), q)
	if err != nil {
		f.t.Fatal(err)
	}
	return hits
}

func TestSearchFindsEveryKindOfRecord(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project()
	s := f.session(p,
		user("please fix the flaky parser test"),
		assistant("I will look at parser_test.go first."),
		&storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: "c1", Name: "Bash", Input: json.RawMessage(`{"command":"go test ./zebrapkg/..."}`)}},
		&storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: "c1", Output: "FAIL quokka_test.go:12 unexpected EOF"}},
		&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeCompactBoundary, Message: &storage.Message{Role: "system", Content: "Conversation compacted wombat"}},
	)
	for q, typ := range map[string]string{"flaky": "user", "parser_test.go": "assistant", "zebrapkg": "tool_use", "quokka": "tool_result"} {
		hits := f.search(Query{Text: q})
		if len(hits) != 1 || hits[0].Type != typ || hits[0].SessionID != s.Info().ID || hits[0].Project != p.Root {
			t.Errorf("search %q = %+v, want one %s hit in %s", q, hits, typ, s.Info().ID)
		}
	}
	if hits := f.search(Query{Text: "wombat"}); len(hits) != 0 {
		t.Errorf("system records are not searched, got %+v", hits)
	}
}

func TestSearchRequiresEveryWordAndPhrases(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project()
	f.session(p, user("the red fox jumps"), user("the fox is red"), user("a blue fox"))
	if got := len(f.search(Query{Text: "red fox"})); got != 2 {
		t.Errorf("red fox: %d hits, want 2", got)
	}
	hits := f.search(Query{Text: `"red fox"`})
	if len(hits) != 1 || !strings.Contains(hits[0].Snippet, "red fox") {
		t.Errorf(`"red fox": %+v, want the one record with the phrase`, hits)
	}
	if got := len(f.search(Query{Text: "red fox green"})); got != 0 {
		t.Errorf("a missing word must exclude: %d hits", got)
	}
	if _, err := f.index().Search(context.Background(), Query{Text: ` "" ..`}); err == nil {
		t.Error("a query without words must fail")
	}
}

func TestSearchScopesAndRanks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.project(), f.project()
	sa := f.session(a, user("kumquat once"), user("kumquat kumquat kumquat, nothing but kumquat"))
	f.session(b, user("kumquat in the other project"))
	if got := f.search(Query{Text: "kumquat", Project: a.Root}); len(got) != 2 || got[0].Score < got[1].Score || !strings.Contains(got[0].Snippet, "nothing but") {
		t.Errorf("project-scoped, ranked: %+v", got)
	}
	if got := f.search(Query{Text: "kumquat"}); len(got) != 3 {
		t.Errorf("every project: %d hits, want 3", len(got))
	}
	if got := f.search(Query{Text: "kumquat", Session: sa.Info().ID[:6]}); len(got) != 2 {
		t.Errorf("session prefix: %d hits, want 2", len(got))
	}
	if got := f.search(Query{Text: "kumquat", Limit: 1}); len(got) != 1 {
		t.Errorf("limit 1: %d hits", len(got))
	}
}

func TestSearchSeesAppendedRecordsAndSurvivesIndexLoss(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project()
	s := f.session(p, user("first message about pelicans"))
	if got := len(f.search(Query{Text: "pelicans"})); got != 1 {
		t.Fatalf("pelicans: %d hits", got)
	}
	// Appended after the first search: found by the next one.
	for i := range 5 {
		f.append(s, assistant("pelicans again, turn "+string(rune('a'+i))))
		if got := len(f.search(Query{Text: "pelicans"})); got != i+2 {
			t.Fatalf("after append %d: %d hits", i, got)
		}
	}
	// A torn last line is not indexed, and is once it is whole.
	path := p.Path(s.Info().ID)
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	torn := `{"uuid":"u-torn","type":"user","message":{"role":"user","content":"pelicans torn`
	fh.WriteString(torn)
	if got := len(f.search(Query{Text: "pelicans"})); got != 6 {
		t.Errorf("torn line: %d hits, want 6", got)
	}
	fh.WriteString(`"}}` + "\n")
	if got := len(f.search(Query{Text: "torn"})); got != 1 {
		t.Errorf("completed line: %d hits, want 1", got)
	}
	// Deleting the index loses nothing.
	if err := os.RemoveAll(filepath.Join(f.store.Home(), "search")); err != nil {
		t.Fatal(err)
	}
	if got := len(f.search(Query{Text: "pelicans"})); got != 7 {
		t.Errorf("after deleting the index: %d hits, want 7", got)
	}
	if len(f.warns) != 0 {
		t.Errorf("a missing index is no damage: %q", f.warns)
	}
}

func TestSearchRebuildsADamagedIndex(t *testing.T) {
	t.Parallel()
	for _, damage := range []string{"manifest", "segment"} {
		f := newFixture(t)
		p := f.project()
		f.session(p, user("ocelot"), assistant("ocelot reply"))
		f.search(Query{Text: "ocelot"})
		dir := filepath.Join(f.store.Home(), "search")
		if damage == "manifest" {
			os.WriteFile(filepath.Join(dir, manifestName), []byte("{not json"), 0o600)
		} else {
			segs, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
			if len(segs) == 0 {
				t.Fatal("no segment written")
			}
			os.WriteFile(segs[0], []byte("CCSEARCH garbage"), 0o600)
		}
		if got := len(f.search(Query{Text: "ocelot"})); got != 2 {
			t.Errorf("%s damaged: %d hits, want 2", damage, got)
		}
		if len(f.warns) != 1 || !strings.Contains(f.warns[0], "rebuilding") {
			t.Errorf("%s damaged: warnings %q", damage, f.warns)
		}
	}
}

func TestSearchForgetsRemovedSessionsAndMerges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project()
	keep := f.session(p, user("narwhal kept"))
	gone := f.session(p, user("narwhal removed"))
	f.search(Query{Text: "narwhal"})
	gone.Close()
	if err := p.Remove(gone.Info().ID); err != nil {
		t.Fatal(err)
	}
	for i := range 40 { // many small updates: merged as they come
		f.append(keep, user("narwhal more"))
		_ = i
		f.search(Query{Text: "narwhal"})
	}
	hits := f.search(Query{Text: "narwhal", Limit: 100})
	if len(hits) != 41 {
		t.Errorf("%d hits, want 41", len(hits))
	}
	for _, h := range hits {
		if h.SessionID != keep.Info().ID {
			t.Errorf("hit in a removed session: %+v", h)
		}
	}
	segs, _ := filepath.Glob(filepath.Join(f.store.Home(), "search", "*.seg"))
	if len(segs) > 8 {
		t.Errorf("%d segments after 40 updates: merging does not keep up", len(segs))
	}
}

func TestTerms(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Hello, World_42!":   "hello world 42",
		"ÉCOLE été":          "école été",
		"日本語のテキスト":           "日 本 語 の テ キ ス ト",
		"path/to/file.go:12": "path to file go 12",
	} {
		if got := strings.Join(terms(in), " "); got != want {
			t.Errorf("terms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSessionsRanksSessionsOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project()
	a := f.session(p, user("axolotl"), user("axolotl axolotl axolotl"))
	b := f.session(p, user("axolotl and many other words that dilute the match a lot"))
	f.session(p, user("nothing here"))
	ids, err := f.index().Sessions(context.Background(), Query{Text: "axolotl", Project: p.Root})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != a.Info().ID || ids[1] != b.Info().ID {
		t.Errorf("Sessions = %v, want [%s %s]", ids, a.Info().ID, b.Info().ID)
	}
}

// The heap keeps the k best candidates, best first, whatever k is.
func TestTopHeapMatchesSort(t *testing.T) {
	t.Parallel()
	var cands []candidate
	for i := range 500 {
		cands = append(cands, candidate{seg: i % 3, doc: uint32(i), score: float64((i * 7919) % 101)})
	}
	best := func(k int) []candidate {
		h := &topHeap{k: k}
		for _, c := range cands {
			h.push(c)
		}
		return h.sorted()
	}
	all := best(len(cands))
	for _, k := range []int{1, 5, 20, 499} {
		got := best(k)
		if len(got) != k {
			t.Fatalf("k=%d: %d candidates", k, len(got))
		}
		for i := range got {
			if got[i] != all[i] {
				t.Fatalf("k=%d: [%d] = %+v, want %+v", k, i, got[i], all[i])
			}
		}
	}
}

// A phrase whose words many better-scoring records have apart: the
// search reads past them (beyond the few it first keeps) to the record
// that has the phrase.
func TestPhraseBeyondTheFirstCandidates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project()
	var recs []*storage.Record
	for range 150 {
		recs = append(recs, user("red car fox red car fox red car fox"))
	}
	recs = append(recs, user("somewhere in a much longer text about many other things there is one red fox and more words after it"))
	f.session(p, recs...)
	hits := f.search(Query{Text: `"red fox"`, Limit: 1})
	if len(hits) != 1 || !strings.Contains(hits[0].Snippet, "one red fox") {
		t.Errorf(`"red fox": %+v`, hits)
	}
}

package recall

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

type fixture struct {
	store *storage.Store
	proj  *storage.Project
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	store := storage.NewStore(t.TempDir())
	p, err := store.Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{store: store, proj: p}
}

// session writes a session of the given records and returns its id.
func (f *fixture) session(t *testing.T, recs ...*storage.Record) string {
	t.Helper()
	s, err := f.proj.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if _, err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.ID()
}

func user(text string) *storage.Record {
	return &storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: text}}
}

func assistant(text string) *storage.Record {
	return &storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: text}}
}

func bash(id, cmd string) *storage.Record {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return &storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: id, Name: "Bash", Input: in}}
}

func result(id, out string) *storage.Record {
	return &storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: id, Output: out}}
}

func (f *fixture) searcher(id string) *Searcher {
	return &Searcher{Store: f.store, Project: f.proj, Session: func() string { return id }}
}

func TestFindNewestFirstAllTermsAnyCase(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.session(t,
		user("please run the migration"),
		assistant("Running it."),
		bash("c1", "psql -f migrations/0042_add_index.sql"),
		result("c1", "ERROR: relation \"orders_idx\" already exists"),
		user("The Migration failed, orders again"),
		assistant("I will drop the index first."),
	)
	s := f.searcher(id)
	ctx := context.Background()

	hits, err := s.Find(ctx, "migration", tools.ScopeSession, 10)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, h := range hits {
		types = append(types, h.Type)
	}
	// Newest first; "Migration" and "migration" and "migrations/" all count.
	if got := strings.Join(types, ","); got != "user,tool_use,user" {
		t.Fatalf("hits = %s (%+v)", got, hits)
	}
	hits, err = s.Find(ctx, `"already exists" orders_idx`, tools.ScopeSession, 10)
	if err != nil || len(hits) != 1 || hits[0].Type != "tool_result" || !strings.Contains(hits[0].Text, `relation "orders_idx" already exists`) {
		t.Fatalf("phrase hits = %+v, %v", hits, err)
	}
	if hits, _ := s.Find(ctx, "migration nonexistentword", tools.ScopeSession, 10); len(hits) != 0 {
		t.Fatalf("a missing term still matched: %+v", hits)
	}
	if hits, _ := s.Find(ctx, "migration", tools.ScopeSession, 1); len(hits) != 1 || hits[0].Type != "user" {
		t.Fatalf("limit 1 = %+v", hits)
	}
}

func TestFindProjectScopeSeesOtherSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.session(t, user("the deploy key lives in vault path secret/data/deploy-7731"))
	cur := f.session(t, user("where was the deploy key?"))
	// Scanned, and through the index of `clawdcode search`.
	for _, ix := range []Index{nil, search.New(f.store, nil)} {
		s := f.searcher(cur)
		s.Index = ix
		ctx := context.Background()
		if hits, _ := s.Find(ctx, "deploy-7731", tools.ScopeSession, 10); len(hits) != 0 {
			t.Fatalf("session scope found another session's record: %+v", hits)
		}
		hits, err := s.Find(ctx, "deploy-7731", tools.ScopeProject, 10)
		if err != nil || len(hits) != 1 || hits[0].SessionID == cur || !strings.Contains(hits[0].Text, "secret/data/deploy-7731") {
			t.Fatalf("project hits (index %v) = %+v, %v", ix != nil, hits, err)
		}
	}
}

func TestAroundReturnsRecordsFirstPageAndNeighbours(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	long := strings.Repeat("line of output\n", 2000)
	recs := []*storage.Record{user("one"), assistant("two"), bash("c1", "make test"), result("c1", long), user("five"), assistant("six")}
	id := f.session(t, recs...)
	s := f.searcher(id)
	ref := recs[3].UUID
	hits, err := s.Around(context.Background(), ref[:8], tools.ScopeSession, 2)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, h := range hits {
		types = append(types, h.Type)
		if h.Ref != (h.UUID == ref) {
			t.Fatalf("ref flag wrong on %+v", h)
		}
	}
	if got := strings.Join(types, ","); got != "assistant,tool_use,tool_result,user,assistant" {
		t.Fatalf("around = %s", got)
	}
	if h := hits[2]; h.Text != long[:tools.RecallRecordCap] || h.Offset != 0 || h.Total != len(long) {
		t.Fatalf("the ref's first page: %d bytes from %d of %d", len(h.Text), h.Offset, h.Total)
	}
	if _, err := s.Around(context.Background(), "ffffffff-0000", tools.ScopeSession, 2); !errors.Is(err, ErrRefNotFound) {
		t.Fatalf("unknown ref: %v", err)
	}
}

func TestRecallToolBoundsItsAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	big := strings.Repeat("x", 200000)
	recs := []*storage.Record{user(big), assistant(big), user(big + " needle"), assistant(big), user(big)}
	id := f.session(t, recs...)
	tool := tools.NewRecall(f.searcher(id))
	res := tool.Run(context.Background(), json.RawMessage(`{"ref":"`+recs[2].UUID+`"}`))
	if res.Error != "" || len(res.Output) > tools.OutputCap+2000 || !strings.Contains(res.Output, recs[2].UUID) {
		t.Fatalf("ref answer: %d bytes, error %q", len(res.Output), res.Error)
	}
	res = tool.Run(context.Background(), json.RawMessage(`{"query":"needle"}`))
	if res.Error != "" || len(res.Output) > 2000 || !strings.Contains(res.Output, "ref "+recs[2].UUID) {
		t.Fatalf("query answer: %q %q", res.Output, res.Error)
	}
}

func TestForkedSessionSearchesItsParentUpToTheFork(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	before := user("the secret number is 8675309")
	parent := f.session(t, before, assistant("noted"))
	// A later turn of the parent, after the fork point, is not the fork's.
	p, err := f.proj.Open(context.Background(), parent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Append(user("parent only: 5551212")); err != nil {
		t.Fatal(err)
	}
	p.Close()
	fork := f.session(t, &storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeFork,
		Fork: &storage.ForkInfo{SessionID: parent, UUID: before.UUID}}, user("go on"))
	s := f.searcher(fork)
	ctx := context.Background()
	if hits, _ := s.Find(ctx, "8675309", tools.ScopeSession, 10); len(hits) != 1 {
		t.Fatalf("the fork does not see its parent's history: %+v", hits)
	}
	if hits, _ := s.Find(ctx, "5551212", tools.ScopeSession, 10); len(hits) != 0 {
		t.Fatalf("the fork sees the parent's later turns: %+v", hits)
	}
}

// A compaction's boundary, opened by its ref, shows the ledger it stored
// whole, every entry with its ref: the request after the compaction
// names that ref for the entries its share could not hold.
func TestAroundShowsABoundarysLedger(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	boundary := &storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeCompactBoundary,
		CompactMetadata: &storage.CompactMetadata{Ledger: &storage.Ledger{
			Files:    []storage.LedgerFile{{Path: "src/a.go", Op: "read", Ref: "aaaaaaaa-0001"}},
			Commands: []storage.LedgerCommand{{Command: "make test", Exit: 2, Error: "FAIL pkg", Ref: "cccccccc-0003"}},
			Numbers:  []storage.LedgerLine{{Text: "retry budget = 4817263", Source: "Read src/a.go", Ref: "aaaaaaaa-0001"}},
		}}}
	recs := []*storage.Record{user("one"), assistant("two"), boundary, user("summary")}
	id := f.session(t, recs...)
	hits, err := f.searcher(id).Around(context.Background(), boundary.UUID[:8], tools.ScopeSession, 2)
	if err != nil {
		t.Fatal(err)
	}
	var shown string
	for _, h := range hits {
		if h.Ref {
			shown = h.Text
		}
	}
	for _, want := range []string{"src/a.go budget=4817263 ref=aaaaaaaa", "make test → exit status 2: FAIL pkg ref=cccccccc"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the boundary shows no %q:\n%s", want, shown)
		}
	}
}

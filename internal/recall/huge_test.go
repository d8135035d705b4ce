package recall

import (
	"context"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// A record past hugeLine is read without decoding it whole: it is found
// as a small one is (every term, any case, a phrase), with a snippet cut
// around the match, and shown by its ref from its first page.
func TestHugeRecordIsFoundAndShownClipped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	filler := strings.Repeat("lorem ipsum dolor sit amet\n", hugeLine/27/2+1000)
	huge := result("c1", filler+"the Quokka \"hops\" at DUSK\n"+filler)
	id := f.session(t, user("read the log"), bash("c1", "cat log"), huge, assistant("done"))
	s := f.searcher(id)
	ctx := context.Background()
	for _, q := range []string{"quokka dusk", `"the Quokka"`, "QUOKKA"} {
		hits, err := s.Find(ctx, q, tools.ScopeSession, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].Type != "tool_result" || hits[0].UUID != huge.UUID {
			t.Fatalf("%s: hits %+v, want the huge record", q, hits)
		}
		if sn := hits[0].Text; !strings.Contains(sn, `the Quokka "hops" at DUSK`) || len(sn) > 4*snippetRadius || !strings.HasPrefix(sn, "…") {
			t.Errorf("%s: snippet %q", q, sn)
		}
	}
	if hits, _ := s.Find(ctx, "quokka absentword", tools.ScopeSession, 10); len(hits) != 0 {
		t.Errorf("a term the record does not hold matched: %+v", hits)
	}
	around, err := s.Around(ctx, huge.UUID, tools.ScopeSession, 2)
	if err != nil {
		t.Fatal(err)
	}
	var ref *tools.RecallHit
	for i := range around {
		if around[i].Ref {
			ref = &around[i]
		}
	}
	if ref == nil || ref.UUID != huge.UUID || len(ref.Text) > tools.RecallRecordCap+200 || !strings.HasPrefix(ref.Text, "lorem ipsum dolor sit amet\nlorem") {
		t.Fatalf("around the huge record: %+v", around)
	}
	if len(around) != 4 {
		t.Errorf("around: %d records, want the ref and its 3 neighbours with text", len(around))
	}
}

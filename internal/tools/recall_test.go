package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type fakeHistory struct {
	query, ref, scope string
	limit             int
	offset, size      int
	hits              []RecallHit
	page              RecallHit
}

func (f *fakeHistory) Find(_ context.Context, query, scope string, limit int) ([]RecallHit, error) {
	f.query, f.scope, f.limit = query, scope, limit
	return f.hits, nil
}

func (f *fakeHistory) Around(_ context.Context, ref, scope string, n int) ([]RecallHit, error) {
	f.ref, f.scope = ref, scope
	return f.hits, nil
}

func (f *fakeHistory) Page(_ context.Context, ref, scope string, offset, size int) (RecallHit, error) {
	f.ref, f.scope, f.offset, f.size = ref, scope, offset, size
	return f.page, nil
}

func TestRecallAsksOnlyForScopeAll(t *testing.T) {
	t.Parallel()
	r := NewRecall(&fakeHistory{})
	for in, want := range map[string]bool{
		`{"query":"x"}`:                   false,
		`{"query":"x","scope":"session"}`: false,
		`{"query":"x","scope":"project"}`: false,
		`{"query":"x","scope":"all"}`:     true,
		`{"query":"x","scope":" ALL "}`:   true,
		`{"query":"x","scope":["all"]}`:   true,
	} {
		if got := NeedsPermission(r, json.RawMessage(in)); got != want {
			t.Errorf("NeedsPermission(%s) = %v, want %v", in, got, want)
		}
	}
	// Unattended (-p, no rule), scope all is denied and the others run.
	p := NewPermissions(PermissionsConfig{})
	if denied, _ := p.Check(context.Background(), r, json.RawMessage(`{"query":"x","scope":"all"}`)); denied == "" {
		t.Fatal("scope all ran without asking")
	}
	if denied, _ := p.Check(context.Background(), r, json.RawMessage(`{"query":"x","scope":"project"}`)); denied != "" {
		t.Fatalf("scope project was denied: %s", denied)
	}
}

func TestRecallArguments(t *testing.T) {
	t.Parallel()
	h := &fakeHistory{}
	r := NewRecall(h)
	if res := r.Run(context.Background(), json.RawMessage(`{}`)); !strings.Contains(res.Error, "query") {
		t.Fatalf("no query nor ref: %+v", res)
	}
	if res := r.Run(context.Background(), json.RawMessage(`{"query":"a","scope":"galaxy"}`)); res.Error == "" {
		t.Fatal("a bad scope was accepted")
	}
	r.Run(context.Background(), json.RawMessage(`{"query":"needle","limit":"500"}`))
	if h.query != "needle" || h.scope != ScopeSession || h.limit != RecallMaxLimit {
		t.Fatalf("history got %+v", h)
	}
	res := r.Run(context.Background(), json.RawMessage(`{"query":"needle"}`))
	if !strings.Contains(res.Output, "No stored record matches") {
		t.Fatalf("empty answer: %q", res.Output)
	}
}

// offset asks for a page of the ref alone, larger than the first; the
// answer says which bytes it holds and the exact call for the next part,
// with the scope the record was found in.
func TestRecallOffsetAsksForAPage(t *testing.T) {
	t.Parallel()
	h := &fakeHistory{page: RecallHit{UUID: "abcd-1234", Type: "tool_result", Text: "middle part", Offset: 5800, Total: 48213}}
	r := NewRecall(h)
	ctx := context.Background()
	for in, want := range map[string]string{
		`{"offset":10}`:                 "give ref too",
		`{"ref":"abcd","offset":-1}`:    "0 or more",
		`{"ref":"abcd","offset":"ten"}`: "offset",
	} {
		if res := r.Run(ctx, json.RawMessage(in)); !strings.Contains(res.Error, want) {
			t.Errorf("%s: %+v, want an error with %q", in, res, want)
		}
	}
	res := r.Run(ctx, json.RawMessage(`{"ref":"abcd","offset":5800,"scope":"project"}`))
	if h.ref != "abcd" || h.offset != 5800 || h.size != RecallPageCap || h.scope != ScopeProject {
		t.Fatalf("history got %+v", h)
	}
	want := "middle part\n[bytes 5800–5811 of 48213; Recall ref=abcd-1234 scope=project offset=5811 shows the next part]"
	if !strings.HasSuffix(res.Output, want) || res.Error != "" {
		t.Fatalf("page answer %q, want it to end %q", res.Output, want)
	}
	h.page = RecallHit{UUID: "abcd-1234", Text: "the end", Offset: 48206, Total: 48213}
	res = r.Run(ctx, json.RawMessage(`{"ref":"abcd","offset":48206}`))
	if !strings.HasSuffix(res.Output, "[bytes 48206–48213 of 48213: the end of record abcd-1234]") {
		t.Fatalf("last page answer %q", res.Output)
	}
}

// A ref whose text is longer than its first page says so after it, and
// a neighbour is shown as before.
func TestRecallRefSaysWhereItsTextGoesOn(t *testing.T) {
	t.Parallel()
	h := &fakeHistory{hits: []RecallHit{
		{UUID: "n1", Type: "user", Text: "before"},
		{UUID: "abcd-1234", Type: "tool_result", Text: "first part", Ref: true, Total: 48213},
		{UUID: "n2", Type: "assistant", Text: "after"},
	}}
	res := NewRecall(h).Run(context.Background(), json.RawMessage(`{"ref":"abcd"}`))
	want := "first part\n[bytes 0–10 of 48213; Recall ref=abcd-1234 offset=10 shows the next part]\n"
	if !strings.Contains(res.Output, want) || !strings.HasSuffix(res.Output, "after") {
		t.Fatalf("answer %q", res.Output)
	}
}

func TestTrimPageCutsAtRuneBoundaries(t *testing.T) {
	t.Parallel()
	text := []byte("a😀b")
	for _, c := range []struct {
		lo, hi  int
		page    string
		skipped int
	}{
		{0, 6, "a😀b", 0}, {0, 4, "a", 0}, {2, 6, "b", 3}, {1, 5, "😀", 0}, {3, 4, "", 1},
	} {
		page, skipped := TrimPage(text[c.lo:c.hi])
		if string(page) != c.page || skipped != c.skipped {
			t.Errorf("[%d:%d]: %q skipped %d, want %q skipped %d", c.lo, c.hi, page, skipped, c.page, c.skipped)
		}
	}
}

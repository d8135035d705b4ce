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
	hits              []RecallHit
}

func (f *fakeHistory) Find(_ context.Context, query, scope string, limit int) ([]RecallHit, error) {
	f.query, f.scope, f.limit = query, scope, limit
	return f.hits, nil
}

func (f *fakeHistory) Around(_ context.Context, ref, scope string, n int) ([]RecallHit, error) {
	f.ref, f.scope = ref, scope
	return f.hits, nil
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

package usage

import (
	"context"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Today counts today's calls only, over every project, and is not shown
// for a model without a price when nothing today cost anything.
func TestTodayCountsTheDayAndHidesWithoutAPrice(t *testing.T) {
	t.Parallel()
	st := storage.NewStore(t.TempDir())
	now := time.Now()
	for i, ts := range []time.Time{now, now.Add(-72 * time.Hour)} {
		p, err := st.Project(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		s, err := p.Create(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		model := []string{"gpt-4o", "gpt-4.1"}[i]
		if _, err := s.Append(&storage.Record{Type: storage.TypeAssistant, Timestamp: ts, Message: &storage.Message{
			Role: "assistant", Model: model, Usage: &storage.Usage{InputTokens: 1_000_000, OutputTokens: 100_000}}}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	refreshed := make(chan struct{}, 1)
	today := NewToday(st, tokens.Prices{}, func() string { return "gpt-4o" })
	if f := today.Figure(); f != "" {
		t.Fatalf("before any refresh: %q", f)
	}
	today.Refresh(func() { refreshed <- struct{}{} })
	<-refreshed
	if f := today.Figure(); f != "today $3.50" {
		t.Errorf("figure %q, want today's gpt-4o call only: today $3.50", f)
	}
	local := NewToday(storage.NewStore(t.TempDir()), tokens.Prices{}, func() string { return "qwen2.5:7b" })
	local.Refresh(func() { refreshed <- struct{}{} })
	<-refreshed
	if f := local.Figure(); f != "" {
		t.Errorf("a local model with nothing spent shows %q", f)
	}
}

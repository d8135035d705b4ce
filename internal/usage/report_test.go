package usage

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

func hour(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.Unix() / 3600
}

// Two sessions, one with a subagent and a compaction, over two days and
// three models, one of them a local model without a price.
func sample() []storage.SessionUsage {
	return []storage.SessionUsage{
		{ID: "parent", Project: "/p", Title: "fix it", Updated: time.Unix(2, 0), Rows: []storage.UsageRow{
			{Hour: hour("2026-03-01T10:00:00Z"), Model: "gpt-4o", Input: 1_000_000, Cached: 400_000, Output: 100_000},
			{Hour: hour("2026-03-01T11:00:00Z"), Model: "gpt-4o", Summary: true, Input: 200_000, Output: 10_000},
		}},
		{ID: "child", Project: "/p", Parent: "parent", Updated: time.Unix(1, 0), Rows: []storage.UsageRow{
			{Hour: hour("2026-03-01T10:00:00Z"), Model: "gpt-4.1-mini", Input: 500_000, Output: 50_000},
		}},
		{ID: "local", Project: "/p", Updated: time.Unix(3, 0), Rows: []storage.UsageRow{
			{Hour: hour("2026-03-02T23:00:00Z"), Model: "qwen2.5:7b", Input: 7, Output: 3},
		}},
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestReportPricesEachModelAndKeepsPartsApart(t *testing.T) {
	t.Parallel()
	rep := Build(sample(), Options{By: BySession})
	parentMain := 0.6*2.50 + 0.4*1.25 + 0.1*10.00
	summary := 0.2*2.50 + 0.01*10.00
	child := 0.5*0.40 + 0.05*1.60
	if len(rep.Rows) != 2 {
		t.Fatalf("rows %+v: the subagent must count under its parent", rep.Rows)
	}
	p := rep.Rows[0]
	if p.Key != "parent" || !near(p.Cost, parentMain+summary+child) || p.Input != 1_700_000 || p.Cached != 400_000 {
		t.Errorf("parent row %+v", p)
	}
	if !near(p.Subagents.Cost, child) || !near(p.Compaction.Cost, summary) {
		t.Errorf("parts: subagents %+v compaction %+v", p.Subagents, p.Compaction)
	}
	if len(p.Children) != 1 || p.Children[0].Key != "child" || !near(p.Children[0].Cost, child) {
		t.Errorf("the subagent is not shown apart: %+v", p.Children)
	}
	if rep.Totals.Input != 1_700_007 || !near(rep.Totals.Cost, parentMain+summary+child) {
		t.Errorf("totals %+v", rep.Totals)
	}
	if len(rep.Unpriced) != 1 || rep.Unpriced[0] != "qwen2.5:7b" {
		t.Errorf("unpriced %v", rep.Unpriced)
	}
	// [prices] gives the local model a price.
	rep = Build(sample(), Options{By: ByModel, Prices: tokens.NewPrices(map[string]tokens.Price{"qwen2.5": {Input: 1e6, Output: 1e6}})})
	if len(rep.Unpriced) != 0 || !near(rep.Totals.Cost, parentMain+summary+child+10) {
		t.Errorf("with [prices]: %+v", rep)
	}
}

// Days are the report's zone's: 23:00 UTC on March 2 is March 3 in Paris.
func TestReportDaysInItsZoneAndWithinDates(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no time zone database")
	}
	rep := Build(sample(), Options{By: ByDay, Loc: paris})
	if len(rep.Rows) != 2 || rep.Rows[0].Key != "2026-03-01" || rep.Rows[1].Key != "2026-03-03" {
		t.Fatalf("days %+v", rep.Rows)
	}
	rep = Build(sample(), Options{By: ByDay, Loc: paris, Since: "2026-03-02"})
	if len(rep.Rows) != 1 || rep.Totals.Input != 7 {
		t.Fatalf("--since: %+v", rep.Rows)
	}
	rep = Build(sample(), Options{By: ByMonth, Until: "2026-03-01"})
	if len(rep.Rows) != 1 || rep.Rows[0].Key != "2026-03" || rep.Totals.Input != 1_700_000 {
		t.Fatalf("--until: %+v", rep.Rows)
	}
}

func TestReportJSONNamesEachRowsKey(t *testing.T) {
	t.Parallel()
	for by, key := range map[Grouping]string{ByDay: "date", ByMonth: "month", BySession: "session_id", ByModel: "model"} {
		var buf bytes.Buffer
		if err := Build(sample(), Options{By: by}).WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		var out struct {
			Rows   []map[string]any `json:"rows"`
			Totals map[string]any   `json:"totals"`
		}
		if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		for _, r := range out.Rows {
			for _, f := range []string{key, "input_tokens", "cached_input_tokens", "output_tokens", "cost_usd"} {
				if _, ok := r[f]; !ok {
					t.Errorf("%s: row without %s: %v", by, f, r)
				}
			}
		}
		if _, ok := out.Totals["cost_usd"]; !ok {
			t.Errorf("%s: totals %v", by, out.Totals)
		}
	}
}

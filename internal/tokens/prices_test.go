package tokens

import "testing"

func TestPricesOverrideTheTable(t *testing.T) {
	t.Parallel()
	p := NewPrices(map[string]Price{
		"GPT-4o":        {1, 0.5, 2},
		"qwen2.5-coder": {0.1, 0.1, 0.2},
	})
	tests := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4o", Price{1, 0.5, 2}, true},
		{"gpt-4o-2024-08-06", Price{1, 0.5, 2}, true},
		{"gpt-4o-mini", Price{1, 0.5, 2}, true}, // an override's prefix wins over the table
		{"gpt-4.1-mini", Price{0.40, 0.10, 1.60}, true},
		{"qwen2.5-coder:32b", Price{0.1, 0.1, 0.2}, true},
		{"llama3.1:8b", Price{}, false},
	}
	for _, tt := range tests {
		got, ok := p.Of(tt.model)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Of(%q) = %v, %v; want %v, %v", tt.model, got, ok, tt.want, tt.ok)
		}
	}
	if got, ok := (Prices{}).Of("gpt-4o"); !ok || got != (Price{2.50, 1.25, 10.00}) {
		t.Errorf("the zero Prices: gpt-4o = %v, %v; want the table's", got, ok)
	}
}

func TestCostChargesCachedInputAtItsPrice(t *testing.T) {
	t.Parallel()
	p := Price{Input: 2.50, CachedInput: 1.25, Output: 10.00}
	// 1M input of which 400k cached, 100k output.
	if got, want := p.Cost(1_000_000, 400_000, 100_000), 0.6*2.50+0.4*1.25+0.1*10.00; !near(got, want) {
		t.Errorf("Cost = %v, want %v", got, want)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// The models imported sessions name find their own price, not a shorter
// prefix's.
func TestImportedModelsFindTheirPrice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model string
		want  Price
	}{
		{"claude-opus-4-6", Price{5, 0.50, 25}},
		{"claude-opus-4-20250514", Price{15, 1.50, 75}},
		{"claude-opus-4-1-20250805", Price{15, 1.50, 75}},
		{"claude-sonnet-4-20250514", Price{3, 0.30, 15}},
		{"claude-sonnet-4-5-20250929", Price{3, 0.30, 15}},
		{"claude-3-5-haiku-20241022", Price{0.80, 0.08, 4}},
		{"claude-haiku-4-5-20251001", Price{1, 0.10, 5}},
		{"gpt-5-codex", Price{1.25, 0.125, 10}},
		{"gpt-5.1-codex", Price{1.25, 0.125, 10}},
		{"gpt-5.1-codex-mini", Price{0.25, 0.025, 2}},
		{"gpt-5.2-codex", Price{1.75, 0.175, 14}},
		{"codex-mini-latest", Price{1.50, 0.375, 6}},
	}
	for _, tt := range tests {
		if got, ok := PriceOf(tt.model); !ok || got != tt.want {
			t.Errorf("PriceOf(%q) = %v, %v; want %v", tt.model, got, ok, tt.want)
		}
	}
}

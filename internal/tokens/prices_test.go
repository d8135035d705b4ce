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

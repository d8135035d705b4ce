package tokens

import "strings"

// Price is what a provider charges for a model, in US dollars per million
// tokens: prompt tokens, prompt tokens served from its cache, and
// completion tokens.
type Price struct {
	Input, CachedInput, Output float64
}

// prices is the price list beside the models table (models.go): name
// prefix → price, as OpenAI's pricing page
// (platform.openai.com/docs/pricing, standard tier) gave them in August
// 2025, at the gpt-5 launch, then the models that imported Codex and
// Claude Code sessions name (each group with its source). The longest
// matching prefix wins. Models served locally or by other providers are
// absent: their cost is not
// clawdcode's to guess; the user states it in config.toml
// ([prices."MODEL"], see Prices).
var prices = []struct {
	prefix string
	Price
}{
	{"gpt-5-nano", Price{0.05, 0.005, 0.40}},
	{"gpt-5-mini", Price{0.25, 0.025, 2.00}},
	{"gpt-5", Price{1.25, 0.125, 10.00}},
	{"gpt-4.1-nano", Price{0.10, 0.025, 0.40}},
	{"gpt-4.1-mini", Price{0.40, 0.10, 1.60}},
	{"gpt-4.1", Price{2.00, 0.50, 8.00}},
	{"gpt-4o-mini", Price{0.15, 0.075, 0.60}},
	{"gpt-4o", Price{2.50, 1.25, 10.00}},
	{"chatgpt-4o", Price{5.00, 5.00, 15.00}},
	{"gpt-4-turbo", Price{10.00, 10.00, 30.00}},
	{"gpt-4", Price{30.00, 30.00, 60.00}},
	{"gpt-3.5-turbo", Price{0.50, 0.50, 1.50}},
	{"o1-mini", Price{1.10, 0.55, 4.40}},
	{"o1", Price{15.00, 7.50, 60.00}},
	{"o3-mini", Price{1.10, 0.55, 4.40}},
	{"o3", Price{2.00, 0.50, 8.00}},
	{"o4-mini", Price{1.10, 0.275, 4.40}},

	// The models Codex sessions name that the longest-prefix rule would
	// price as another: codex-mini-latest at its model page
	// (developers.openai.com/api/docs/models/codex-mini-latest), the
	// GPT-5.1 Codex mini at OpenRouter's listing of it
	// (openrouter.ai/openai/gpt-5.1-codex-mini-20251113, cached input at
	// the GPT-5 family's tenth of input), GPT-5.2 and the 5.2/5.3 Codex
	// models at GitHub's Copilot price table
	// (github/docs data/tables/copilot/models-and-pricing.yml). gpt-5-codex
	// and gpt-5.1(-codex) are GPT-5's price, which their prefix finds.
	{"codex-mini", Price{1.50, 0.375, 6.00}},
	{"gpt-5.1-codex-mini", Price{0.25, 0.025, 2.00}},
	{"gpt-5.2", Price{1.75, 0.175, 14.00}},
	{"gpt-5.3-codex", Price{1.75, 0.175, 14.00}},

	// Anthropic's models, for imported Claude Code sessions, as the
	// pricing page (platform.claude.com/docs/en/about-claude/pricing, "Model
	// pricing") gives them in November 2026: base input, cache hits,
	// output. Claude Code's cache writes are counted as input (an import
	// folds them in), so they are priced as input, not at the 1.25× a
	// five-minute cache write costs. Haiku 5.5 is its price for prompts up
	// to 100k tokens.
	{"claude-fable-5-1", Price{10, 0.25, 50}},
	{"claude-fable-5", Price{10, 1, 50}},
	{"claude-mythos-5-1", Price{10, 0.25, 50}},
	{"claude-mythos-5", Price{10, 1, 50}},
	{"claude-opus-5-5", Price{4, 0.20, 20}},
	{"claude-opus-5", Price{5, 0.50, 25}},
	{"claude-opus-4-8", Price{5, 0.50, 25}},
	{"claude-opus-4-7", Price{5, 0.50, 25}},
	{"claude-opus-4-6", Price{5, 0.50, 25}},
	{"claude-opus-4-5", Price{5, 0.50, 25}},
	{"claude-opus-4", Price{15, 1.50, 75}}, // 4 and 4.1
	{"claude-3-opus", Price{15, 1.50, 75}},
	{"claude-sonnet-5-5", Price{2, 0.10, 10}},
	{"claude-sonnet-5", Price{2, 0.20, 10}},
	{"claude-sonnet-4", Price{3, 0.30, 15}}, // 4, 4.5 and 4.6
	{"claude-3-7-sonnet", Price{3, 0.30, 15}},
	{"claude-3-5-sonnet", Price{3, 0.30, 15}},
	{"claude-haiku-5-5", Price{0.10, 0.01, 0.50}},
	{"claude-haiku-4-5", Price{1, 0.10, 5}},
	{"claude-3-5-haiku", Price{0.80, 0.08, 4}},
	{"claude-3-haiku", Price{0.25, 0.03, 1.25}},
}

// PriceOf returns the built-in table's price of model, and whether it is
// known. A provider prefix ("openai/gpt-4o") and case are ignored.
func PriceOf(model string) (Price, bool) {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	best, found, ok := 0, Price{}, false
	for _, p := range prices {
		if strings.HasPrefix(name, p.prefix) && len(p.prefix) > best {
			best, found, ok = len(p.prefix), p.Price, true
		}
	}
	return found, ok
}

// Prices is the price list in force: the user's [prices."MODEL"] tables
// over the built-in one. The zero value is the built-in table alone. It is
// read-only once made, so safe for concurrent use.
type Prices struct {
	overrides map[string]Price // by lower-case name
}

// NewPrices is the built-in table under overrides (model name → price).
func NewPrices(overrides map[string]Price) Prices {
	p := Prices{overrides: make(map[string]Price, len(overrides))}
	for name, price := range overrides {
		p.overrides[strings.ToLower(strings.TrimSpace(name))] = price
	}
	return p
}

// Of returns model's price and whether one is known. An override names
// the model as the server does ("gpt-4o", "openai/gpt-4o", "qwen2.5:7b"),
// case aside; the longest override that is the name or a prefix of it
// wins, and any override wins over the built-in table.
func (p Prices) Of(model string) (Price, bool) {
	name := strings.ToLower(strings.TrimSpace(model))
	best, found, ok := -1, Price{}, false
	for k, v := range p.overrides {
		if strings.HasPrefix(name, k) && len(k) > best {
			best, found, ok = len(k), v, true
		}
	}
	if ok {
		return found, true
	}
	return PriceOf(model)
}

// Cost is the dollars input prompt tokens (cached of them served from the
// provider's cache) and output completion tokens cost at p.
func (p Price) Cost(input, cached, output int) float64 {
	cached = min(cached, input)
	return (float64(input-cached)*p.Input + float64(cached)*p.CachedInput + float64(output)*p.Output) / 1e6
}

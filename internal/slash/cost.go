package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

func costCommand() Command {
	return Command{
		Name:    "cost",
		Summary: "tokens used in this session and what they cost",
		Run: func(_ context.Context, env *Env, _ string) error {
			m := env.Engine.Context()
			if m == nil {
				return errNoContext
			}
			s := m.Spend()
			_, err := fmt.Fprint(env.IO.Out, formatCost(env.Engine.Model(), s.Session, s.Summaries, s.Price, s.Priced))
			return err
		},
	}
}

// formatCost renders /cost: the replies' tokens (with the share of the
// input the server said it served from its cache), the summary calls'
// apart, and money at price when the model's price is known; else how to
// state it.
func formatCost(model string, u, summaries storage.Usage, price tokens.Price, priced bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tokens used in this session: input %s, output %s\n", thousands(u.InputTokens), thousands(u.OutputTokens))
	if u.CacheReadInputTokens > 0 {
		fmt.Fprintf(&b, "  of the input, %s (%d%%) served from the server's cache\n",
			thousands(u.CacheReadInputTokens), percent(u.CacheReadInputTokens, u.InputTokens))
	}
	hasSummaries := summaries != (storage.Usage{})
	if hasSummaries {
		fmt.Fprintf(&b, "Summary calls (compaction): input %s", thousands(summaries.InputTokens))
		if summaries.CacheReadInputTokens > 0 {
			fmt.Fprintf(&b, " (%s cached)", thousands(summaries.CacheReadInputTokens))
		}
		fmt.Fprintf(&b, ", output %s\n", thousands(summaries.OutputTokens))
	}
	if !priced {
		fmt.Fprintf(&b, "No cost estimate: clawdcode has no prices for %s. State them in config.toml (US dollars per million tokens):\n"+
			"  [prices.%q]\n  input = 0.0\n  cached_input = 0.0\n  output = 0.0\n", model, model)
		return b.String()
	}
	replies := price.Cost(u.InputTokens, u.CacheReadInputTokens, u.OutputTokens)
	fmt.Fprintf(&b, "Estimated cost: %s at %s's prices (per million tokens: input $%.2f, cached input $%.3g, output $%.2f)\n",
		dollars(replies), model, price.Input, price.CachedInput, price.Output)
	if hasSummaries {
		sum := price.Cost(summaries.InputTokens, summaries.CacheReadInputTokens, summaries.OutputTokens)
		fmt.Fprintf(&b, "  summary calls: %s; in all: %s\n", dollars(sum), dollars(replies+sum))
	}
	return b.String()
}

// dollars renders an amount with the precision it deserves.
func dollars(v float64) string {
	switch {
	case v == 0:
		return "$0.00"
	case v < 0.01:
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// thousands renders n with comma separators (12,345).
func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

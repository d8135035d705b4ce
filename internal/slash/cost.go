package slash

import (
	"context"
	"fmt"
	"strings"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

func costCommand() Command {
	return Command{
		Name:    "cost",
		Summary: "tokens used in this session (its subagents' included) and what they cost",
		Run: func(_ context.Context, env *Env, _ string) error {
			m := env.Context
			_, err := fmt.Fprint(env.IO.Out, formatCost(env.Model.Model(), m.Spend()))
			return err
		},
	}
}

// formatCost renders /cost: the replies' tokens, the subagents' included
// and stated apart (with the share of the input the server said it served
// from its cache), the summary calls' apart, and money at price when the
// model's price is known; else how to state it.
func formatCost(model string, s contextmgr.Spend) string {
	var b strings.Builder
	u, subs, summaries := s.Session, s.Subagents, s.Summaries
	u.Add(subs)
	fmt.Fprintf(&b, "Tokens used in this session: input %s, output %s\n", thousands(u.InputTokens), thousands(u.OutputTokens))
	if u.CacheReadInputTokens > 0 {
		fmt.Fprintf(&b, "  of the input, %s (%d%%) served from the server's cache\n",
			thousands(u.CacheReadInputTokens), percent(u.CacheReadInputTokens, u.InputTokens))
	}
	hasSubs := subs != (storage.Usage{})
	if hasSubs {
		fmt.Fprintf(&b, "  of which subagents (Task): input %s, output %s\n", thousands(subs.InputTokens), thousands(subs.OutputTokens))
	}
	hasSummaries := summaries != (storage.Usage{})
	if hasSummaries {
		fmt.Fprintf(&b, "Summary calls (compaction): input %s", thousands(summaries.InputTokens))
		if summaries.CacheReadInputTokens > 0 {
			fmt.Fprintf(&b, " (%s cached)", thousands(summaries.CacheReadInputTokens))
		}
		fmt.Fprintf(&b, ", output %s\n", thousands(summaries.OutputTokens))
	}
	if !s.Priced {
		fmt.Fprintf(&b, "No cost estimate: clawdcode has no prices for %s. State them in config.toml (US dollars per million tokens):\n"+
			"  [prices.%q]\n  input = 0.0\n  cached_input = 0.0\n  output = 0.0\n", model, model)
		return b.String()
	}
	writeCost(&b, model, s.Price, u, subs, summaries)
	return b.String()
}

// writeCost is /cost's money: the replies' (subagents' included, and
// their share), then the summary calls' and the sum.
func writeCost(b *strings.Builder, model string, price tokens.Price, u, subs, summaries storage.Usage) {
	cost := func(u storage.Usage) float64 {
		return price.Cost(u.InputTokens, u.CacheReadInputTokens, u.OutputTokens)
	}
	replies := cost(u)
	fmt.Fprintf(b, "Estimated cost: %s at %s's prices (per million tokens: input $%.2f, cached input $%.3g, output $%.2f)\n",
		dollars(replies), model, price.Input, price.CachedInput, price.Output)
	if subs != (storage.Usage{}) {
		fmt.Fprintf(b, "  of which subagents: %s\n", dollars(cost(subs)))
	}
	if summaries != (storage.Usage{}) {
		sum := cost(summaries)
		fmt.Fprintf(b, "  summary calls: %s; in all: %s\n", dollars(sum), dollars(replies+sum))
	}
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

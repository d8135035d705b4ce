package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
	"github.com/clawdcode/clawdcode/internal/usage"
)

func costCommand() Command {
	return Command{
		Name:    "cost",
		Summary: "tokens used in this session (its subagents' included) and what they cost",
		Run: func(ctx context.Context, env *Env, _ string) error {
			prices := env.Context.Spend().Prices
			row, unpriced, err := sessionUsage(ctx, env.Sessions.Project(), env.Sessions.ID(), prices)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(env.IO.Out, formatCost(env.Model.Model(), prices, row, unpriced))
			return err
		},
	}
}

// sessionUsage is the session's row of `clawdcode usage session`: the same
// records, the same pricing (usage.Cost), so that the two always agree.
// A session with nothing written yet has an empty row.
func sessionUsage(ctx context.Context, p *storage.Project, id string, prices tokens.Prices) (usage.Row, []string, error) {
	if id == "" || p == nil {
		return usage.Row{}, nil, nil
	}
	sessions, err := usage.Collect(ctx, p.Store(), p)
	if err != nil {
		return usage.Row{}, nil, err
	}
	rep := usage.Build(sessions, usage.Options{By: usage.BySession, Prices: prices})
	for _, r := range rep.Rows {
		if r.Key == id {
			return r, unpricedOf(r, prices), nil
		}
	}
	return usage.Row{}, nil, nil
}

// unpricedOf are the models of r without a price.
func unpricedOf(r usage.Row, prices tokens.Prices) []string {
	var out []string
	for _, m := range r.Models {
		if _, ok := prices.Of(m); !ok {
			out = append(out, m)
		}
	}
	return out
}

// formatCost renders /cost: the replies' tokens, the subagents' included
// and stated apart (with the share of the input the server said it served
// from its cache), the summary calls' apart, and money as `clawdcode usage`
// counts it: each model's tokens at its price. Without any price known it
// says how to state one.
func formatCost(model string, prices tokens.Prices, r usage.Row, unpriced []string) string {
	var b strings.Builder
	replies := minus(r.Tokens, r.Compaction)
	fmt.Fprintf(&b, "Tokens used in this session: input %s, output %s\n", usage.Thousands(replies.Input), usage.Thousands(replies.Output))
	if replies.Cached > 0 {
		fmt.Fprintf(&b, "  of the input, %s (%d%%) served from the server's cache\n",
			usage.Thousands(replies.Cached), percent(replies.Cached, replies.Input))
	}
	if !r.Subagents.Zero() {
		fmt.Fprintf(&b, "  of which subagents (Task): input %s, output %s\n", usage.Thousands(r.Subagents.Input), usage.Thousands(r.Subagents.Output))
	}
	if !r.Compaction.Zero() {
		fmt.Fprintf(&b, "Summary calls (compaction): input %s", usage.Thousands(r.Compaction.Input))
		if r.Compaction.Cached > 0 {
			fmt.Fprintf(&b, " (%s cached)", usage.Thousands(r.Compaction.Cached))
		}
		fmt.Fprintf(&b, ", output %s\n", usage.Thousands(r.Compaction.Output))
	}
	if len(r.Models) == 1 {
		model = r.Models[0]
	}
	names := unpriced
	if len(r.Models) == 0 {
		if _, ok := prices.Of(model); !ok {
			names = []string{model}
		}
	}
	if len(names) > 0 && len(names) >= len(r.Models) {
		// Nothing to price: say how to state a price.
		fmt.Fprintf(&b, "No cost estimate: clawdcode has no prices for %s. State them in config.toml (US dollars per million tokens):\n",
			strings.Join(names, ", "))
		for _, n := range names {
			fmt.Fprintf(&b, "  [prices.%q]\n  input = 0.0\n  cached_input = 0.0\n  output = 0.0\n", n)
		}
		return b.String()
	}
	writeCost(&b, model, prices, r, unpriced)
	return b.String()
}

// writeCost is /cost's money: the replies' (subagents' included, and
// their share), then the summary calls' and the sum.
func writeCost(b *strings.Builder, model string, prices tokens.Prices, r usage.Row, unpriced []string) {
	replies := r.Cost - r.Compaction.Cost
	if p, ok := prices.Of(model); ok && len(r.Models) <= 1 {
		fmt.Fprintf(b, "Estimated cost: %s at %s's prices (per million tokens: input $%.2f, cached input $%.3g, output $%.2f)\n",
			usage.Dollars(replies), model, p.Input, p.CachedInput, p.Output)
	} else {
		fmt.Fprintf(b, "Estimated cost: %s at each model's prices (%s)\n", usage.Dollars(replies), strings.Join(r.Models, ", "))
	}
	if !r.Subagents.Zero() {
		fmt.Fprintf(b, "  of which subagents: %s\n", usage.Dollars(r.Subagents.Cost))
	}
	if !r.Compaction.Zero() {
		fmt.Fprintf(b, "  summary calls: %s; in all: %s\n", usage.Dollars(r.Compaction.Cost), usage.Dollars(r.Cost))
	}
	if len(unpriced) > 0 {
		fmt.Fprintf(b, "  no price known for %s: counted at $0\n", strings.Join(unpriced, ", "))
	}
}

// minus is a's tokens and cost less b's.
func minus(a, b usage.Tokens) usage.Tokens {
	return usage.Tokens{Input: a.Input - b.Input, Cached: a.Cached - b.Cached, Output: a.Output - b.Output, Cost: a.Cost - b.Cost}
}

// dollars renders an amount with the precision it deserves.
func dollars(v float64) string { return usage.Dollars(v) }

// thousands renders n with comma separators (12,345).
func thousands(n int) string { return usage.Thousands(n) }

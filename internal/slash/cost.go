package slash

import (
	"context"
	"fmt"

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
			u := m.SessionUsage()
			line := fmt.Sprintf("Tokens used in this session: input %s, output %s", thousands(u.InputTokens), thousands(u.OutputTokens))
			if u.CacheReadInputTokens > 0 {
				line += fmt.Sprintf(" (%s of the input from the server's cache)", thousands(u.CacheReadInputTokens))
			}
			model := env.Engine.Model()
			if p, ok := tokens.PriceOf(model); ok {
				line += fmt.Sprintf("\nEstimated cost: %s at %s's list prices ($%.2f / $%.2f per million input / output tokens)",
					dollars(p.Cost(u.InputTokens, u.CacheReadInputTokens, u.OutputTokens)), model, p.Input, p.Output)
			} else {
				line += "\nNo cost estimate: clawdcode does not know " + model + "'s prices."
			}
			_, err := fmt.Fprintln(env.IO.Out, line)
			return err
		},
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

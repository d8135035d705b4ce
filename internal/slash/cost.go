package slash

import (
	"context"
	"fmt"
)

func costCommand() Command {
	return Command{
		Name:    "cost",
		Summary: "tokens used in this session (input, output)",
		Run: func(_ context.Context, env *Env, _ string) error {
			m := env.Engine.Context()
			if m == nil {
				return errNoContext
			}
			u := m.SessionUsage()
			_, err := fmt.Fprintf(env.IO.Out, "Tokens used in this session: input %s, output %s\n", thousands(u.InputTokens), thousands(u.OutputTokens))
			return err
		},
	}
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

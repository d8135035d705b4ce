package slash

import (
	"context"
	"fmt"
	"strings"
)

func contextCommand() Command {
	return Command{
		Name:    "context",
		Args:    "[--reset-window]",
		Summary: "show context usage: tokens, breakdown, distance to auto-compaction; --reset-window forgets a window learnt from the server",
		Run: func(ctx context.Context, env *Env, args string) error {
			// The MCP tools ready now go out with the next request: count them.
			env.MCP.Join(ctx)
			m := env.Context
			switch strings.TrimSpace(args) {
			case "":
			case "--reset-window":
				learnt := m.Usage().Learnt
				if err := m.ResetWindow(); err != nil {
					return fmt.Errorf("reset the window: %w", err)
				}
				u := m.Usage()
				msg := fmt.Sprintf("Window reset to %d tokens (from %s); the %d tokens learnt from the server are forgotten.\n", u.Window, u.Source, learnt)
				if learnt == 0 {
					msg = fmt.Sprintf("No window was learnt from the server; the window is %d tokens (from %s).\n", u.Window, u.Source)
				}
				if _, err := fmt.Fprint(env.IO.Out, msg); err != nil {
					return err
				}
			default:
				return fmt.Errorf("%w: /context [--reset-window]", ErrUsage)
			}
			_, err := fmt.Fprint(env.IO.Out, withNewline(formatContext(m.Usage())))
			return err
		},
	}
}

func withNewline(s string) string {
	if s == "" || s[len(s)-1] != '\n' {
		return s + "\n"
	}
	return s
}

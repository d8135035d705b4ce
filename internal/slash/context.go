package slash

import (
	"context"
	"fmt"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
)

func contextCommand() Command {
	return Command{
		Name:    "context",
		Summary: "show context usage: tokens, breakdown, distance to auto-compaction",
		Run: func(_ context.Context, env *Env, _ string) error {
			m := env.Engine.Context()
			if m == nil {
				return errNoContext
			}
			_, err := fmt.Fprint(env.IO.Out, withNewline(contextmgr.FormatContext(m.Usage())))
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

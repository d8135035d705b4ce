package slash

import (
	"context"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

func forkCommand() Command {
	return Command{
		Name:    "fork",
		Args:    "[title]",
		Summary: "continue in a new session that starts with this session's context",
		Run: func(ctx context.Context, env *Env, title string) error {
			prev := env.Sessions.ID()
			id, err := env.Sessions.Fork(ctx, "", title)
			if err != nil {
				return err // "fork: …"
			}
			_, err = fmt.Fprintf(env.IO.Out, "Forked session %s into %s; continuing in the fork (the original stays as it was).\n",
				termtext.ShortID(prev), id)
			return err
		},
	}
}

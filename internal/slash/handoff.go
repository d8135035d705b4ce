package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

func handoffCommand() Command {
	return Command{
		Name:    "handoff",
		Args:    "[instructions]",
		Summary: "summarise this session into a new one and continue there (this one keeps its history)",
		Run: func(ctx context.Context, env *Env, instructions string) error {
			res, err := env.Sessions.Handoff(ctx, instructions)
			if err != nil {
				return err // "handoff: …"
			}
			var b strings.Builder
			fmt.Fprintf(&b, "Handed off session %s to %s; continuing there (the old session is unchanged but for a record naming the new one).\n",
				termtext.ShortID(res.From), res.To)
			if res.Err != nil {
				fmt.Fprintf(&b, "The summary failed (%v): the new session starts from a digest — the user's messages word for word and the receipt.\n", res.Err)
			}
			if res.Receipt != nil {
				b.WriteString("Receipt:\n")
				writeReceipt(&b, res.Receipt)
			}
			_, err = fmt.Fprint(env.IO.Out, b.String())
			return err
		},
	}
}

package slash

import (
	"context"
	"errors"
	"fmt"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/storage"
)

func compactCommand() Command {
	return Command{
		Name:    "compact",
		Args:    "[instructions]",
		Summary: "compact the context now; instructions steer the summary",
		Run: func(ctx context.Context, env *Env, instructions string) error {
			m := env.Engine.Context()
			if m == nil {
				return errNoContext
			}
			res, err := m.Compact(ctx, storage.TriggerManual, instructions)
			if errors.Is(err, contextmgr.ErrNothingToCompact) {
				_, err := fmt.Fprintln(env.IO.Out, "Nothing to compact yet: the context holds no earlier conversation to summarise.")
				return err
			}
			if err != nil {
				return fmt.Errorf("compact: %w", err)
			}
			_, err = fmt.Fprint(env.IO.Out, withNewline(formatCompact(res)))
			return err
		},
	}
}

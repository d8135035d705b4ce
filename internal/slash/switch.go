package slash

import (
	"context"
	"errors"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

func switchCommand() Command {
	return Command{
		Name:    "switch",
		Args:    "<id-prefix or title-prefix>",
		Summary: "switch to another session of this project",
		Run: func(ctx context.Context, env *Env, query string) error {
			if query == "" {
				return fmt.Errorf("%w: /switch <id-prefix or title-prefix>", ErrUsage)
			}
			list, err := listSessions(env)
			if err != nil {
				return err
			}
			s, err := storage.Match(list, query)
			if errors.Is(err, storage.ErrNotFound) {
				return fmt.Errorf("%w; /sessions lists them", err)
			}
			if err != nil {
				return err // ambiguous: the error lists the candidates
			}
			return switchTo(ctx, env, s)
		},
	}
}

// switchTo makes s the current session and says so.
func switchTo(ctx context.Context, env *Env, s storage.SessionInfo) error {
	if s.ID == env.Sessions.ID() {
		_, err := fmt.Fprintf(env.IO.Out, "Already in session %s (%s).\n", termtext.ShortID(s.ID), displayTitle(s.Title))
		return err
	}
	if err := env.Sessions.Resume(ctx, s.ID); err != nil {
		return err
	}
	_, err := fmt.Fprintf(env.IO.Out, "Switched to session %s (%s), %d messages.\n", termtext.ShortID(s.ID), displayTitle(s.Title), s.Messages)
	return err
}

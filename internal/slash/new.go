package slash

import (
	"context"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

func newCommand() Command {
	return Command{
		Name:    "new",
		Args:    "[title]",
		Summary: "start a new session (the current one stays resumable)",
		Run:     startNew,
	}
}

// startNew is /new and /clear: the next message opens a fresh session.
func startNew(ctx context.Context, env *Env, title string) error {
	prev := env.Sessions.ID()
	if err := env.Sessions.StartNew(ctx, title); err != nil {
		return fmt.Errorf("start a new session: %w", err)
	}
	msg := "Started a new session"
	if title != "" {
		msg += fmt.Sprintf(" %q", title)
	}
	if prev != "" {
		msg += fmt.Sprintf("; the previous one (%s) stays resumable", termtext.ShortID(prev))
	}
	_, err := fmt.Fprintln(env.IO.Out, msg+".")
	return err
}

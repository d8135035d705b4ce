package slash

import (
	"context"
	"fmt"
)

func resumeCommand() Command {
	return Command{
		Name:    "resume",
		Summary: "pick a session of this project to resume",
		Run: func(ctx context.Context, env *Env, _ string) error {
			list, err := listSessions(env)
			if err != nil {
				return err
			}
			if len(list) == 0 {
				_, err := fmt.Fprintln(env.IO.Out, "No sessions to resume in this project.")
				return err
			}
			if env.Pick == nil {
				if err := writeSessions(env.IO.Out, list, env.Sessions.ID()); err != nil {
					return err
				}
				_, err := fmt.Fprintf(env.IO.Out, "\nResume one with: clawdcode -r <id>   (or /switch <id> in a session)\n")
				return err
			}
			id, err := env.Pick(ctx, list)
			if err != nil {
				return fmt.Errorf("pick a session: %w", err)
			}
			if id == "" {
				return nil
			}
			for _, s := range list {
				if s.ID == id {
					return switchTo(ctx, env, s)
				}
			}
			return fmt.Errorf("pick a session: %s is not a session of this project", id)
		},
	}
}

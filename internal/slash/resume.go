package slash

import (
	"context"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
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
				return noSessionsHere(env)
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

// noSessionsHere says there is nothing to resume in this directory and,
// in a subdirectory of a repository whose sessions were started higher up
// (storage.Project.Enclosing), where they are: sessions belong to the
// directory they were started in (CONTRACT §4).
func noSessionsHere(env *Env) error {
	var q *storage.Project
	var list []storage.SessionInfo
	if p := env.Sessions.Project(); p != nil {
		q, list = p.Enclosing()
	}
	if q == nil {
		_, err := fmt.Fprintln(env.IO.Out, "No sessions to resume in this project.")
		return err
	}
	own := 0
	for _, s := range list {
		if s.Parent == "" {
			own++
		}
	}
	_, err := fmt.Fprintf(env.IO.Out, "No sessions to resume in this directory. The project's %d %s in %s: sessions belong to the directory they were started in, so continue one there (cd %s && clawdcode -r).\n",
		own, plural(own, "session is", "sessions are"), termtext.Line(q.Root), termtext.Line(q.Root))
	return err
}

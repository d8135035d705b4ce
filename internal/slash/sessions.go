package slash

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"unicode"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

func sessionsCommand() Command {
	return Command{
		Name:    "sessions",
		Summary: "list this project's sessions, newest first",
		Run: func(_ context.Context, env *Env, _ string) error {
			list, err := listSessions(env)
			if err != nil {
				return err
			}
			if len(list) == 0 {
				_, err := fmt.Fprintln(env.IO.Out, "No sessions in this project yet.")
				return err
			}
			return writeSessions(env.IO.Out, list, env.Sessions.ID())
		},
	}
}

// listSessions is the project's sessions, newest-updated first, each
// subagent's after its parent's.
func listSessions(env *Env) ([]storage.SessionInfo, error) {
	p := env.Sessions.Project()
	list, err := p.List()
	if err != nil {
		return nil, fmt.Errorf("list sessions of %s: %w", p.Root, err)
	}
	return storage.UnderParents(list), nil
}

// writeSessions prints list as a table; the current session is marked "*".
func writeSessions(out io.Writer, list []storage.SessionInfo, current string) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  ID\tUPDATED\tMESSAGES\tTITLE")
	for _, s := range list {
		mark := " "
		if s.ID == current {
			mark = "*"
		}
		title := storage.SubagentTitle(s, displayTitle(s.Title))
		fmt.Fprintf(w, "%s %s\t%s\t%d\t%s\n", mark, termtext.ShortID(s.ID), s.Updated.Local().Format("2006-01-02 15:04"), s.Messages, title)
	}
	return w.Flush()
}

func displayTitle(t string) string {
	if t == "" {
		return "(untitled)"
	}
	return termtext.Line(t)
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }

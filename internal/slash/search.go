package slash

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// searchCommand is /search: `clawdcode search` over this project's
// sessions (--all first: every project's). On a terminal the hits are a
// picker, and the one chosen is opened at its record; otherwise they are
// printed as the CLI prints them.
func searchCommand() Command {
	return Command{
		Name:    "search",
		Args:    "[--all] <query>",
		Summary: "search this project's sessions (all words; \"a phrase\") and open a hit",
		Run: func(ctx context.Context, env *Env, args string) error {
			q, all := strings.TrimSpace(args), false
			if rest, ok := strings.CutPrefix(q, "--all"); ok && (rest == "" || isSpace(rune(rest[0]))) {
				all, q = true, strings.TrimSpace(rest)
			}
			if q == "" {
				return fmt.Errorf("%w: /search [--all] <query>", ErrUsage)
			}
			hits, err := findHits(ctx, env, q, all)
			if err != nil {
				return err
			}
			if len(hits) == 0 {
				_, err := fmt.Fprintln(env.IO.Out, search.NoMatch(q, all))
				return err
			}
			if env.PickHit == nil {
				return search.WriteText(env.IO.Out, hits, search.TextOptions{
					WithProject: all, Query: q, Bold: env.IO.IsStdoutTTY(),
					When: func(t time.Time) string { return t.Local().Format("2006-01-02 15:04") },
				})
			}
			i, err := env.PickHit(ctx, q, hits)
			if err != nil || i < 0 {
				return err
			}
			return openHit(ctx, env, q, hits[i])
		},
	}
}

// findHits searches this project's sessions (all: every project's) for q.
func findHits(ctx context.Context, env *Env, q string, all bool) ([]search.Hit, error) {
	p := env.Sessions.Project()
	query := search.Query{Text: q}
	if !all {
		query.Project = p.Root
	}
	warn := func(msg string) { fmt.Fprintf(env.IO.ErrOut, "warning: %s\n", msg) }
	hits, err := search.New(p.Store(), warn).Search(ctx, query)
	if errors.Is(err, search.ErrEmptyQuery) {
		return nil, fmt.Errorf("%w: /search [--all] <query> (no word to search for in %q)", ErrUsage, q)
	}
	return hits, err
}

// openHit makes the session of h the current one, as /switch would (a hit
// in the current session stays there), and shows the conversation up to
// h. A hit in another project's session is not opened here: the session
// belongs to that project, so it says how to open it there.
func openHit(ctx context.Context, env *Env, q string, h search.Hit) error {
	if h.SessionID != env.Sessions.ID() {
		list, err := listSessions(env)
		if err != nil {
			return err
		}
		i := 0
		for i < len(list) && list[i].ID != h.SessionID {
			i++
		}
		if i == len(list) {
			_, err := fmt.Fprintf(env.IO.Out, "That hit is in a session of %s; open it there with: clawdcode -r %s\n",
				termtext.Line(h.Project), termtext.Line(h.SessionID))
			return err
		}
		if err := switchTo(ctx, env, list[i]); err != nil {
			return err
		}
	}
	if env.ShowHit != nil {
		env.ShowHit(ctx, q, h)
	}
	return nil
}

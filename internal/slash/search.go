package slash

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/search"
)

// searchCommand is /search: `clawdcode search` over this project's
// sessions (--all first: every project's).
func searchCommand() Command {
	return Command{
		Name:    "search",
		Args:    "[--all] <query>",
		Summary: "search this project's sessions (all words; \"a phrase\")",
		Run: func(ctx context.Context, env *Env, args string) error {
			q := strings.TrimSpace(args)
			all := false
			if rest, ok := strings.CutPrefix(q, "--all"); ok && (rest == "" || isSpace(rune(rest[0]))) {
				all, q = true, strings.TrimSpace(rest)
			}
			if q == "" {
				return fmt.Errorf("%w: /search [--all] <query>", ErrUsage)
			}
			p := env.Engine.Project()
			query := search.Query{Text: q}
			if !all {
				query.Project = p.Root
			}
			warn := func(msg string) { fmt.Fprintf(env.IO.ErrOut, "warning: %s\n", msg) }
			hits, err := search.New(p.Store(), warn).Search(ctx, query)
			if errors.Is(err, search.ErrEmptyQuery) {
				return fmt.Errorf("%w: /search [--all] <query> (no word to search for in %q)", ErrUsage, q)
			}
			if err != nil {
				return err
			}
			if len(hits) == 0 {
				_, err := fmt.Fprintln(env.IO.Out, search.NoMatch(q, all))
				return err
			}
			return search.WriteText(env.IO.Out, hits, search.TextOptions{
				WithProject: all, Query: q, Bold: env.IO.IsStdoutTTY(),
				When: func(t time.Time) string { return t.Local().Format("2006-01-02 15:04") },
			})
		},
	}
}

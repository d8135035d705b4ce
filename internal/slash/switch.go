package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
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
			matches := matchSessions(list, query)
			switch len(matches) {
			case 0:
				return fmt.Errorf("no session of this project matches %q; /sessions lists them", query)
			case 1:
			default:
				return ambiguous(query, matches)
			}
			return switchTo(ctx, env, matches[0])
		},
	}
}

// matchSessions finds the sessions whose id or title starts with query
// (titles compared case-insensitively). A full id wins outright, so any
// session stays reachable even if its id prefixes another's title.
func matchSessions(list []storage.SessionInfo, query string) []storage.SessionInfo {
	var matches []storage.SessionInfo
	q := strings.ToLower(query)
	for _, s := range list {
		if s.ID == query {
			return []storage.SessionInfo{s}
		}
		if strings.HasPrefix(s.ID, q) || strings.HasPrefix(strings.ToLower(s.Title), q) {
			matches = append(matches, s)
		}
	}
	return matches
}

// maxCandidates bounds the list an ambiguous query prints.
const maxCandidates = 10

func ambiguous(query string, matches []storage.SessionInfo) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%q matches %d sessions; give more of the id or title:", query, len(matches))
	for i, s := range matches {
		if i == maxCandidates {
			fmt.Fprintf(&b, "\n  … and %d more", len(matches)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s  %s", shortID(s.ID), displayTitle(s.Title))
	}
	return fmt.Errorf("%s", b.String())
}

// switchTo makes s the current session and says so.
func switchTo(ctx context.Context, env *Env, s storage.SessionInfo) error {
	if s.ID == env.Engine.SessionID() {
		_, err := fmt.Fprintf(env.IO.Out, "Already in session %s (%s).\n", shortID(s.ID), displayTitle(s.Title))
		return err
	}
	if err := env.Engine.Resume(ctx, s.ID); err != nil {
		return err
	}
	_, err := fmt.Fprintf(env.IO.Out, "Switched to session %s (%s), %d messages.\n", shortID(s.ID), displayTitle(s.Title), s.Messages)
	return err
}

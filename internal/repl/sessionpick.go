package repl

import (
	"context"
	"fmt"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// SessionSearch finds the sessions whose content matches a query (a
// full-text search of the store); the /resume picker uses it, when set,
// to filter on content beyond titles.
type SessionSearch func(ctx context.Context, query string) (sessionIDs []string, err error)

// pickSession is /resume's picker on a terminal: the sessions newest
// first with their relative times, filtered as the user types, the
// highlighted one's last messages previewed.
func (s *session) pickSession(ctx context.Context, sessions []storage.SessionInfo) (string, error) {
	if len(sessions) == 0 {
		fmt.Fprintln(s.io.ErrOut, "no sessions to resume")
		return "", nil
	}
	now := time.Now()
	p := s.opts.Parts.Sessions.Project()
	items := make([]pickItem, len(sessions))
	current := s.opts.Parts.Sessions.ID()
	for i, si := range sessions {
		title := si.Title
		if title == "" {
			title = "(untitled)"
		}
		detail := relativeTime(si.Updated, now) + " · " + plural(si.Messages, "message") + " · " + termtext.ShortID(si.ID)
		if si.ID == current {
			detail += " · current"
		}
		id := si.ID
		label := storage.SubagentTitle(si, termtext.FirstLine(title, 0, " …"))
		items[i] = pickItem{label: safe(label), detail: detail, match: si.ID}
		if p != nil {
			items[i].preview = func() []string {
				live, err := storage.LoadLive(ctx, p.Path(id))
				if err != nil {
					return nil // nothing to preview; resuming it will say why
				}
				lines := recentConversation(live, 0, s.cs, s.projectRoot(), 100)
				if len(lines) > 8 {
					lines = lines[len(lines)-8:]
				}
				return lines
			}
		}
	}
	pk := &picker{con: s.con, w: s.io.ErrOut, cs: s.cs, title: "Resume a session", items: items}
	if s.opts.SearchSessions != nil {
		pk.search = func(query string) map[int]bool {
			ids, err := s.opts.SearchSessions(ctx, query)
			if err != nil {
				return nil
			}
			hit := map[int]bool{}
			for _, id := range ids {
				for i, si := range sessions {
					if si.ID == id {
						hit[i] = true
					}
				}
			}
			return hit
		}
	}
	i, err := pk.run(ctx)
	if err != nil || i < 0 {
		return "", err
	}
	return sessions[i].ID, nil
}

package cli

import (
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// enclosingHints are the hints of -c, or of -r id (id != ""), in a
// directory without the session it looks for, when a directory above it
// in its repository has sessions (storage.Project.Enclosing): sessions
// stay keyed by the working directory (CONTRACT §4), so the user is told
// where the project's are and how to continue one there. nil when there
// is no such directory, or for -r when id is none of its sessions.
func enclosingHints(p *storage.Project, id string) []string {
	q, list := p.Enclosing()
	if q == nil {
		return nil
	}
	at := shellWord(q.Root)
	if id != "" {
		s, err := storage.Match(list, id)
		if err != nil {
			return nil
		}
		return []string{
			fmt.Sprintf("session %s %s is one of %s's: sessions belong to the directory they were started in", termtext.ShortID(s.ID), quotedTitle(s.Title), termtext.Line(q.Root)),
			fmt.Sprintf("continue it there: cd %s && clawdcode -r %s", at, s.ID),
		}
	}
	own, latest := 0, storage.SessionInfo{}
	for _, s := range list {
		if s.Parent == "" {
			if own == 0 {
				latest = s
			}
			own++
		}
	}
	return []string{
		fmt.Sprintf("this directory has no sessions; the project's are in %s (%d, the latest %s %s)", termtext.Line(q.Root), own, termtext.ShortID(latest.ID), quotedTitle(latest.Title)),
		fmt.Sprintf("continue the latest there: cd %s && clawdcode -c   (or pick one: clawdcode -r)", at),
	}
}

func quotedTitle(t string) string {
	if t == "" {
		return "(untitled)"
	}
	return fmt.Sprintf("%q", termtext.FirstLine(t, 50, termtext.Ellipsis))
}

// shellWord is path as one word of a shell command line: quoted when it
// holds anything but the characters a path usually has.
func shellWord(path string) string {
	plain := func(r rune) bool {
		return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,@", r))
	}
	if path != "" && !strings.ContainsFunc(path, func(r rune) bool { return !plain(r) }) {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}

package storage

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// MaxCandidates bounds the sessions an ambiguous query lists.
const MaxCandidates = 8

// Match is the one rule for finding the session a user means (-r,
// /switch, the /resume picker, sessions show/export/rm), given the
// project's sessions newest first:
//
//  1. a full id names its session;
//  2. otherwise the sessions whose id starts with query (ids are compared
//     without regard to case);
//  3. only when no id starts with it, the sessions whose title starts with
//     query, compared without regard to case or runs of white space.
//
// One session is the answer; none is an error matching ErrNotFound; several
// are an *AmbiguousIDError listing them. Ids win over titles, so every
// session stays reachable by its id whatever the titles say.
func Match(list []SessionInfo, query string) (SessionInfo, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return SessionInfo{}, &noMatchError{query: query}
	}
	q := strings.ToLower(query)
	var byID, byTitle []SessionInfo
	for _, s := range list {
		if s.ID == query {
			return s, nil
		}
		if strings.HasPrefix(strings.ToLower(s.ID), q) {
			byID = append(byID, s)
		}
		if strings.HasPrefix(foldTitle(s.Title), foldTitle(query)) && s.Title != "" {
			byTitle = append(byTitle, s)
		}
	}
	matches := byID
	if len(matches) == 0 {
		matches = byTitle
	}
	switch len(matches) {
	case 0:
		return SessionInfo{}, &noMatchError{query: query}
	case 1:
		return matches[0], nil
	}
	return SessionInfo{}, &AmbiguousIDError{Prefix: query, Candidates: matches}
}

func foldTitle(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// noMatchError is Match finding nothing; it matches ErrNotFound.
type noMatchError struct{ query string }

func (e *noMatchError) Error() string {
	return fmt.Sprintf("no session %q in this project", e.query)
}

func (e *noMatchError) Is(target error) bool { return target == ErrNotFound }

// Lines lists the candidates, one per line (id, last update, title), at
// most MaxCandidates of them and then a count of the rest.
func (e *AmbiguousIDError) Lines() []string {
	lines := make([]string, 0, min(len(e.Candidates), MaxCandidates)+1)
	for i, c := range e.Candidates {
		if i == MaxCandidates {
			lines = append(lines, fmt.Sprintf("… and %d more", len(e.Candidates)-MaxCandidates))
			break
		}
		title := strings.TrimSpace(c.Title)
		if title == "" {
			title = "(untitled)"
		}
		lines = append(lines, fmt.Sprintf("%s  %s  %s", c.ID, c.Updated.UTC().Format(time.RFC3339), title))
	}
	return lines
}

// Resolve maps what the user typed to a session id of this project, by
// Match over List — and first by a full id whose file exists, so that a
// session without a message (which List leaves out) still opens by its
// full id. Errors: ErrInvalidID for what looks like a path ("../x", "a/b"),
// ErrNotFound, *AmbiguousIDError.
func (p *Project) Resolve(query string) (string, error) {
	query = strings.TrimSpace(query)
	if query == "" || strings.ContainsAny(query, `/\`) || strings.Contains(query, "..") || strings.ContainsRune(query, 0) {
		return "", fmt.Errorf("%w %q", ErrInvalidID, query)
	}
	if checkID(query) == nil {
		if fi, err := os.Lstat(p.Path(query)); err == nil && fi.Mode().IsRegular() {
			return query, nil
		}
	}
	list, err := p.List()
	if err != nil {
		return "", err
	}
	s, err := Match(list, query)
	if err != nil {
		return "", err
	}
	return s.ID, nil
}

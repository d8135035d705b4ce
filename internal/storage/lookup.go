package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Latest returns the id of the session with the most recent activity, or
// ErrNotFound. Like List, it passes over sessions without a message. A
// session's activity is its last record's time, but never later than its
// file was last written here: a transcript imported with timestamps in the
// future (another machine's clock, or a crafted file) must not be what -c
// continues from then on, ahead of every local session. A subagent's
// session (SessionInfo.Parent) is never the latest: it is part of its
// parent's.
func (p *Project) Latest() (string, error) {
	list, err := p.List()
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", fmt.Errorf("%w: no session in %s", ErrNotFound, p.Root)
	}
	dir := p.dir()
	best, bestAt := "", time.Time{}
	for _, s := range list { // newest Updated first, and activity <= Updated
		if s.Parent != "" {
			continue // a subagent's session is its parent's part, not one to continue
		}
		if best != "" && !s.Updated.After(bestAt) {
			break
		}
		at := s.Updated
		if fi, err := os.Stat(filepath.Join(dir, s.ID+".jsonl")); err == nil && fi.ModTime().Before(at) {
			at = fi.ModTime()
		}
		if best == "" || at.After(bestAt) {
			best, bestAt = s.ID, at
		}
	}
	if best == "" {
		return "", fmt.Errorf("%w: no session in %s", ErrNotFound, p.Root)
	}
	return best, nil
}

// Remove deletes a session file and its index entry. A session open in
// another process (or another Session of this one) is ErrSessionBusy.
func (p *Project) Remove(id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	dir := p.dir()
	path := filepath.Join(dir, id+".jsonl")
	f, err := OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return notFound(path, err, "remove session "+id)
	}
	defer f.Close() // releases the lock
	ok, err := tryLockSoon(f)
	if err != nil {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	if !ok {
		return &busyError{id: id}
	}
	// Remove the file that was locked, not one that replaced it since.
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	if cur, err := os.Lstat(path); err != nil || !os.SameFile(fi, cur) {
		return &notFoundError{id: id}
	}
	if err := os.Remove(path); err != nil {
		return notFound(path, err, "remove session "+id)
	}
	p.updateIndex(dir, func(m map[string]*indexEntry) { delete(m, id) })
	return nil
}

// SubagentTitle is how a list shows the title of a subagent's session
// (Parent set): marked as such and naming its parent, so that it is never
// taken for a session of the user's; other titles are returned as given.
func SubagentTitle(s SessionInfo, title string) string {
	if s.Parent == "" {
		return title
	}
	parent := s.Parent
	if len(parent) > 8 {
		parent = parent[:8]
	}
	return "↳ subagent of " + parent + " · " + title
}

// UnderParents orders sessions so that each subagent's session follows
// its parent's (newest first among them), not among the sessions of their
// own; one whose parent is not listed keeps its place.
func UnderParents(infos []SessionInfo) []SessionInfo {
	listed := map[string]bool{}
	children := map[string][]SessionInfo{}
	for _, s := range infos {
		listed[s.ID] = true
	}
	for _, s := range infos {
		if s.Parent != "" && listed[s.Parent] {
			children[s.Parent] = append(children[s.Parent], s)
		}
	}
	out := make([]SessionInfo, 0, len(infos))
	var add func(s SessionInfo)
	add = func(s SessionInfo) {
		out = append(out, s)
		for _, c := range children[s.ID] {
			add(c)
		}
	}
	for _, s := range infos {
		if s.Parent == "" || !listed[s.Parent] {
			add(s)
		}
	}
	return out
}

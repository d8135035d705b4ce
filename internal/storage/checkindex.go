package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// IndexDrift compares the project's index.json with its session files and
// says where they disagree: an entry for a session without a file, a
// session without an entry, or an entry that claims to be current (the
// file's size and mtime match) but whose message count or title differ
// from the file's. An entry that is merely stale (the file grew since) is no drift:
// List brings it up to date. No index at all, in a project without
// sessions, is none either.
func (p *Project) IndexDrift() ([]string, error) {
	dir := p.dir()
	files, err := p.SessionFiles()
	if err != nil {
		return nil, err
	}
	idx := p.readIndex(dir)
	if idx == nil {
		if _, err := os.Lstat(filepath.Join(dir, indexName)); err == nil {
			return []string{"index.json cannot be read (corrupt, or of another version)"}, nil
		}
		idx = map[string]*indexEntry{}
	}
	var out []string
	for _, sf := range files {
		e := idx[sf.ID]
		delete(idx, sf.ID)
		if e == nil {
			out = append(out, fmt.Sprintf("session %s has no entry", sf.ID))
			continue
		}
		if !e.fresh(sf.Info) {
			continue
		}
		now, err := p.refreshEntry(sf.Path, sf.ID, titleOnly(e, sf.Info), sf.Info)
		if err != nil {
			return nil, err
		}
		// Tokens are left out: a session's last count can come after its
		// last record (the index then knows more than the file).
		if now.Messages != e.Messages || now.Title != e.Title {
			out = append(out, fmt.Sprintf("session %s: entry says %d messages, title %q; the file says %d, %q",
				sf.ID, e.Messages, e.Title, now.Messages, now.Title))
		}
	}
	gone := make([]string, 0, len(idx))
	for id := range idx {
		gone = append(gone, id)
	}
	sort.Strings(gone)
	for _, id := range gone {
		out = append(out, fmt.Sprintf("entry for session %s, which has no file", id))
	}
	return out, nil
}

// titleOnly is what of an old entry survives a rebuild: a title set with
// SetTitle, which lives in the index alone.
func titleOnly(e *indexEntry, fi fs.FileInfo) *indexEntry {
	if e == nil || !e.TitleSet {
		return nil
	}
	return &indexEntry{SessionInfo: SessionInfo{Title: e.Title, Size: fi.Size()}, TitleSet: true}
}

// RebuildIndex writes the project's index.json anew from its session
// files (keeping titles set with SetTitle), under the index lock.
func (p *Project) RebuildIndex() error {
	dir := p.dir()
	unlock := lockIndex(dir)
	defer unlock()
	files, err := p.SessionFiles()
	if err != nil {
		return err
	}
	old := p.readIndex(dir)
	m := make(map[string]*indexEntry, len(files))
	for _, sf := range files {
		e, err := p.refreshEntry(sf.Path, sf.ID, titleOnly(old[sf.ID], sf.Info), sf.Info)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile
		}
		if err != nil {
			return err
		}
		m[sf.ID] = e
	}
	if err := p.writeIndex(dir, m); err != nil {
		return fmt.Errorf("rebuild index of %s: %w", p.Root, err)
	}
	return nil
}

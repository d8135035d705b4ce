package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Change is a file that a restore would put back, as it was before the
// earliest saved change among the turns restored.
type Change struct {
	Path    string
	Existed bool   // false: the file was created since, a restore removes it
	Skipped string // why its content was not saved: it cannot be restored
	blob    string
	mode    fs.FileMode
}

// Restored is what a restore did to one file.
type Restored struct {
	Path   string
	Action string // "restored", "removed", or "not restored: why"
}

// LastTurn is the latest turn with saved changes that no restore has undone
// yet ("" when there is none): what /undo restores.
func (s *Store) LastTurn() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ents, err := s.entries()
	if err != nil {
		return "", fmt.Errorf("read checkpoints: %w", err)
	}
	undone := map[string]bool{}
	for _, e := range ents {
		for _, t := range e.Undone {
			undone[t] = true
		}
		for _, t := range e.Redone {
			delete(undone, t)
		}
	}
	for i := len(ents) - 1; i >= 0; i-- {
		if t := ents[i].Turn; t != "" && ents[i].Path != "" && !ents[i].BeforeRestore && !undone[t] {
			return t, nil
		}
	}
	return "", nil
}

// Changes lists the files changed in turns, each with the state before the
// earliest change among them, in the order they were first changed.
func (s *Store) Changes(turns []string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes(turns)
}

func (s *Store) changes(turns []string) ([]Change, error) {
	ents, err := s.entries()
	if err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	var out []Change
	seen := map[string]bool{}
	for _, e := range ents {
		if e.Path == "" || !slices.Contains(turns, e.Turn) || seen[e.Path] {
			continue
		}
		seen[e.Path] = true
		out = append(out, Change{Path: e.Path, Existed: e.Existed, Skipped: e.Skipped, blob: e.Blob, mode: e.Mode})
	}
	return out, nil
}

// Restore puts back every file changed in turns as it was before the
// earliest change among them (a file created since is removed), and marks
// the turns undone. A file that cannot be restored — its checkpoint is
// missing, or its directory now leads out of the project — is reported,
// not fatal. Restore does not look for changes made since clawdcode's
// edits: ask Drifted first.
func (s *Store) Restore(turns []string) ([]Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restoreTurns(turns, "")
}

// restoreTurns is Restore with s.mu held; by names the rewind the restore
// is made for ("" = none).
func (s *Store) restoreTurns(turns []string, by string) ([]Restored, error) {
	changes, err := s.changes(turns)
	if err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return nil, nil
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return nil, fmt.Errorf("open the project %s: %w", s.root, err)
	}
	defer root.Close()
	var out []Restored
	for _, c := range changes {
		action, state := s.restore(root, c)
		out = append(out, Restored{Path: c.Path, Action: action})
		if state != "" {
			if err := s.appendEntry(entry{Path: c.Path, State: state, Time: time.Now().UTC()}); err != nil {
				return out, fmt.Errorf("record the restore: %w", err)
			}
		}
	}
	if err := s.appendEntry(entry{Undone: turns, By: by, Time: time.Now().UTC()}); err != nil {
		return out, fmt.Errorf("record the restore: %w", err)
	}
	// The turns may change the files again (a rewind continues from
	// before them): save afresh.
	for k := range s.saved {
		delete(s.saved, k)
	}
	return out, nil
}

// restore puts c back through root and says what it did, and the state it
// left (a content hash, stateNone, or "" when it changed nothing).
func (s *Store) restore(root *os.Root, c Change) (action, state string) {
	if c.Skipped != "" {
		return "not restored: " + c.Skipped, ""
	}
	rel, err := s.confined(c.Path)
	if err != nil {
		return "not restored: " + err.Error(), ""
	}
	if !c.Existed {
		if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "not restored: " + err.Error(), ""
		}
		return "removed", stateNone
	}
	data, err := os.ReadFile(filepath.Join(s.dir, "blobs", c.blob))
	if err != nil {
		return "not restored: checkpoint missing", ""
	}
	mode := c.mode
	if mode == 0 {
		mode = 0o644
	}
	if err := writeIn(root, rel, data, mode); err != nil {
		return "not restored: " + err.Error(), ""
	}
	return "restored", hashOf(data)
}

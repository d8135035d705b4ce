package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
)

// FileDiff is one file the session changed: its content before the
// session's first change to it and now.
type FileDiff struct {
	Path    string // absolute
	Rel     string // relative to the project root
	Existed bool   // false: the session created it
	Exists  bool   // false: it is gone now
	Skipped string // why its content before was not saved: no diff
	Before  string
	Now     string
	// Drifted: the file changed after clawdcode last wrote it (by the
	// user, an editor, a formatter), so Now is not only the agent's work.
	Drifted bool
}

// SessionDiff lists every file the session's Write and Edit changed, in
// the order first changed, with its content before the first change and
// now. A file whose directory now leads out of the project is left out.
func (s *Store) SessionDiff() ([]FileDiff, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ents, err := s.entries()
	if err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	last := map[string]string{}
	var first []entry
	seen := map[string]bool{}
	for _, e := range ents {
		if e.State != "" {
			last[e.Path] = e.State
		}
		if e.Path != "" && e.Turn != "" && !seen[e.Path] {
			seen[e.Path] = true
			first = append(first, e)
		}
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return nil, fmt.Errorf("open the project %s: %w", s.root, err)
	}
	defer root.Close()
	var out []FileDiff
	for _, e := range first {
		d, err := s.fileDiff(root, e, last[e.Path])
		if err != nil {
			continue // confined refuses it: not the project's any more
		}
		out = append(out, d)
	}
	return out, nil
}

// fileDiff reads e's file before (its blob) and now; lastState is what
// clawdcode last left there ("" when unknown).
func (s *Store) fileDiff(root *os.Root, e entry, lastState string) (FileDiff, error) {
	rel, err := s.confined(e.Path)
	if err != nil {
		return FileDiff{}, err
	}
	d := FileDiff{Path: e.Path, Rel: rel, Existed: e.Existed, Skipped: e.Skipped}
	now, state, err := readIn(root, rel)
	if err != nil {
		return FileDiff{}, err
	}
	d.Now, d.Exists = now, state != stateNone
	d.Drifted = lastState != "" && state != lastState
	if e.Existed && e.Skipped == "" {
		data, err := os.ReadFile(filepath.Join(s.dir, "blobs", e.Blob))
		if err != nil {
			d.Skipped = "its checkpoint is missing"
		}
		d.Before = string(data)
	}
	return d, nil
}

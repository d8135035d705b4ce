package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// driftDiffLines bounds the diff a Drift shows.
const driftDiffLines = 40

// Drift is a file a restore would overwrite although it changed since
// clawdcode last wrote it: someone else's work the restore would lose.
type Drift struct {
	Path string
	// Diff is what the restore would do to the file as it is now (a
	// unified diff; "-" lines are lost), cut to driftDiffLines lines.
	Diff string
}

// Drifted lists the files changed in turns that differ now from what
// clawdcode last left there. A file clawdcode has no record of writing
// (checkpoints from before the record existed), or that a restore would
// not touch, is not listed.
func (s *Store) Drifted(turns []string) ([]Drift, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changes, err := s.changes(turns)
	if err != nil {
		return nil, err
	}
	ents, err := s.entries()
	if err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	last := map[string]string{}
	for _, e := range ents {
		if e.State != "" {
			last[e.Path] = e.State
		}
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return nil, fmt.Errorf("open the project %s: %w", s.root, err)
	}
	defer root.Close()
	var out []Drift
	for _, c := range changes {
		want, known := last[c.Path]
		if !known || c.Skipped != "" {
			continue
		}
		if d, ok := s.drift(root, c, want); ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// drift compares c's file now with want, the state clawdcode left.
func (s *Store) drift(root *os.Root, c Change, want string) (Drift, bool) {
	rel, err := s.confined(c.Path)
	if err != nil {
		return Drift{}, false // Restore refuses it: nothing to lose
	}
	now, state, err := readIn(root, rel)
	if err != nil || state == want {
		return Drift{}, false
	}
	var before string
	if c.Existed {
		data, err := os.ReadFile(filepath.Join(s.dir, "blobs", c.blob))
		if err != nil {
			return Drift{}, false // Restore cannot restore it either
		}
		before = string(data)
	}
	return Drift{Path: c.Path, Diff: cutLines(diff(rel, now, before), driftDiffLines)}, true
}

// readIn reads rel under root: its content and state (stateNone when it
// does not exist).
func readIn(root *os.Root, rel string) (string, string, error) {
	f, err := root.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", stateNone, nil
	}
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return "", "", err
	}
	return string(data), hashOf(data), nil
}

func diff(name, now, restored string) string {
	u, err := udiff.ToUnifiedDiff(name+" (now)", name+" (restored)", now, udiff.Lines(now, restored), 1)
	if err != nil {
		return ""
	}
	return u.String()
}

func cutLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("… (%d more lines)\n", len(lines)-n)
}

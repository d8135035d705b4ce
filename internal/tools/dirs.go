package tools

import (
	"slices"
	"sync"
)

// addedDirs are the directories outside the project that Write and Edit
// treat as the project's (--add-dir, /add-dir), resolved. Safe for
// concurrent use.
type addedDirs struct {
	mu   sync.Mutex
	dirs []string
}

func newAddedDirs(dirs []string) *addedDirs {
	d := &addedDirs{}
	for _, dir := range dirs {
		d.add(dir)
	}
	return d
}

func (d *addedDirs) add(dir string) {
	real := realRoot(dir)
	d.mu.Lock()
	defer d.mu.Unlock()
	if !slices.Contains(d.dirs, real) {
		d.dirs = append(d.dirs, real)
	}
}

// holds reports whether target (resolved) is under one of the dirs.
func (d *addedDirs) holds(target string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.ContainsFunc(d.dirs, func(dir string) bool { return underDir(dir, target) })
}

// AddDir makes Write and Edit under dir count as inside the project from
// now on (/add-dir): a whole-tool allowance and accept-edits cover them.
// The sensitive places stay sensitive.
func (p *Permissions) AddDir(dir string) {
	p.dirs.add(dir)
}

// Dirs are the directories added to the project's (--add-dir, /add-dir).
func (p *Permissions) Dirs() []string {
	p.dirs.mu.Lock()
	defer p.dirs.mu.Unlock()
	return slices.Clone(p.dirs.dirs)
}

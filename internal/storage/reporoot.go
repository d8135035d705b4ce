package storage

import (
	"os"
	"path/filepath"
)

// RepoRoot is the root of the repository dir is in: the nearest of dir
// and its parents that holds a .git (a directory, or the file a worktree
// or a submodule has); "" when none does. dir should be absolute and
// symlink-resolved, as Project.Root is.
//
// It is what a project means beyond its working directory: the
// instruction files read from every directory between it and dir, and
// the memories (internal/memory) kept for the whole repository. Sessions
// stay keyed by the working directory (CONTRACT §4).
func RepoRoot(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Enclosing is the project of the nearest directory above p's, up to its
// repository's root (RepoRoot), that has sessions, with them (newest
// first, as List gives them); nil when there is none — p is no
// subdirectory of a repository, or none of the directories above it up to
// the root has a session. For -c, -r and /resume in a subdirectory that
// has no sessions of its own: the user is told where the project's are.
func (p *Project) Enclosing() (*Project, []SessionInfo) {
	root := RepoRoot(p.Root)
	if root == "" || root == p.Root {
		return nil, nil
	}
	for dir := filepath.Dir(p.Root); ; dir = filepath.Dir(dir) {
		// Only a directory with a store of its own is listed: a look
		// must not create one.
		if q, err := p.store.Project(dir); err == nil && isDir(q.dir()) {
			if list, err := q.List(); err == nil && hasOwn(list) {
				return q, list
			}
		}
		if dir == root || filepath.Dir(dir) == dir {
			return nil, nil
		}
	}
}

// hasOwn reports whether list holds a session that is not a subagent's.
func hasOwn(list []SessionInfo) bool {
	for _, s := range list {
		if s.Parent == "" {
			return true
		}
	}
	return false
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

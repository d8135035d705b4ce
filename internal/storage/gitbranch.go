package storage

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// gitHead tracks the current branch of the repository a project lives in
// by reading .git/HEAD directly: running git for every record would cost
// milliseconds, a stat costs a microsecond. HEAD is re-read only when its
// mtime or size changes (git replaces it on checkout).
type gitHead struct {
	path    string // "" when the project is not in a git repository
	modTime time.Time
	size    int64
	branch  string
}

func newGitHead(root string) *gitHead {
	return &gitHead{path: findGitHead(root)}
}

// findGitHead walks up from dir to the first .git, which is a directory or,
// in worktrees and submodules, a file naming the real git directory.
func findGitHead(dir string) string {
	for {
		dotgit := filepath.Join(dir, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				return filepath.Join(dotgit, "HEAD")
			}
			b, err := os.ReadFile(dotgit)
			if err != nil {
				return ""
			}
			gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return ""
			}
			gitdir = strings.TrimSpace(gitdir)
			if !filepath.IsAbs(gitdir) {
				gitdir = filepath.Join(dir, gitdir)
			}
			return filepath.Join(gitdir, "HEAD")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Branch returns the checked-out branch, "HEAD" when detached, "" outside
// a repository or when HEAD cannot be read.
func (g *gitHead) Branch() string {
	if g.path == "" {
		return ""
	}
	fi, err := os.Stat(g.path)
	if err != nil {
		g.branch, g.modTime, g.size = "", time.Time{}, 0
		return ""
	}
	if fi.ModTime().Equal(g.modTime) && fi.Size() == g.size {
		return g.branch
	}
	b, err := os.ReadFile(g.path)
	if err != nil {
		return ""
	}
	g.modTime, g.size = fi.ModTime(), fi.Size()
	g.branch = parseHead(b)
	return g.branch
}

func parseHead(b []byte) string {
	b = bytes.TrimSpace(b)
	if ref, ok := bytes.CutPrefix(b, []byte("ref:")); ok {
		ref = bytes.TrimSpace(ref)
		return string(bytes.TrimPrefix(ref, []byte("refs/heads/")))
	}
	if len(b) == 0 {
		return ""
	}
	return "HEAD"
}

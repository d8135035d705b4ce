package tools

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// vcsDirs are never descended into by Glob or Grep, ignored or not.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// ignoreSet is what a Glob or Grep walk skips because git would: the
// patterns of .git/info/exclude and of every .gitignore from the work
// tree's root down to the directory being walked, read as the walk enters
// each directory (go-git's gitignore matcher decides, with git's rules:
// later and deeper patterns win, "!" re-includes, a trailing "/" matches
// directories only). Outside a git work tree the project root stands in
// for its root, so a project's .gitignore applies before `git init` too.
//
// A directory a search was asked to look in is searched whole even when
// git ignores it: Grep with path build searches the build output. One walk
// owns an ignoreSet; it is not safe for concurrent use.
type ignoreSet struct {
	root     string // the work tree root, the domain of every pattern
	patterns []gitignore.Pattern
	loaded   map[string]bool
	off      bool // the walk is inside a directory the search named and git ignores
}

// newIgnoreSet prepares the patterns that apply to the walk of base in the
// project at projectRoot: those of base and its ancestors up to the work
// tree root.
func newIgnoreSet(projectRoot, base string) *ignoreSet {
	s := &ignoreSet{root: workTreeRoot(projectRoot, base), loaded: map[string]bool{}}
	s.read(filepath.Join(s.root, ".git", "info", "exclude"), nil)
	rel, err := filepath.Rel(s.root, base)
	if err != nil || strings.HasPrefix(rel, "..") {
		return s // base is outside the tree: only its own files apply
	}
	dir := s.root
	s.enter(dir)
	if rel != "." {
		for part := range strings.SplitSeq(filepath.ToSlash(rel), "/") {
			dir = filepath.Join(dir, part)
			if s.skips(dir, true) {
				s.off = true
				return s
			}
			s.enter(dir)
		}
	}
	return s
}

// workTreeRoot is the nearest directory at or above base (and not above
// the file system's root) holding .git, else the project root when base is
// inside it, else base.
func workTreeRoot(projectRoot, base string) string {
	for dir := base; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if rel, err := filepath.Rel(projectRoot, base); err == nil && !strings.HasPrefix(rel, "..") {
		return projectRoot
	}
	return base
}

// enter reads dir's .gitignore, once.
func (s *ignoreSet) enter(dir string) {
	if s.off || s.loaded[dir] {
		return
	}
	s.loaded[dir] = true
	s.read(filepath.Join(dir, ".gitignore"), s.domain(dir))
}

func (s *ignoreSet) domain(dir string) []string {
	rel, err := filepath.Rel(s.root, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// read adds the patterns of one ignore file; a file that cannot be read
// adds none (a search reports what it can see).
func (s *ignoreSet) read(path string, domain []string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		s.patterns = append(s.patterns, gitignore.ParsePattern(line, domain))
	}
}

// skips reports whether the walk leaves path out: a VCS directory, or
// what the patterns read so far ignore.
func (s *ignoreSet) skips(path string, isDir bool) bool {
	if isDir && vcsDirs[filepath.Base(path)] {
		return true
	}
	if s.off || len(s.patterns) == 0 {
		return false
	}
	rel, err := filepath.Rel(s.root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	return gitignore.NewMatcher(s.patterns).Match(strings.Split(filepath.ToSlash(rel), "/"), isDir)
}

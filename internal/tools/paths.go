package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// resolveTarget is the file a path given to a tool really names: relative
// paths are relative to root, and symlinks are followed as far as the path
// exists — an existing file through all its links, a new file through the
// links of the directories it would be created in. A dangling link as the
// last component stays itself (Write replaces the link, not its target).
// It is the one resolution behind both the permission rules and the
// writes, so what was allowed is what is written.
func resolveTarget(root, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	// Walk up to the deepest ancestor that exists and resolve that.
	dir, rest := p, ""
	for {
		parent := filepath.Dir(dir)
		if rest == "" {
			rest = filepath.Base(dir)
		} else {
			rest = filepath.Join(filepath.Base(dir), rest)
		}
		if parent == dir {
			return p
		}
		dir = parent
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
	}
}

// realRoot resolves a directory's symlinks when it exists, so a root under
// a symlinked /tmp compares with resolved targets.
func realRoot(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// relativeTo returns target relative to root, slash-separated, or outside
// when target is not root or below it.
func relativeTo(root, target string) (rel string, outside bool) {
	r, err := filepath.Rel(root, target)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", true
	}
	return filepath.ToSlash(r), false
}

// underDir reports whether target is dir or below it.
func underDir(dir, target string) bool {
	_, outside := relativeTo(dir, target)
	return !outside
}

// isProtected reports whether target lies under one of the directories no
// tool may write to. Both sides are compared resolved.
func isProtected(protected []string, target string) (string, bool) {
	for _, d := range protected {
		if underDir(d, target) {
			return d, true
		}
	}
	return "", false
}

// statRegular is os.Stat for callers that only care whether a regular file
// is there.
func statRegular(p string) (fs.FileInfo, bool) {
	info, err := os.Stat(p)
	return info, err == nil && info.Mode().IsRegular()
}

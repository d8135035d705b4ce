package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is how much a command may change (CONTRACT §13).
type Mode int

const (
	// WorkspaceWrite (the default): write under the project root, the
	// temporary directory and the configured writable paths, never under
	// the project's protected paths (Policy.Protected).
	WorkspaceWrite Mode = iota
	// ReadOnly: write under the temporary directory only. Plan mode runs
	// commands so.
	ReadOnly
	// Off: commands run as the user does (they still end with clawdcode).
	Off
)

var modeNames = []string{WorkspaceWrite: "workspace-write", ReadOnly: "read-only", Off: "off"}

// ParseMode reads a --sandbox or [sandbox] mode value.
func ParseMode(s string) (Mode, error) {
	if i := slices.Index(modeNames, strings.TrimSpace(s)); i >= 0 {
		return Mode(i), nil
	}
	return WorkspaceWrite, fmt.Errorf("unknown sandbox mode %q (want read-only, workspace-write or off)", s)
}

func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Strictness orders the modes by how little they allow: a project's file
// may only raise it (config.Resolve).
func (m Mode) Strictness() int {
	switch m {
	case ReadOnly:
		return 2
	case WorkspaceWrite:
		return 1
	}
	return 0
}

// Policy is what one sandbox allows: every path absolute and clean.
type Policy struct {
	Mode Mode
	// Root is the project root (symlinks resolved).
	Root string
	// TempDirs are the temporary directories, writable in every mode.
	TempDirs []string
	// Writable are more places commands may write ([sandbox] writable),
	// in workspace-write mode.
	Writable []string
	// DenyRead are places commands may not read ([sandbox] deny_read).
	DenyRead []string
	// Network: any host may be reached directly; otherwise only the
	// allowed hosts, through clawdcode's proxy.
	Network bool
	// Home is clawdcode's storage (CLAWDCODE_HOME): never writable, even
	// when it lies under a writable place.
	Home string
}

// WritableRoots are the places a command may write, before the protected
// paths are taken out of them.
func (p Policy) WritableRoots() []string {
	out := slices.Clone(p.TempDirs)
	if p.Mode == WorkspaceWrite {
		out = append(out, p.Root)
		out = append(out, p.Writable...)
		// A worktree's git directories lie outside it: git add and git
		// commit write there (their config and hooks stay protected).
		for _, dir := range gitDirs(p.Root) {
			if !within(p.Root, dir) {
				out = append(out, dir)
			}
		}
	}
	return out
}

// Protected are the existing paths under a writable root that stay
// read-only: the project's .git/config, .git/hooks/ and .clawdcode/ (and,
// for a worktree or a submodule whose .git is a file, the same in the git
// directory it names), submodules' git directories, and CLAWDCODE_HOME.
// The rest of .git stays writable, so that git add and git commit work.
func (p Policy) Protected() []string {
	var out []string
	add := func(path string) {
		if _, err := os.Lstat(path); err == nil && !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	if p.Mode == WorkspaceWrite {
		add(filepath.Join(p.Root, ".clawdcode"))
		for _, dir := range gitDirs(p.Root) {
			for _, name := range []string{"config", "config.worktree", "hooks", "modules"} {
				add(filepath.Join(dir, name))
			}
		}
		// A .git file (worktree, submodule) is the pointer itself.
		if info, err := os.Lstat(filepath.Join(p.Root, ".git")); err == nil && !info.IsDir() {
			add(filepath.Join(p.Root, ".git"))
		}
	}
	if p.Home != "" && p.under(p.Home) {
		add(p.Home)
	}
	return out
}

// prepare makes the protected places that are missing and can be made
// without changing what git sees — an empty .clawdcode/ in the project,
// an empty hooks/ in its .git directory — so that they too are bound
// read-only: a command could otherwise create them with settings or
// hooks that run outside the sandbox later.
func (p Policy) prepare() {
	if p.Mode != WorkspaceWrite {
		return
	}
	_ = os.Mkdir(filepath.Join(p.Root, ".clawdcode"), 0o755)
	for _, dir := range gitDirs(p.Root) {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			_ = os.Mkdir(filepath.Join(dir, "hooks"), 0o755)
		}
	}
}

// under reports whether path lies under a writable root.
func (p Policy) under(path string) bool {
	return slices.ContainsFunc(p.WritableRoots(), func(root string) bool { return within(root, path) })
}

// gitDirs are the git directories of the project: .git itself, or the
// directory a .git file names and its common directory (a worktree's).
func gitDirs(root string) []string {
	dotgit := filepath.Join(root, ".git")
	info, err := os.Lstat(dotgit)
	if err != nil {
		return nil
	}
	if info.IsDir() {
		return []string{dotgit}
	}
	data, err := os.ReadFile(dotgit)
	if err != nil {
		return nil
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return nil
	}
	dir := strings.TrimSpace(target)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	dirs := []string{filepath.Clean(dir)}
	if common, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		dirs = append(dirs, filepath.Clean(c))
	}
	return dirs
}

// within reports whether path is root or lies under it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// MayWrite reports whether the policy lets a command write path (absolute,
// clean): under a writable root and not under a protected path.
func (p Policy) MayWrite(path string) bool {
	if p.Mode == Off {
		return true
	}
	if !p.under(path) {
		return false
	}
	return !slices.ContainsFunc(p.Protected(), func(prot string) bool { return within(prot, path) })
}

// resolve makes a configured path absolute: "~/" is home, a relative
// path is relative to base; symlinks are resolved when the path exists.
func resolve(path, home, base string) string {
	path = strings.TrimSpace(path)
	switch {
	case path == "~":
		path = home
	case strings.HasPrefix(path, "~/"):
		path = filepath.Join(home, path[2:])
	case !filepath.IsAbs(path):
		path = filepath.Join(base, path)
	}
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// Resolve makes every configured path of c absolute (relative to the
// user's home for "~/", else to the project root).
func Resolve(paths []string, home, root string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if strings.TrimSpace(p) != "" {
			out = append(out, resolve(p, home, root))
		}
	}
	return out
}

// tempDirs is the system's temporary directory, symlinks resolved (and
// as given, when that differs).
func tempDirs() []string {
	t := filepath.Clean(os.TempDir())
	out := []string{t}
	if real, err := filepath.EvalSymlinks(t); err == nil && real != t {
		out = append(out, real)
	}
	return out
}

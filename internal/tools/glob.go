package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// globMaxResults bounds how many paths Glob lists.
const globMaxResults = 1000

// globParams are Glob's parameters (see params.go).
type globParams struct {
	Pattern string `json:"pattern" param:"text" jsonschema:"Glob pattern to match file paths against, relative to path."`
	Path    string `json:"path,omitempty" jsonschema:"Directory to search in (default: the project root)."`
}

func newGlobTool(env *Env) *tool {
	return typed(&tool{
		name: NameGlob,
		description: "Find files by name pattern, e.g. \"**/*.go\" or \"src/**/*.{ts,tsx}\". " +
			"`*` and `?` match within one path segment, `**` matches any number of directories, " +
			"`{a,b}` matches either alternative. Returns matching file paths (relative to the project root), " +
			"most recently modified first. Version-control directories and what .gitignore files ignore are skipped " +
			"(name an ignored directory in path to search it).",
	}, env.runGlob, func(p globParams) string {
		if p.Path != "" {
			return p.Pattern + " in " + env.display(env.resolve(p.Path))
		}
		return p.Pattern
	})
}

type globHit struct {
	path    string
	modTime time.Time
}

func (e *Env) runGlob(ctx context.Context, p globParams) Result {
	pattern, dir := p.Pattern, p.Path
	base := e.Root
	if dir != "" {
		base = e.resolve(dir)
	}
	prefix, rest := splitLiteralPrefix(filepath.ToSlash(pattern))
	if filepath.IsAbs(prefix) {
		base = filepath.Clean(prefix)
	} else if prefix != "" {
		base = filepath.Join(base, prefix)
	}
	g, err := compileGlob(rest)
	if err != nil {
		return fail("invalid pattern: %v", err)
	}
	info, err := os.Stat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist) && prefix != "":
		return Result{Output: "No files found"}
	case errors.Is(err, fs.ErrNotExist):
		return fail("directory does not exist: %s", e.display(base))
	case err != nil:
		return statFailure(err, e.display(base))
	case !info.IsDir():
		return fail("%s is not a directory", e.display(base))
	}

	hits, err := walkGlob(ctx, base, g, newIgnoreSet(e.Root, base), e.searchFilter(base))
	if err != nil {
		return fail("search interrupted: %v", err)
	}
	if len(hits) == 0 {
		return Result{Output: "No files found"}
	}
	sort.Slice(hits, func(i, j int) bool {
		if !hits[i].modTime.Equal(hits[j].modTime) {
			return hits[i].modTime.After(hits[j].modTime)
		}
		return hits[i].path < hits[j].path
	})
	var b strings.Builder
	shown := 0
	for _, h := range hits {
		line := e.display(h.path) + "\n"
		if shown == globMaxResults || b.Len()+len(line) > OutputCap {
			break
		}
		b.WriteString(line)
		shown++
	}
	if shown < len(hits) {
		fmt.Fprintf(&b, "(Showing the %d most recently modified of %d matches; use a narrower pattern or path to see the rest.)\n", shown, len(hits))
	}
	return Result{Output: b.String()}
}

// walkGlob lists the non-directory entries under base whose path relative
// to base matches g, skipping what ign skips (VCS directories, what
// .gitignore says), the files hidden says a deny rule keeps from Read (nil:
// none) and directories g cannot match under. Unreadable directories are
// skipped, not fatal: a search should report what it can see.
func walkGlob(ctx context.Context, base string, g *globPattern, ign *ignoreSet, hidden func(string, bool) bool) ([]globHit, error) {
	var hits []globHit
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			if d != nil && d.IsDir() && p != base {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != base && (ign.skips(p, true) || !g.mayMatchUnder(rel)) {
				return fs.SkipDir
			}
			ign.enter(p)
			return nil
		}
		if !g.match(rel) || ign.skips(p, false) || hidden != nil && hidden(p, d.Type()&fs.ModeSymlink != 0) {
			return nil
		}
		var mod time.Time
		if info, err := d.Info(); err == nil {
			mod = info.ModTime()
		}
		hits = append(hits, globHit{path: p, modTime: mod})
		return nil
	})
	return hits, err
}

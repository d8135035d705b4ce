package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

const (
	// grepMaxFileBytes: larger files are skipped (logs, dumps, bundles).
	grepMaxFileBytes = 10 << 20
	// grepMaxLineBytes bounds each matching line shown.
	grepMaxLineBytes = 500
	// grepChunk is the read size; matching runs over a whole chunk first
	// so chunks without a match cost one regexp pass, not one per line.
	grepChunk = 256 << 10
)

// grepSkipDirs are never descended into, beside what ignoreSet skips:
// dependency trees are noise in a code search and can be huge.
var grepSkipDirs = map[string]bool{"node_modules": true}

// grepParams are Grep's parameters (see params.go).
type grepParams struct {
	Pattern string `json:"pattern" jsonschema:"Regular expression to search for (Go RE2 syntax)."`
	Path    string `json:"path,omitempty" jsonschema:"File or directory to search (default: the project root)."`
	Glob    string `json:"glob,omitempty" jsonschema:"Only search files whose name matches this glob, e.g. \"*.go\" or \"**/*.{ts,tsx}\"."`
}

func newGrepTool(env *Env) *tool {
	return typed(&tool{
		name: NameGrep,
		description: "Search file contents with a regular expression (Go RE2 syntax, e.g. `func \\w+\\(`, " +
			"`(?i)todo`). Matching is per line. Prints each matching line as path:line:text, paths relative " +
			"to the project root. path may be a directory (searched recursively) or a file; glob filters file " +
			"names (\"*.go\" matches at any depth, a pattern with a slash such as \"src/**/*.ts\" matches the " +
			"path under the searched directory). Version-control directories, node_modules, what .gitignore files ignore, " +
			"binary files and files over 10 MB are skipped (name an ignored directory in path to search it).",
	}, env.runGrep, func(p grepParams) string {
		s := p.Pattern
		if p.Path != "" {
			s += " in " + env.display(env.resolve(p.Path))
		}
		if p.Glob != "" {
			s += " [" + p.Glob + "]"
		}
		return s
	})
}

func (e *Env) runGrep(ctx context.Context, p grepParams) Result {
	pattern, dir, globText := p.Pattern, p.Path, p.Glob
	m, err := newLineMatcher(pattern)
	if err != nil {
		return fail("invalid regular expression: %v", err)
	}
	var filter *fileFilter
	if globText != "" {
		if filter, err = newFileFilter(globText); err != nil {
			return fail("invalid glob: %v", err)
		}
	}
	base := e.Root
	if dir != "" {
		base = e.resolve(dir)
	}
	info, err := os.Stat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return fail("path does not exist: %s", e.display(base))
	}
	if err != nil {
		return statFailure(err, e.display(base))
	}

	s := &grepSearch{env: e, m: m, filter: filter, ignore: newIgnoreSet(e.Root, base), hidden: e.searchFilter(base)}
	switch {
	case info.IsDir():
		err = s.walk(ctx, base)
	case info.Mode().IsRegular():
		if s.hidden != nil && s.hidden(base, true) {
			return fail("%s may not be read (a deny rule)", e.display(base))
		}
		s.accept(newFileScanner(e, m).scan(base))
	default:
		return fail("%s is not a regular file or directory", e.display(base))
	}
	if err != nil {
		return fail("search %s: %v", e.display(base), err)
	}
	if s.full {
		fmt.Fprintf(&s.out, "(Stopped after %d matches: output limit reached. Narrow the pattern, path or glob.)\n", s.matches)
	}
	if s.skippedLarge > 0 {
		fmt.Fprintf(&s.out, "(%d files over %d MB were skipped.)\n", s.skippedLarge, grepMaxFileBytes>>20)
	}
	if s.matches == 0 {
		return Result{Output: strings.TrimSuffix("No matches\n"+s.out.String(), "\n")}
	}
	return Result{Output: s.out.String()}
}

// lineMatcher matches one line at a time. chunk, when set, is the pattern
// in multi-line mode, used to rule out a whole chunk at once: any line the
// pattern matches is matched by chunk within the surrounding text, since
// ^ and \b behave the same at line boundaries. Patterns anchored to the
// whole text (\A, \z) or to a line end ($, which a \r before \n defeats in
// multi-line mode) are matched line by line only.
//
// lits, when set, rules chunks out faster still: see requiredLiterals.
type lineMatcher struct {
	line  *regexp.Regexp
	chunk *regexp.Regexp
	lits  *requiredLiterals
}

func newLineMatcher(pattern string) (*lineMatcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{line: re, lits: newRequiredLiterals(pattern)}
	if !strings.Contains(pattern, `\A`) && !strings.Contains(pattern, `\z`) && !strings.Contains(pattern, "$") {
		if c, err := regexp.Compile("(?m)" + pattern); err == nil {
			m.chunk = c
		}
	}
	return m, nil
}

// fileFilter is Grep's glob: a pattern without a slash matches the file's
// base name at any depth, one with a slash the path under the search root.
type fileFilter struct {
	g        *globPattern
	fullPath bool
}

func newFileFilter(pattern string) (*fileFilter, error) {
	g, err := compileGlob(pattern)
	if err != nil {
		return nil, err
	}
	return &fileFilter{g: g, fullPath: strings.Contains(pattern, "/")}, nil
}

func (f *fileFilter) keep(rel string) bool {
	if f == nil {
		return true
	}
	if f.fullPath {
		return f.g.match(rel)
	}
	return f.g.match(rel[strings.LastIndexByte(rel, '/')+1:])
}

// mayMatchUnder reports whether files under dir can pass the filter, so the
// walk can skip directories a path glob excludes ("src/**/*.ts" and lib/).
func (f *fileFilter) mayMatchUnder(base, dir string) bool {
	if f == nil || !f.fullPath {
		return true
	}
	rel, err := filepath.Rel(base, dir)
	if err != nil {
		return true
	}
	return f.g.mayMatchUnder(filepath.ToSlash(rel))
}

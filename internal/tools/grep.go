package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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

// grepSkipDirs are never descended into: version control internals and
// dependency trees are noise in a code search and can be huge.
var grepSkipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true}

func newGrepTool(env *Env) Tool {
	return &tool{
		name: NameGrep,
		description: "Search file contents with a regular expression (Go RE2 syntax, e.g. `func \\w+\\(`, " +
			"`(?i)todo`). Matching is per line. Prints each matching line as path:line:text, paths relative " +
			"to the project root. path may be a directory (searched recursively) or a file; glob filters file " +
			"names (\"*.go\" matches at any depth, a pattern with a slash such as \"src/**/*.ts\" matches the " +
			"path under the searched directory). .git, node_modules, binary files and files over 10 MB are skipped.",
		schema: `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression to search for (Go RE2 syntax)."},
    "path": {"type": "string", "description": "File or directory to search (default: the project root)."},
    "glob": {"type": "string", "description": "Only search files whose name matches this glob, e.g. \"*.go\" or \"**/*.{ts,tsx}\"."}
  },
  "required": ["pattern"]
}`,
		run: env.runGrep,
		describe: func(a args) string {
			p, _ := a.optionalString("pattern")
			s := p
			if dir, _ := a.optionalString("path"); dir != "" {
				s += " in " + env.display(env.resolve(dir))
			}
			if g, _ := a.optionalString("glob"); g != "" {
				s += " [" + g + "]"
			}
			return s
		},
	}
}

func (e *Env) runGrep(ctx context.Context, a args) Result {
	pattern, err := a.requiredString("pattern")
	if err != nil {
		return invalid(err)
	}
	dir, err := a.optionalString("path")
	if err != nil {
		return invalid(err)
	}
	globText, err := a.optionalString("glob")
	if err != nil {
		return invalid(err)
	}
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

	s := &grepSearch{env: e, m: m, filter: filter, buf: make([]byte, grepChunk)}
	switch {
	case info.IsDir():
		err = s.walk(ctx, base)
	case info.Mode().IsRegular():
		err = s.file(base, info.Size())
	default:
		return fail("%s is not a regular file or directory", e.display(base))
	}
	switch {
	case errors.Is(err, errOutputFull):
		fmt.Fprintf(&s.out, "(Stopped after %d matches: output limit reached. Narrow the pattern, path or glob.)\n", s.matches)
	case err != nil:
		return fail("search %s: %v", e.display(base), err)
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
type lineMatcher struct {
	line  *regexp.Regexp
	chunk *regexp.Regexp
}

func newLineMatcher(pattern string) (*lineMatcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{line: re}
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

// errOutputFull stops a search once the answer is as long as it may be.
var errOutputFull = errors.New("output full")

type grepSearch struct {
	env    *Env
	m      *lineMatcher
	filter *fileFilter
	buf    []byte // reused across files

	out          strings.Builder
	matches      int
	skippedLarge int
}

func (s *grepSearch) walk(ctx context.Context, base string) error {
	return filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			// Unreadable entries are skipped: report what can be seen.
			if d != nil && d.IsDir() && p != base {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != base && grepSkipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(base, p)
		if !s.filter.keep(filepath.ToSlash(rel)) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if err := s.file(p, info.Size()); err != nil && !errors.Is(err, errUnreadable) {
			return err
		}
		return nil
	})
}

// errUnreadable marks a file that vanished or cannot be opened mid-walk.
var errUnreadable = errors.New("unreadable")

// file searches one file in chunks that end at a line end, so memory stays
// at one chunk plus the longest line.
func (s *grepSearch) file(path string, size int64) error {
	if size > grepMaxFileBytes {
		s.skippedLarge++
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", errUnreadable, err)
	}
	defer f.Close()
	shown := s.env.display(path)

	buf := s.buf
	carry := 0 // bytes of an unfinished line kept at the start of buf
	lineNo := 1
	first := true
	for {
		if carry == len(buf) {
			// One line longer than the buffer: grow (bounded by the file size limit).
			buf = append(buf, make([]byte, len(buf))...)
			s.buf = buf
		}
		n, rerr := io.ReadFull(f, buf[carry:])
		data := buf[:carry+n]
		if first {
			first = false
			if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
				return nil
			}
		}
		eof := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !eof {
			return fmt.Errorf("%w: %v", errUnreadable, rerr)
		}
		end := len(data)
		if !eof {
			end = bytes.LastIndexByte(data, '\n') + 1
			if end == 0 {
				carry = len(data)
				continue
			}
		}
		if err := s.chunk(shown, data[:end], &lineNo); err != nil {
			return err
		}
		if eof {
			return nil
		}
		carry = copy(buf, data[end:])
	}
}

// chunk matches the whole lines in data, numbering from *lineNo.
func (s *grepSearch) chunk(shown string, data []byte, lineNo *int) error {
	if s.m.chunk != nil && !s.m.chunk.Match(data) {
		*lineNo += bytes.Count(data, []byte{'\n'})
		return nil
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if s.m.line.Match(line) {
			if err := s.emit(shown, *lineNo, line); err != nil {
				return err
			}
		}
		*lineNo++
	}
	return nil
}

func (s *grepSearch) emit(shown string, lineNo int, line []byte) error {
	text := line
	suffix := ""
	if len(text) > grepMaxLineBytes {
		text = trimPartialRuneEnd(text[:grepMaxLineBytes])
		suffix = " …"
	}
	entry := fmt.Sprintf("%s:%d:%s%s\n", shown, lineNo, text, suffix)
	if s.out.Len()+len(entry) > OutputCap {
		return errOutputFull
	}
	s.out.WriteString(entry)
	s.matches++
	return nil
}

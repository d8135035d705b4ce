package tools

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

const (
	// grepMaxInFlight bounds files handed to workers but not yet merged into
	// the answer, and so the memory held by results waiting their turn.
	grepMaxInFlight = 64
)

// grepSearch merges per-file results, in walk order, into one answer.
type grepSearch struct {
	env    *Env
	m      *lineMatcher
	filter *fileFilter
	ignore *ignoreSet // used by the walking goroutine only
	// hidden are the files a deny rule keeps from Read (nil: none).
	hidden func(p string, link bool) bool

	out          strings.Builder
	matches      int
	skippedLarge int
	full         bool // the output cap was reached
}

// fileResult is one file's rendered matches ("path:line:text\n" each).
type fileResult struct {
	seq   int
	out   []byte
	large bool // skipped: over grepMaxFileBytes
}

// accept appends a file's matches while they fit under the output cap.
func (s *grepSearch) accept(r fileResult) {
	if r.large {
		s.skippedLarge++
	}
	if s.full {
		return
	}
	rest := r.out
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n') + 1
		if s.out.Len()+i > OutputCap {
			s.full = true
			return
		}
		s.out.Write(rest[:i])
		s.matches++
		rest = rest[i:]
	}
}

// walk searches the tree under base with a few workers (file reads are
// mostly system-call time, which overlaps well) and merges their results
// in walk order, so the answer is the same as a sequential search's.
func (s *grepSearch) walk(parent context.Context, base string) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	workers := min(8, 2*runtime.GOMAXPROCS(0))
	type job struct {
		seq  int
		path string
	}
	jobs := make(chan job)
	results := make(chan fileResult, workers)
	tokens := make(chan struct{}, grepMaxInFlight)
	walked := make(chan error, 1)

	go func() {
		defer close(jobs)
		seq := 0
		walked <- filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			if search, err := s.visit(base, p, d, err); !search {
				return err
			}
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case jobs <- job{seq: seq, path: p}:
				seq++
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			sc := newFileScanner(s.env, s.m)
			for j := range jobs {
				r := sc.scan(j.path)
				r.seq = j.seq
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	pending := make(map[int]fileResult)
	next := 0
	for r := range results {
		pending[r.seq] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-tokens
			s.accept(r)
			if s.full {
				cancel()
			}
		}
	}
	err := <-walked
	if perr := parent.Err(); perr != nil {
		return perr
	}
	if s.full {
		return nil // the walk was stopped on purpose
	}
	return err
}

// visit decides what the walk does with one entry: search it (a regular
// file the filters keep), or not, with the error that steers the walk
// (fs.SkipDir for a directory left out). Unreadable entries are skipped:
// a search reports what it can see.
func (s *grepSearch) visit(base, p string, d fs.DirEntry, err error) (search bool, walkErr error) {
	if err != nil {
		if d != nil && d.IsDir() && p != base {
			return false, fs.SkipDir
		}
		return false, nil
	}
	if d.IsDir() {
		if p != base && (grepSkipDirs[d.Name()] || s.ignore.skips(p, true) || !s.filter.mayMatchUnder(base, p)) {
			return false, fs.SkipDir
		}
		s.ignore.enter(p)
		return false, nil
	}
	if !d.Type().IsRegular() || s.ignore.skips(p, false) || s.hidden != nil && s.hidden(p, false) {
		return false, nil
	}
	if s.filter != nil {
		rel, _ := filepath.Rel(base, p)
		if !s.filter.keep(filepath.ToSlash(rel)) {
			return false, nil
		}
	}
	return true, nil
}

// fileScanner searches one file at a time; each worker owns one, with its
// buffers reused across files.
type fileScanner struct {
	env     *Env
	m       *lineMatcher
	buf     []byte
	lowered []byte
}

func newFileScanner(env *Env, m *lineMatcher) *fileScanner {
	return &fileScanner{env: env, m: m, buf: make([]byte, grepChunk)}
}

// scan searches path in chunks that end at a line end, so memory stays at
// one chunk plus the longest line. Files that vanish or cannot be read
// yield no matches. The file is read with plain system calls: os.File would
// first try to register each one with the network poller, which costs two
// more calls per file for nothing on regular files.
func (sc *fileScanner) scan(path string) fileResult {
	var res fileResult
	fd, err := openNoPoll(path)
	if err != nil {
		return res
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return res
	}
	if st.Size > grepMaxFileBytes {
		res.large = true
		return res
	}

	// Read no further than the size seen: no extra read for EOF. A size of
	// 0 is not proof of emptiness (/proc, /sys): such a file is read to its
	// end, within the same bound as any file.
	remaining := st.Size
	if remaining == 0 {
		remaining = grepMaxFileBytes
	}
	buf := sc.buf
	carry := 0 // bytes of an unfinished line kept at the start of buf
	lineNo := 1
	var shown string // the display path, computed at the first match
	emit := func(n int, line []byte) bool {
		if shown == "" {
			shown = sc.env.display(path)
		}
		text, suffix := line, ""
		if len(text) > grepMaxLineBytes {
			text, suffix = trimPartialRuneEnd(text[:grepMaxLineBytes]), " …"
		}
		res.out = fmt.Appendf(res.out, "%s:%d:%s%s\n", shown, n, text, suffix)
		return len(res.out) <= OutputCap // past the cap the merge drops the rest anyway
	}
	for first := true; ; first = false {
		if carry == len(buf) {
			// One line longer than the buffer: grow (bounded by the file size limit).
			buf = append(buf, make([]byte, len(buf))...)
			sc.buf = buf
		}
		want := int(min(int64(len(buf)-carry), remaining))
		n, err := readFull(fd, buf[carry:carry+want])
		if err != nil {
			return fileResult{}
		}
		remaining -= int64(n)
		eof := remaining == 0 || n < want || n == 0
		data := buf[:carry+n]
		if first && bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
			return res
		}
		end := len(data)
		if !eof {
			end = bytes.LastIndexByte(data, '\n') + 1
			if end == 0 {
				carry = len(data)
				continue
			}
		}
		if !sc.chunk(data[:end], &lineNo, emit) || eof {
			return res
		}
		carry = copy(buf, data[end:])
	}
}

// chunk matches the whole lines in data, numbering from *lineNo; false
// means emit asked to stop.
func (sc *fileScanner) chunk(data []byte, lineNo *int, emit func(int, []byte) bool) bool {
	if (sc.m.lits != nil && !sc.m.lits.mayMatch(data, &sc.lowered)) ||
		(sc.m.chunk != nil && !sc.m.chunk.Match(data)) {
		*lineNo += bytes.Count(data, []byte{'\n'})
		return true
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if sc.m.line.Match(line) && !emit(*lineNo, line) {
			return false
		}
		*lineNo++
	}
	return true
}

// openNoPoll opens path read-only. O_NONBLOCK: a path that became a named
// pipe after the walk saw a regular file must not block the open waiting
// for a writer (fstat then rejects it); regular files ignore the flag.
func openNoPoll(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// readFull reads len(p) bytes unless the file ends first.
func readFull(fd int, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k, err := syscall.Read(fd, p[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if k == 0 {
			return n, nil
		}
		n += k
	}
	return n, nil
}

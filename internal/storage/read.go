package storage

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// lineReader yields the lines of a session file with the byte offset at
// which each starts. It has no line-length limit: a line longer than the
// buffer is gathered into line, which is reused between calls.
type lineReader struct {
	r      *bufio.Reader
	ra     io.ReaderAt // the same file, when it is one (see next)
	off    int64       // offset of the next line
	lineNo int         // number of the next line; 0 when reading began mid-file
	line   []byte
}

// bigLine is the length past which a gathered line's buffer is sized
// exactly, and released once the line has been used.
const bigLine = 1 << 20

// Buffer sizes: loads read up to megabytes, in reads of 64 KiB (a larger
// buffer saves a few system calls a megabyte and is that much more heap on
// every turn); the index scans a thousand small files and wants little
// garbage.
const (
	loadBuffer  = 64 << 10
	indexBuffer = 16 << 10
)

// loadBufferFor is the buffer for a load of n bytes: loadBuffer, or less
// when n is less. A reader of one turn's records (memory suggestions, a
// hook's transcript) reads kilobytes.
func loadBufferFor(n int64) int {
	return int(min(max(n, 4<<10), loadBuffer))
}

func newLineReader(r io.Reader, start int64, fromStart bool, bufSize int) *lineReader {
	lr := &lineReader{r: bufio.NewReaderSize(r, bufSize), off: start}
	lr.ra, _ = r.(io.ReaderAt)
	if fromStart {
		lr.lineNo = 1
	}
	return lr
}

// next returns the next line without its '\n'. complete is false for a
// last line that has no '\n' (a torn write, or a writer still at work).
// The slice is valid until the following call. At the end it returns io.EOF.
func (lr *lineReader) next() (line []byte, off int64, complete bool, err error) {
	off = lr.off
	if cap(lr.line) > bigLine {
		lr.line = nil // do not pin the memory of one huge line
	}
	lr.line = lr.line[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(lr.line) == 0 && lr.ra != nil {
				// A long line: find its end first and gather it into a
				// buffer of its exact size, rather than one that grows
				// by doubling to up to twice the line.
				if end, err := nextNewline(lr.ra, off); err == nil && end >= 0 && end-off+1 > int64(cap(lr.line)) {
					lr.line = make([]byte, 0, end-off+1)
				}
			}
			lr.line = append(lr.line, chunk...)
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, off, false, err
		}
		if len(lr.line) > 0 {
			lr.line = append(lr.line, chunk...)
			line = lr.line
		} else {
			line = chunk
		}
		if len(line) == 0 {
			return nil, off, false, io.EOF
		}
		lr.off += int64(len(line))
		if lr.lineNo > 0 {
			lr.lineNo++
		}
		if line[len(line)-1] == '\n' {
			return line[:len(line)-1], off, true, nil
		}
		return line, off, false, nil
	}
}

// where names a line for a warning: its number when reading started at the
// top of the file, else its byte offset.
func (lr *lineReader) where(path string, off int64) string {
	if lr.lineNo > 0 {
		return fmt.Sprintf("%s: line %d", path, lr.lineNo-1)
	}
	return fmt.Sprintf("%s: byte offset %d", path, off)
}

// decodeRecord parses one line. Invalid UTF-8 inside strings is replaced
// with U+FFFD by encoding/json, so such a line still loads.
func decodeRecord(line []byte) (*Record, error) {
	r := new(Record)
	if err := DecodeLine(line, r); err != nil {
		return nil, err
	}
	return r, nil
}

func isBlank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// skipWarning words the warning for a line that did not parse.
func skipWarning(where string, complete bool, size int, err error) string {
	if !complete {
		return fmt.Sprintf("%s: skipped incomplete last line (%d bytes, torn write?)", where, size)
	}
	return fmt.Sprintf("%s: skipped unparseable line (%d bytes): %v", where, size, err)
}

// readRecords decodes the lines of f from start to EOF, calling fn for
// every record and warn for every line skipped, except the lines the
// repairs rp (nil for none) pass over. size is f's size as the caller
// found it: it only sizes the reads (a writer may append more).
func readRecords(ctx context.Context, f *os.File, path string, start, size int64, rp *repairs, fn func(off int64, r *Record) error, warn func(string)) error {
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	lr := newLineReader(f, start, start == 0, loadBufferFor(size-start))
	for n := 0; ; n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, off, complete, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if isBlank(line) || rp.passes(off, len(line)) {
			continue
		}
		rec, err := decodeRecord(line)
		if err != nil {
			if warn != nil {
				warn(skipWarning(lr.where(path, off), complete, len(line), err))
			}
			continue
		}
		if err := fn(off, rec); err != nil {
			return err
		}
	}
}

// ReadAll streams every parseable record of a session file (for `sessions
// show --full` and export), calling warn (which may be nil) for each
// skipped line. It takes no lock: a writer may be appending, in which case
// the last line may be seen incomplete and is reported as such.
func ReadAll(ctx context.Context, path string, fn func(off int64, r *Record) error, warn func(string)) error {
	return ReadFrom(ctx, path, 0, fn, warn)
}

// ReadFrom is ReadAll from start, the offset of a record (one Append
// returned): for a reader that wants only what one process appended, such
// as the memory suggestions of a session resumed from a large file.
func ReadFrom(ctx context.Context, path string, start int64, fn func(off int64, r *Record) error, warn func(string)) error {
	f, err := OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return notFound(path, err, "read session")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read session %s: %w", path, err)
	}
	rp, err := readRepairs(ctx, f, start, fi.Size())
	if err != nil {
		return fmt.Errorf("read session %s: %w", path, err)
	}
	return readRecords(ctx, f, path, start, fi.Size(), rp, fn, warn)
}

// notFound words an open of a session file that failed: a missing file is
// the session's ErrNotFound (named by its id); anything else is wrapped
// with what was being done.
func notFound(path string, err error, doing string) error {
	if errors.Is(err, os.ErrNotExist) {
		return &notFoundError{id: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	}
	return fmt.Errorf("%s: %w", doing, err)
}

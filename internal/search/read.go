package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// fileReader reads pieces of session files into a builder, whole lines
// only: a last line without its '\n' (a writer at work, or a torn write)
// is left for a later update. Lines that do not parse are skipped.
type fileReader struct {
	buf []byte
	sc  scanner
}

// sink is where a fileReader puts what it reads.
type sink interface {
	add(d doc, text []byte) error
	consumed(n int64) // bytes of the file read, for progress
}

// maxLine is the longest line indexed: a document records its length in
// 32 bits.
const maxLine = 1<<32 - 1

func newFileReader() *fileReader {
	return &fileReader{buf: make([]byte, 1<<20)}
}

// read indexes the lines of p: those that start in [p.from, p.to), the
// last of them read to its end even past p.to (a piece after the first
// of its file starts at the first line that starts in it). p.end is set
// after the last whole line read.
func (r *fileReader) read(p *piece, to sink) error {
	j := p.w
	f, err := storage.OpenRegular(j.path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // removed since the scan
		}
		return fmt.Errorf("index %s: %w", j.path, err)
	}
	defer f.Close()
	off := p.from // file offset of buf[0]
	if off > j.start {
		// The first line that starts in the piece: after a '\n' at or
		// after from-1.
		nl, err := lineLength(f, r.buf, off-1, j.size)
		if err != nil || nl < 0 {
			return err
		}
		off += nl
	}
	have := 0
	for off < p.to && off+int64(have) < j.size {
		if have == len(r.buf) {
			// A line longer than the buffer: read it from a mapping
			// rather than grow the buffer to hold it.
			n, err := r.readLong(f, j, to, off)
			if err != nil || n == 0 {
				return err
			}
			to.consumed(n)
			off += n
			p.end = off
			have = 0
			continue
		}
		want := min(int64(len(r.buf)-have), j.size-off-int64(have))
		n, err := f.ReadAt(r.buf[have:have+int(want)], off+int64(have))
		have += n
		if n == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				break // the file shrank under us; the next scan sees it
			}
			return fmt.Errorf("index %s: %w", j.path, err)
		}
		// Index every whole line in buf[:have] that starts in the piece.
		data := r.buf[:have]
		pos := 0
		for off+int64(pos) < p.to {
			nl := bytes.IndexByte(data[pos:], '\n')
			if nl < 0 {
				break
			}
			if err := r.add(to, j.file, off+int64(pos), data[pos:pos+nl]); err != nil {
				return err
			}
			pos += nl + 1
		}
		to.consumed(int64(pos))
		off += int64(pos)
		if pos > 0 {
			p.end = off
		}
		have = copy(r.buf, data[pos:])
	}
	return nil
}

// readLong indexes the line that starts at off and is longer than the
// buffer: it finds the line's end a buffer at a time, then reads the line
// into one buffer of its size and decodes it over itself, so a 100 MB
// line costs about 100 MB. It returns the bytes consumed, 0 when the line
// has no '\n' yet (it is left for a later update).
func (r *fileReader) readLong(f *os.File, j *work, to sink, off int64) (int64, error) {
	n, err := lineLength(f, r.buf, off, j.size)
	if err != nil || n < 0 {
		return 0, err
	}
	if n > maxLine {
		return n + 1, nil // a document records its length in 32 bits
	}
	line, put, err := readLine(f, off, n)
	if err != nil {
		return 0, nil // the file shrank under us; the next scan sees it
	}
	defer put()
	text, ok, err := recordText(&r.sc, line, true)
	if errors.Is(err, errReread) {
		// Spoilt by the scanner: encoding/json reads a fresh copy.
		r.sc.release()
		fresh := make([]byte, n)
		if _, err := f.ReadAt(fresh, off); err != nil {
			return 0, nil
		}
		text, ok, err = recordText(&r.sc, fresh, false)
	}
	if err == nil && ok {
		err = to.add(doc{file: uint32(j.file), off: uint64(off), length: uint32(n)}, text)
	} else {
		err = nil // a line that does not parse is skipped
	}
	r.sc.release()
	return n + 1, err
}

// lineLength returns the length of the line that starts at off, without
// its '\n', reading the file through buf; -1 when no '\n' comes before
// size.
func lineLength(f *os.File, buf []byte, off, size int64) (int64, error) {
	for pos := off; pos < size; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), size-pos)], pos)
		if i := bytes.IndexByte(buf[:k], '\n'); i >= 0 {
			return pos + int64(i) - off, nil
		}
		if k == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				return -1, nil
			}
			return 0, fmt.Errorf("read %s: %w", f.Name(), err)
		}
		pos += int64(k)
	}
	return -1, nil
}

// readLine reads n bytes of f from off into a buffer of bigBuf; put
// gives it back.
func readLine(f *os.File, off, n int64) (line []byte, put func(), err error) {
	buf := bigBuf(int(n))[:n]
	put = func() { putBig(buf) }
	if _, err := f.ReadAt(buf, off); err != nil {
		put()
		return nil, nil, err
	}
	return buf, put, nil
}

func (r *fileReader) add(to sink, file int, off int64, line []byte) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	text, ok, err := recordText(&r.sc, line, false)
	if err != nil || !ok {
		return nil // a line that does not parse, or is not searched
	}
	return to.add(doc{file: uint32(file), off: uint64(off), length: uint32(len(line))}, text)
}

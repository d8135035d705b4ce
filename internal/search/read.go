package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// fileReader reads the new bytes of session files into a builder, whole
// lines only: a last line without its '\n' (a writer at work, or a torn
// write) is left for a later update. Lines that do not parse are skipped.
type fileReader struct {
	buf []byte
	sc  scanner
}

// maxLine is the longest line indexed: a document records its length in
// 32 bits.
const maxLine = 1<<32 - 1

func newFileReader() *fileReader {
	return &fileReader{buf: make([]byte, 1<<20)}
}

func (r *fileReader) read(j *work, b *builder) error {
	j.end = j.start
	f, err := storage.OpenRegular(j.path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // removed since the scan
		}
		return fmt.Errorf("index %s: %w", j.path, err)
	}
	defer f.Close()
	off := j.start // file offset of buf[0]
	have := 0
	for off+int64(have) < j.size {
		if have == len(r.buf) {
			// A line longer than the buffer: read it from a mapping
			// rather than grow the buffer to hold it.
			n, err := r.readLong(f, j, b, off)
			if err != nil || n == 0 {
				return err
			}
			off += n
			j.end = off
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
		// Index every whole line in buf[:have].
		data := r.buf[:have]
		pos := 0
		for {
			nl := bytes.IndexByte(data[pos:], '\n')
			if nl < 0 {
				break
			}
			line := data[pos : pos+nl]
			r.add(b, j.file, off+int64(pos), line)
			pos += nl + 1
		}
		off += int64(pos)
		j.end = off
		have = copy(r.buf, data[pos:])
	}
	return nil
}

// readLong indexes the line that starts at off and is longer than the
// buffer, reading it through a mapping of the file: the pages are the
// kernel's cache, so a 100 MB line costs its decoded text on the heap and
// not a copy of its JSON besides. It returns the bytes consumed, 0 when
// the line has no '\n' yet (it is left for a later update).
func (r *fileReader) readLong(f *os.File, j *work, b *builder, off int64) (int64, error) {
	data, unmap, err := mapRange(f, off, j.size-off)
	if err != nil {
		return 0, fmt.Errorf("index %s: %w", j.path, err)
	}
	defer unmap()
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return 0, nil
	}
	r.add(b, j.file, off, data[:nl])
	return int64(nl) + 1, nil
}

func (r *fileReader) add(b *builder, file int, off int64, line []byte) {
	if len(bytes.TrimSpace(line)) == 0 || int64(len(line)) > maxLine {
		return
	}
	text, ok, err := recordText(&r.sc, line)
	if err != nil || !ok {
		return
	}
	b.add(doc{file: uint32(file), off: uint64(off), length: uint32(len(line))}, text)
}

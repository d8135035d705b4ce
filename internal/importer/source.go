package importer

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// A small source file (most sessions are tens of kilobytes) is read whole
// once, into a buffer the next file reuses: its last '\n', its head and
// its passes are found in that memory, where each used to read the file
// again into a buffer of its own. Reading the file three times cost three
// system calls and the buffers were most of what an import of many small
// files allocated (and the garbage collector then cleared).
var smallSource int64 = 1 << 20

// memSource is a source file's first bytes read into memory.
type memSource struct {
	b []byte
}

func (m *memSource) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// lines is readLines over the n bytes at start, the lines handed to fn
// where they lie in memory.
func (m *memSource) lines(start, n int64, fn func(lineNo int, off int64, line []byte) error) (int64, error) {
	used, _, err := eachLine(m.b[start:start+n], start, 0, fn)
	return start + int64(used), err
}

// eachLine hands fn the lines of data that end in '\n' and hold more than
// blanks, data being at offset off of the source and its first line the
// one after line lineNo. It returns how many bytes of data it went through
// (up to the failing line's start when fn fails) and the last line's
// number.
func eachLine(data []byte, off int64, lineNo int, fn func(lineNo int, off int64, line []byte) error) (int, int, error) {
	pos := 0
	for {
		nl := bytes.IndexByte(data[pos:], '\n')
		if nl < 0 {
			return pos, lineNo, nil
		}
		lineNo++
		if line := data[pos : pos+nl]; len(bytes.TrimSpace(line)) > 0 {
			if err := fn(lineNo, off+int64(pos), line); err != nil {
				return pos, lineNo, err
			}
		}
		pos += nl + 1
	}
}

var sourceBuffers sync.Pool // of *[]byte, each at most smallSource

// readSmall reads the size bytes of f when they are few: fewer than a
// huge line has, so that none of its lines needs to be streamed. It
// returns nil for a larger file, and for one that no longer has size
// bytes (it changed since it was listed: it is read as a file, as a
// large one). done gives the buffer back; nothing may use the source
// after it.
func readSmall(f *os.File, size int64) (src *memSource, done func()) {
	if size > smallSource || size > int64(hugeLine) {
		return nil, nil
	}
	bp, _ := sourceBuffers.Get().(*[]byte)
	if bp == nil || int64(cap(*bp)) < size {
		b := make([]byte, 0, max(size, 64<<10))
		bp = &b
	}
	b := (*bp)[:size]
	done = func() { sourceBuffers.Put(bp) }
	if n, err := f.ReadAt(b, 0); int64(n) != size || err != nil && err != io.EOF {
		done()
		return nil, nil
	}
	return &memSource{b: b}, done
}

package storage

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// viewBytes is how much of each end of a session file a view reads at
// once: a small file (most sessions) is read whole in one read, a large
// one in two, and the head's first user message and the last line's
// first prefixBytes are nearly always inside them.
const viewBytes = 32 << 10

// view is what a listing sees of a session file: its first and last
// viewBytes, each read once, and any other range read when asked for
// (a line longer than the windows). A listing's cost per file is then one
// or two reads whatever the file's size, and none of it is allocated
// anew per line or per file: views are pooled.
type view struct {
	f       io.ReaderAt
	size    int64
	head    []byte // bytes [0, len(head))
	tailOff int64
	tail    []byte // bytes [tailOff, size)
	buf     []byte // backs head and tail
	scratch []byte // a read outside both
}

var views = sync.Pool{New: func() any { return &view{buf: make([]byte, 2*viewBytes)} }}

// openView reads the ends of the first size bytes of f. The view must
// be given back with release; what it returned is invalid after that.
func openView(f io.ReaderAt, size int64) (*view, error) {
	v := views.Get().(*view)
	v.f, v.size = f, size
	if size <= 2*viewBytes {
		b := v.buf[:size]
		if _, err := f.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
			v.release()
			return nil, err
		}
		v.head, v.tailOff, v.tail = b, 0, b
		return v, nil
	}
	head, tail := v.buf[:viewBytes], v.buf[viewBytes:2*viewBytes]
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		v.release()
		return nil, err
	}
	v.tailOff = size - viewBytes
	if _, err := f.ReadAt(tail, v.tailOff); err != nil && !errors.Is(err, io.EOF) {
		v.release()
		return nil, err
	}
	v.head, v.tail = head, tail
	return v, nil
}

func (v *view) release() {
	v.f, v.head, v.tail = nil, nil, nil
	if cap(v.scratch) > scanChunk {
		v.scratch = nil
	}
	views.Put(v)
}

// at returns the bytes [off, off+n) of the file (fewer at its end), from
// the windows when they hold them. The slice is valid until the view's
// next read.
func (v *view) at(off int64, n int) ([]byte, error) {
	n = int(min(int64(n), max(0, v.size-off)))
	switch {
	case off+int64(n) <= int64(len(v.head)):
		return v.head[off : off+int64(n)], nil
	case off >= v.tailOff:
		return v.tail[off-v.tailOff : off-v.tailOff+int64(n)], nil
	}
	if cap(v.scratch) < n {
		v.scratch = make([]byte, n)
	}
	b := v.scratch[:n]
	if _, err := v.f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// lastIndexNewline returns the offset of the last '\n' before end, -1 if
// there is none.
func (v *view) lastIndexNewline(end int64) (int64, error) {
	for end > 0 {
		from := max(0, end-scanChunk)
		if end > v.tailOff && end-v.tailOff <= int64(len(v.tail)) {
			from = v.tailOff // the tail window, without a read
		}
		b, err := v.at(from, int(end-from))
		if err != nil {
			return 0, err
		}
		if j := bytes.LastIndexByte(b, '\n'); j >= 0 {
			return from + int64(j), nil
		}
		end = from
	}
	return -1, nil
}

// indexNewline returns the offset of the first '\n' at or after off, -1
// if there is none.
func (v *view) indexNewline(off int64) (int64, error) {
	for off < v.size {
		n := scanChunk
		if off < int64(len(v.head)) {
			n = len(v.head) - int(off) // the head window, without a read
		}
		b, err := v.at(off, n)
		if err != nil {
			return 0, err
		}
		if j := bytes.IndexByte(b, '\n'); j >= 0 {
			return off + int64(j), nil
		}
		if len(b) == 0 {
			break
		}
		off += int64(len(b))
	}
	return -1, nil
}

// linePrefix returns at most prefixBytes of the line [start, end); whole
// reports whether that is the entire line. Valid until the next read.
func (v *view) linePrefix(start, end int64) (prefix []byte, whole bool, err error) {
	n := min(end-start, prefixBytes)
	b, err := v.at(start, int(n))
	return b, int64(len(b)) == end-start, err
}

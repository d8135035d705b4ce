package tools

import (
	"bytes"
	"sync"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// BackgroundOutputCap is how many bytes of a background command's output
// are kept: the last ones. A server left running for hours prints without
// end; what it printed long ago and nobody read is dropped, and the next
// read says how much with the omission marker.
const BackgroundOutputCap = 1 << 20

// outputRing is an io.Writer that keeps the last bytes written, up to its
// size, and a read position: unread returns what was written since the
// last call. It is safe for concurrent use (the command writes while the
// model reads).
type outputRing struct {
	mu   sync.Mutex
	data []byte // allocated as it fills, never beyond size
	size int

	total   int64 // bytes written
	lines   int64 // newlines written
	dropped int64 // newlines among the bytes overwritten (written before total-size)

	readTotal, readLines int64 // total and lines at the last read
}

func newOutputRing(size int) *outputRing { return &outputRing{size: size} }

// Write never fails: a chatty command is never stopped by the bound.
func (r *outputRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	r.lines += int64(bytes.Count(p, []byte{'\n'}))
	if len(r.data) < r.size {
		take := min(r.size-len(r.data), len(p))
		r.data = append(r.data, p[:take]...)
		r.total += int64(take)
		p = p[take:]
	}
	for len(p) > 0 {
		at := int(r.total % int64(r.size))
		c := min(r.size-at, len(p))
		r.dropped += int64(bytes.Count(r.data[at:at+c], []byte{'\n'}))
		copy(r.data[at:], p[:c])
		r.total += int64(c)
		p = p[c:]
	}
	return n, nil
}

// Len is the number of bytes written so far.
func (r *outputRing) Len() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// unread returns what was written since the last call, and moves the read
// position to the end. When part of it was dropped to the bound, the text
// starts with the omission marker saying how much.
func (r *outputRing) unread() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	from := max(r.readTotal, r.total-int64(len(r.data)))
	var out bytes.Buffer
	if skipped := from - r.readTotal; skipped > 0 {
		out.WriteString(chat.OmissionMarker(int(skipped), int(r.dropped-r.readLines)))
		out.WriteByte('\n')
	}
	out.Write(trimPartialRuneStart(r.since(from)))
	r.readTotal, r.readLines = r.total, r.lines
	return out.String()
}

// since returns the bytes kept from the absolute position from on.
func (r *outputRing) since(from int64) []byte {
	n := int(r.total - from)
	if n <= 0 {
		return nil
	}
	if len(r.data) < r.size { // never wrapped
		return bytes.Clone(r.data[len(r.data)-n:])
	}
	start := int(from % int64(r.size))
	out := make([]byte, 0, n)
	out = append(out, r.data[start:min(r.size, start+n)]...)
	return append(out, r.data[:n-len(out)]...)
}

// tail returns the last limit bytes kept (whole runes), without moving
// the read position.
func (r *outputRing) tail(limit int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	from := max(r.total-int64(len(r.data)), r.total-int64(limit))
	return string(trimPartialRuneStart(r.since(from)))
}

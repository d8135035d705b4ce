package tools

import (
	"bytes"

	"github.com/clawdcode/clawdcode/internal/chat"
	"unicode/utf8"
)

// OutputCap is how many bytes of output Bash, Glob and Grep answer with at
// most (plus the omission marker). About 8k tokens: enough for a failing
// test run, small enough that a runaway command cannot flood the context.
const OutputCap = 30000

// CapText returns s unchanged when it fits in limit bytes; otherwise its
// head and tail around a "[... N bytes (M lines) omitted ...]" marker.
// A limit <= 0 means no cap.
func CapText(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	b := NewCappedBuffer(limit)
	b.Write([]byte(s))
	return b.String()
}

// CappedBuffer is an io.Writer that keeps the first and the last bytes of
// everything written, in memory bounded by the limit whatever the volume:
// the head fills once, the tail is a ring. The ends of a command's output
// are where the information is (what started, how it failed).
type CappedBuffer struct {
	headMax, tailMax int

	head      []byte
	ring      []byte // len == tailMax once allocated
	ringStart int    // index of the oldest byte when the ring is full
	ringLen   int

	total int64 // bytes written
	lines int64 // newlines written
}

// NewCappedBuffer returns a buffer that keeps at most limit bytes.
func NewCappedBuffer(limit int) *CappedBuffer {
	headMax := limit / 2
	return &CappedBuffer{headMax: headMax, tailMax: limit - headMax}
}

// Write never fails, so a chatty command is never stopped by a full buffer.
func (b *CappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	b.lines += int64(bytes.Count(p, []byte{'\n'}))
	if room := b.headMax - len(b.head); room > 0 {
		take := min(room, len(p))
		b.head = append(b.head, p[:take]...)
		p = p[take:]
	}
	if len(p) == 0 || b.tailMax == 0 {
		return n, nil
	}
	if b.ring == nil {
		b.ring = make([]byte, b.tailMax)
	}
	if len(p) >= b.tailMax {
		copy(b.ring, p[len(p)-b.tailMax:])
		b.ringStart, b.ringLen = 0, b.tailMax
		return n, nil
	}
	for len(p) > 0 {
		w := (b.ringStart + b.ringLen) % b.tailMax
		c := copy(b.ring[w:], p)
		p = p[c:]
		b.ringLen += c
		// Past capacity the oldest bytes were overwritten: move the start on.
		if over := b.ringLen - b.tailMax; over > 0 {
			b.ringLen = b.tailMax
			b.ringStart = (b.ringStart + over) % b.tailMax
		}
	}
	return n, nil
}

func (b *CappedBuffer) tail() []byte {
	out := make([]byte, 0, b.ringLen)
	if b.ringLen == 0 {
		return out
	}
	first := b.ring[b.ringStart:min(b.tailMax, b.ringStart+b.ringLen)]
	out = append(out, first...)
	return append(out, b.ring[:b.ringLen-len(first)]...)
}

// Len is the number of bytes written so far.
func (b *CappedBuffer) Len() int64 { return b.total }

// String renders what was kept. When bytes were dropped, the head is cut
// back to a line end and the tail forward to a line start when one is near,
// and never inside a UTF-8 sequence.
func (b *CappedBuffer) String() string {
	tail := b.tail()
	if b.total == int64(len(b.head)+len(tail)) {
		return string(b.head) + string(tail)
	}
	head := b.head
	if i := bytes.LastIndexByte(head, '\n'); i >= len(head)/2 {
		head = head[:i+1]
	}
	head = trimPartialRuneEnd(head)
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		tail = tail[i+1:]
	}
	tail = trimPartialRuneStart(tail)

	omitted := b.total - int64(len(head)+len(tail))
	omittedLines := b.lines - int64(bytes.Count(head, []byte{'\n'})+bytes.Count(tail, []byte{'\n'}))
	var out bytes.Buffer
	out.Grow(len(head) + len(tail) + 64)
	out.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		out.WriteByte('\n')
	}
	out.WriteString(chat.OmissionMarker(int(omitted), int(omittedLines)))
	out.WriteByte('\n')
	out.Write(tail)
	return out.String()
}

// trimPartialRuneEnd drops an incomplete UTF-8 sequence at the end of p.
func trimPartialRuneEnd(p []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			return p
		}
	}
	return p
}

// trimPartialRuneStart drops continuation bytes at the start of p.
func trimPartialRuneStart(p []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(p); i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p
}

package storage

import (
	"bytes"
	"errors"
	"fmt"
)

// A large text is a string value of a record too large to hold in memory
// twice: an imported tool output of 100 MB. The record holds a reference
// in its place — LargeRef(key), as a string field's whole value or within
// it — and Record.Large gives the text behind each key. AppendBatch
// writes the text's JSON encoding where its reference is, straight into
// the batch's one write buffer, sized once: the text is never a Go string,
// and the line is not built twice. The line still passes whole through the
// store's Redactor before the write (see SetRedactor).
//
// The index entry learns from the record as it is (Record.Large is not
// read for it): a message's content, which gives the title, should not be
// a large text.

// LargeText is one large text.
type LargeText interface {
	// EncodedLen is the length of the text's JSON encoding inside a
	// string (without the quotes), as AppendEncoded writes it.
	EncodedLen() (int, error)
	// AppendEncoded appends that encoding to dst. Writing a length other
	// than EncodedLen's fails the append (the text changed).
	AppendEncoded(dst []byte) ([]byte, error)
}

// LargeTexts finds the large text behind a reference's key.
type LargeTexts interface {
	LargeText(key string) (LargeText, bool)
}

// largeTag names a reference. A reference is NUL, the tag, the key, NUL:
// encoding/json writes it as largeMark, key, `\u0000`. A key is made of
// letters, digits and '-', which it writes as they are; whoever makes keys
// makes them unguessable, so no source text can pose as a reference.
const largeTag = "clawdcode-large:"

var (
	largeMark = []byte(`\u0000` + largeTag)
	largeEnd  = []byte(`\u0000`)
)

// LargeRef is the reference to the large text of key.
func LargeRef(key string) string { return "\x00" + largeTag + key + "\x00" }

// largeSpan is a reference in the batch's encoded lines: the bytes
// [start, end) that the text's n encoded bytes replace.
type largeSpan struct {
	start, end int
	text       LargeText
	n          int
}

// findLarge returns the references to texts of lt in line, which starts
// at start in the batch, and how many bytes their texts add.
func findLarge(line []byte, start int, lt LargeTexts) ([]largeSpan, int, error) {
	var spans []largeSpan
	grow := 0
	for i := 0; ; {
		j := bytes.Index(line[i:], largeMark)
		if j < 0 {
			return spans, grow, nil
		}
		from := i + j
		key := from + len(largeMark)
		if escapedAt(line, from) {
			i = key // the text of a reference, quoted in a string
			continue
		}
		k := bytes.Index(line[key:], largeEnd)
		if k < 0 {
			return spans, grow, nil
		}
		to := key + k + len(largeEnd)
		t, ok := lt.LargeText(string(line[key : key+k]))
		if !ok {
			i = key // plain text that looks like a reference
			continue
		}
		n, err := t.EncodedLen()
		if err != nil {
			return nil, 0, fmt.Errorf("large text: %w", err)
		}
		spans = append(spans, largeSpan{start: start + from, end: start + to, text: t, n: n})
		grow += n - (to - from)
		i = to
	}
}

// escapedAt reports whether the backslash at i in a JSON text is itself
// escaped: preceded by an odd number of backslashes.
func escapedAt(b []byte, i int) bool {
	n := 0
	for i > 0 && b[i-1] == '\\' {
		n, i = n+1, i-1
	}
	return n%2 == 1
}

var errLargeChanged = errors.New("large text changed while it was written")

// expandLarge builds the batch's write: buf with every span replaced by
// its text, in one buffer of the final size.
func expandLarge(buf []byte, spans []largeSpan, grow int) ([]byte, error) {
	out := make([]byte, 0, len(buf)+grow)
	prev := 0
	for _, sp := range spans {
		out = append(out, buf[prev:sp.start]...)
		before := len(out)
		var err error
		if out, err = sp.text.AppendEncoded(out); err != nil {
			return nil, fmt.Errorf("large text: %w", err)
		}
		if len(out)-before != sp.n {
			return nil, errLargeChanged
		}
		prev = sp.end
	}
	out = append(out, buf[prev:]...)
	if len(out) != len(buf)+grow {
		return nil, errLargeChanged
	}
	return out, nil
}

// lineOffsets sets offs to the offsets of the lines of out (one record
// each, after the '\n' that closes a torn line when needNL), from base.
func lineOffsets(out []byte, needNL bool, base int64, offs []int64) {
	pos := 0
	if needNL {
		pos = 1
	}
	for i := range offs {
		offs[i] = base + int64(pos)
		pos += bytes.IndexByte(out[pos:], '\n') + 1
	}
}

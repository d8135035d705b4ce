package search

import (
	"bytes"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// A small scanner for the one shape search reads: a JSON object whose
// "type" names the record and whose text sits in message.content,
// tool.name, tool.input (string values), toolResult.output and
// toolResult.error. It decodes the strings it needs straight into the
// text buffer and skips everything else without allocating; it is several
// times faster than encoding/json with a struct, which first validates the
// whole line and then decodes it by reflection. Any line it cannot read
// is handed to encoding/json, which has the last word.

type scanner struct {
	b       []byte
	i       int
	dst     []byte // the decoded fields
	out     []byte // the record's text, when assembled from several fields
	inPlace bool   // dst is the line itself (see scanRecord)
	// rawSpans makes field note where a value lies in the line instead of
	// decoding it (RecordTextPage).
	rawSpans bool
}

// bigLine is the length past which the scanner takes a buffer the size
// of the line at once (a string decodes to no more bytes than it takes in
// JSON) instead of growing one step by step, which would hold two large
// copies while it copies. Such a buffer is kept as the spare when it is
// given back, so that indexing a huge record and then showing it as a hit
// reuse one buffer instead of leaving the first to the garbage collector
// (a sync.Pool loses it at every collection); dropSpare lets it go at the
// end of a search.
const bigLine = 1 << 20

var spare struct {
	sync.Mutex
	buf []byte
}

// bigBuf returns an empty buffer of at least n bytes.
func bigBuf(n int) []byte {
	spare.Lock()
	b := spare.buf
	spare.buf = nil
	spare.Unlock()
	if cap(b) >= n {
		return b[:0]
	}
	// Sizes are rounded up so that a line and the same line with its
	// '\n' (the indexer's and the hit reader's) share a buffer.
	return make([]byte, 0, (n+bigLine)&^(bigLine-1))
}

// putBig gives a buffer from bigBuf back; the larger spare is kept.
func putBig(b []byte) {
	spare.Lock()
	if cap(b) > cap(spare.buf) {
		spare.buf = b[:0]
	}
	spare.Unlock()
}

func dropSpare() {
	spare.Lock()
	spare.buf = nil
	spare.Unlock()
}

// release gives the scanner's large buffers back (putBig) once the
// text it returned is no longer used.
func (s *scanner) release() {
	if s.inPlace {
		s.dst, s.inPlace = nil, false // the caller's line, not ours
	}
	for _, b := range []*[]byte{&s.dst, &s.out} {
		if cap(*b) > bigLine {
			putBig(*b)
			*b = nil
		}
	}
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) expect(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// key reads an object key without unescaping. A key with an escape may
// spell one of the keys searched for (\u0074ype is "type"), so such a line
// is left to encoding/json, as is one that encoding/json would match
// without regard to case (foldsToField).
func (s *scanner) key() ([]byte, bool) {
	s.ws()
	start := s.i + 1
	if !s.str(false) {
		return nil, false
	}
	k := s.b[start : s.i-1]
	if !s.expect(':') || foldsToField(k) || bytes.IndexByte(k, '\\') >= 0 {
		return nil, false
	}
	return k, true
}

// str decodes a string value, appending it to s.dst when keep.
func (s *scanner) str(keep bool) bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	j := s.i + 1
	for j < len(s.b) {
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return true
		case c < 0x20:
			return false // JSON has no raw control characters in strings
		case c == '\\':
			var ok bool
			if j, ok = s.escape(j, keep); !ok {
				return false
			}
		default:
			if keep {
				// Copy the run up to the next quote or backslash at once.
				k := j
				for k < len(s.b) && s.b[k] != '"' && s.b[k] != '\\' && s.b[k] >= 0x20 {
					k++
				}
				s.dst = append(s.dst, s.b[j:k]...)
				j = k
				continue
			}
			j++
		}
	}
	return false
}

// escape decodes the escape sequence at s.b[j] (a backslash), appending
// what it stands for to s.dst when keep, and returns the index after it.
func (s *scanner) escape(j int, keep bool) (int, bool) {
	if j+1 >= len(s.b) {
		return j, false
	}
	e := s.b[j+1]
	j += 2
	switch e {
	case 'n', 'r', 't', 'b', 'f', '"', '\\', '/':
		if keep {
			s.dst = append(s.dst, unescaped[e])
		}
		return j, true
	case 'u':
		r, ok := hex4(s.b, j)
		if !ok {
			return j, false
		}
		j += 4
		if !keep {
			return j, true
		}
		if utf16.IsSurrogate(r) {
			if r2, ok := hex4(s.b, j+2); ok && j+1 < len(s.b) && s.b[j] == '\\' && s.b[j+1] == 'u' {
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					j += 6
				}
			}
		}
		s.dst = utf8.AppendRune(s.dst, r)
		return j, true
	}
	return j, false
}

// unescaped is the byte each one-letter JSON escape stands for.
var unescaped = [256]byte{'n': '\n', 'r': '\r', 't': '\t', 'b': '\b', 'f': '\f', '"': '"', '\\': '\\', '/': '/'}

// textKeys are the keys scanRecord reads.
var textKeys = [...]string{"type", "message", "content", "tool", "name", "input", "toolResult", "output", "error"}

// foldsToField reports a key that encoding/json, which matches keys
// without regard to case, would take for one of textKeys though it is not
// spelt the same.
func foldsToField(k []byte) bool {
	for _, f := range textKeys {
		if len(k) == len(f) && string(k) != f && bytes.EqualFold(k, []byte(f)) {
			return true
		}
	}
	return false
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// value skips a value, or with strs appends the string values in it (a
// tool's input), each followed by a newline.
func (s *scanner) value(strs bool) bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		if !s.str(strs) {
			return false
		}
		if strs {
			s.dst = append(s.dst, '\n')
		}
		return true
	case '{':
		s.i++
		if s.expect('}') {
			return true
		}
		for {
			if _, ok := s.key(); !ok || !s.value(strs) {
				return false
			}
			if s.expect(',') {
				continue
			}
			return s.expect('}')
		}
	case '[':
		s.i++
		if s.expect(']') {
			return true
		}
		for {
			if !s.value(strs) {
				return false
			}
			if s.expect(',') {
				continue
			}
			return s.expect(']')
		}
	default:
		start := s.i
		if !s.literal() {
			return false
		}
		if strs && s.b[start] != 'n' {
			s.dst = append(append(s.dst, s.b[start:s.i]...), '\n')
		}
		return true
	}
}

// literal reads true, false, null or a number.
func (s *scanner) literal() bool {
	for _, w := range [...]string{"true", "false", "null"} {
		if s.b[s.i] == w[0] {
			if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
				s.i += len(w)
				return true
			}
			return false
		}
	}
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		st := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > st
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}

// object walks an object, calling field for each key; field consumes
// the value (handled) or leaves it to be skipped.
func (s *scanner) object(field func(key []byte) (handled, ok bool)) bool {
	if !s.expect('{') {
		return false
	}
	if s.expect('}') {
		return true
	}
	for {
		k, ok := s.key()
		if !ok {
			return false
		}
		handled, ok := field(k)
		if !ok {
			return false
		}
		if !handled && !s.value(false) {
			return false
		}
		if s.expect(',') {
			continue
		}
		return s.expect('}')
	}
}

// fields are where scanRecord puts a record's text fields, as spans of
// the scanner's scratch buffer.
type fields struct {
	typ, content, name, input, output, errText [2]int
}

// field decodes the value of one text field into the scratch buffer and
// notes its span; a value that is not a string (null) leaves no text.
func (s *scanner) field(span *[2]int, strs bool) (bool, bool) {
	if s.rawSpans {
		s.ws()
		start := s.i
		var ok bool
		if strs || (s.i < len(s.b) && s.b[s.i] == '"') {
			ok = s.value(false)
		} else {
			ok = s.null()
		}
		*span = [2]int{start, s.i}
		return true, ok
	}
	start := len(s.dst)
	var ok bool
	if strs {
		ok = s.value(true)
	} else if s.ws(); s.i < len(s.b) && s.b[s.i] == '"' {
		ok = s.str(true)
	} else {
		ok = s.null() // encoding/json takes null for a string, nothing else
	}
	*span = [2]int{start, len(s.dst)}
	return true, ok
}

// scanRecord returns the searchable text of a line and the record's
// type; ok is false when the scanner cannot read the line. The text is
// the scanner's, valid until its next use: a record with one text field
// (the common case, and the only one a huge record has) is returned where
// it was decoded, without a copy.
//
// With inPlace, a huge line is decoded over itself: a JSON string never
// decodes to more bytes than it takes, and the bytes written are always
// behind the bytes read, so the text takes no memory beyond the line's.
// The line is then overwritten, whether the scan succeeds or not.
func (s *scanner) scanRecord(line []byte, inPlace bool) (text []byte, typ string, ok bool) {
	switch {
	case inPlace && len(line) > bigLine:
		s.release()
		s.dst, s.inPlace = line[:0:len(line)], true
	case len(line) > bigLine && cap(s.dst) < len(line):
		s.release()
		s.dst = bigBuf(len(line))
	}
	s.b, s.i, s.dst = line, 0, s.dst[:0]
	var f fields
	ok = s.object(func(k []byte) (bool, bool) { return s.recordField(&f, k) })
	s.ws()
	s.b = nil // the line is not the scanner's to keep
	if !ok || s.i != len(line) {
		return nil, "", false
	}
	span := func(sp [2]int) []byte { return s.dst[sp[0]:sp[1]] }
	typ = internType(span(f.typ))
	if f.name == f.input && f.errText[1] == f.errText[0] {
		// No tool and no error: the content, or the output, alone.
		switch {
		case f.output[1] == f.output[0]:
			return span(f.content), typ, true
		case f.content[1] == f.content[0]:
			return span(f.output), typ, true
		}
	}
	if len(s.dst) > bigLine && cap(s.out) < len(s.dst)+2 {
		s.out = bigBuf(len(s.dst) + 2)
	}
	text = append(s.out[:0], span(f.content)...)
	if f.name != f.input {
		text = append(text, span(f.name)...)
		text = append(append(text, '\n'), span(f.input)...)
	}
	text = append(text, span(f.output)...)
	if f.errText[1] > f.errText[0] {
		text = append(append(text, '\n'), span(f.errText)...)
	}
	s.out = text
	return text, typ, true
}

// recordField reads one top-level field of a record into f.
func (s *scanner) recordField(f *fields, k []byte) (bool, bool) {
	switch string(k) {
	case "type":
		return s.field(&f.typ, false)
	case "message":
		return s.nested(func(k []byte) (bool, bool) {
			if string(k) == "content" {
				return s.field(&f.content, false)
			}
			return false, true
		})
	case "tool":
		return s.nested(func(k []byte) (bool, bool) {
			switch string(k) {
			case "name":
				return s.field(&f.name, false)
			case "input":
				return s.field(&f.input, true)
			}
			return false, true
		})
	case "toolResult":
		return s.nested(func(k []byte) (bool, bool) {
			switch string(k) {
			case "output":
				return s.field(&f.output, false)
			case "error":
				return s.field(&f.errText, false)
			}
			return false, true
		})
	}
	return false, true
}

// internType returns the record types search knows without allocating.
func internType(t []byte) string {
	for _, k := range [...]string{"user", "assistant", "tool_use", "tool_result", "system", "title"} {
		if string(t) == k {
			return k
		}
	}
	return string(t)
}

// nested reads an object value with field, or skips a null.
func (s *scanner) nested(field func([]byte) (bool, bool)) (bool, bool) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '{' {
		return true, s.object(field)
	}
	return true, s.null()
}

func (s *scanner) null() bool {
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

package importer

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// A line can be hundreds of megabytes: a tool's output (in a Claude Code
// line, once in the message and again in toolUseResult). Such a line is not held in
// memory. Once a line passes hugeLine bytes, readLines lexes its strings
// as they stream by, and every string value longer than largeString is
// left in the source file: the line handed on holds a reference
// (storage.LargeRef) in its place, and largeTexts notes where the string
// lies in the file. The line is then decoded by encoding/json as any
// other, the references being ordinary strings: the JSON grammar is
// always encoding/json's; the lexer only finds where strings begin and
// end, and checks that a string it leaves out is a valid JSON string (else
// the reference is one that does not parse, so the line still fails).
//
// A reference travels into the record (a tool result's output) and the
// store writes the string there, transcoded piece by piece from the file
// (storage.LargeText). What must be a Go string — a message's text, a
// title — is read back whole (materialise).
var (
	hugeLine    = 8 << 20
	largeString = 1 << 20
)

// largeTexts are the strings a pass left in its source file, by key.
type largeTexts struct {
	f     io.ReaderAt
	nonce string
	texts map[string]*sourceText
}

var _ storage.LargeTexts = (*largeTexts)(nil)

func newLargeTexts(f io.ReaderAt) *largeTexts {
	var b [12]byte
	rand.Read(b[:])
	return &largeTexts{f: f, nonce: hex.EncodeToString(b[:]), texts: map[string]*sourceText{}}
}

// add notes the string whose contents (between its quotes) are the n
// bytes at off, and returns its reference.
func (lt *largeTexts) add(off, n int64) string {
	key := fmt.Sprintf("%s-%d", lt.nonce, len(lt.texts))
	lt.texts[key] = &sourceText{f: lt.f, off: off, n: n, encLen: -1}
	return storage.LargeRef(key)
}

func (lt *largeTexts) LargeText(key string) (storage.LargeText, bool) {
	t, ok := lt.texts[key]
	return t, ok
}

// records is what a record carries for the store: nil while the pass has
// left no string in the file.
func (lt *largeTexts) records() storage.LargeTexts {
	if lt == nil || len(lt.texts) == 0 {
		return nil
	}
	return lt
}

// materialise replaces the references in *s by their strings.
func (lt *largeTexts) materialise(s *string) error {
	if lt == nil || !strings.Contains(*s, "\x00") {
		return nil
	}
	for key, t := range lt.texts {
		ref := storage.LargeRef(key)
		if !strings.Contains(*s, ref) {
			continue
		}
		v, err := t.decode()
		if err != nil {
			return err
		}
		*s = strings.ReplaceAll(*s, ref, v)
	}
	return nil
}

// materialiseJSON replaces the references to large strings in the JSON
// text raw by the strings, encoded.
func (lt *largeTexts) materialiseJSON(raw []byte) ([]byte, error) {
	if lt == nil || !bytes.Contains(raw, []byte(`\u0000`)) {
		return raw, nil
	}
	for key, t := range lt.texts {
		ref, _ := json.Marshal(storage.LargeRef(key))
		ref = ref[1 : len(ref)-1]
		if !bytes.Contains(raw, ref) {
			continue
		}
		enc, err := t.AppendEncoded(nil)
		if err != nil {
			return nil, fmt.Errorf("read a large string: %w", err)
		}
		raw = bytes.ReplaceAll(raw, ref, enc)
	}
	return raw, nil
}

// sourceText is a JSON string's contents in the source file.
type sourceText struct {
	f      io.ReaderAt
	off, n int64
	encLen int // -1 until known
}

var _ storage.LargeText = (*sourceText)(nil)

// decode reads the string whole.
func (t *sourceText) decode() (string, error) {
	raw := make([]byte, t.n+2)
	raw[0], raw[len(raw)-1] = '"', '"'
	if _, err := t.f.ReadAt(raw[1:t.n+1], t.off); err != nil {
		return "", err
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

func (t *sourceText) EncodedLen() (int, error) {
	if t.encLen < 0 {
		n := 0
		if err := t.transcode(func(b []byte) { n += len(b) }); err != nil {
			return 0, err
		}
		t.encLen = n
	}
	return t.encLen, nil
}

func (t *sourceText) AppendEncoded(dst []byte) ([]byte, error) {
	err := t.transcode(func(b []byte) { dst = append(dst, b...) })
	return dst, err
}

// transcodePiece is how much of the source a step of transcode reads
// (a variable for the tests).
var transcodePiece = 1 << 20

// transcode passes the string's JSON encoding as the store writes it
// (encoding/json's, without HTML escaping) to fn in pieces: the source's
// escapes may differ, and the store's Redactor knows a secret in that
// encoding. Each piece ends where the string can be cut (lastCut), is
// decoded and encoded again by encoding/json, so the pieces put together
// are the encoding of the string decoded whole.
func (t *sourceText) transcode(fn func([]byte)) error {
	buf := make([]byte, 0, transcodePiece+8)
	quoted := make([]byte, 0, transcodePiece+16)
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	off, left, since := t.off, t.n, 0
	for left > 0 || len(buf) > 0 {
		n := min(int64(transcodePiece), left)
		have := len(buf)
		buf = append(buf, make([]byte, n)...)
		if _, err := t.f.ReadAt(buf[have:], off); err != nil {
			return fmt.Errorf("read at %d: %w", off, err)
		}
		off, left = off+n, left-n
		cut := len(buf)
		if left > 0 {
			if cut = lastCut(buf); cut == 0 {
				continue // no place to cut yet: read more
			}
		}
		quoted = append(append(append(quoted[:0], '"'), buf[:cut]...), '"')
		var s string
		if err := json.Unmarshal(quoted, &s); err != nil {
			return err
		}
		enc.Reset()
		if err := e.Encode(s); err != nil {
			return err
		}
		fn(enc.Bytes()[1 : enc.Len()-2]) // without the quotes and '\n'
		buf = buf[:copy(buf, buf[cut:])]
		if since += cut; since >= collectEvery {
			runtime.GC()
			since = 0
		}
	}
	return nil
}

// collectEvery is how much of a text transcode decodes between two
// garbage collections. encoding/json decodes each piece to a new string:
// a text of hundreds of megabytes leaves as much garbage, which the
// runtime would let grow to the size of the heap (the record's line) before
// collecting it. Collected every few pieces, the import's memory stays
// near the size of the line alone; a collection costs little, the line
// being one buffer without pointers.
const collectEvery = 16 << 20

// lastCut is the last offset in b, a JSON string's contents from the start
// of a character on, where the string can be cut into two that decode to
// its two parts: before a character, never inside an escape or a UTF-8
// sequence, nor between the escapes of a surrogate pair. 0 when there is
// none past the start.
func lastCut(b []byte) int {
	cut, high, cont := 0, false, 0
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' {
			if c >= 0x80 && c < 0xC0 {
				// A continuation byte belongs to the sequence before
				// it, unless there are more than a sequence holds.
				if cont++; cont > 3 {
					cut = i
				}
			} else {
				cut, cont = i, 0
			}
			high = false
			i++
			continue
		}
		cont = 0
		if i+1 >= len(b) {
			return cut
		}
		if b[i+1] != 'u' {
			cut, high = i, false
			i += 2
			continue
		}
		if i+6 > len(b) {
			return cut
		}
		v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
		if !(high && err == nil && v >= 0xDC00 && v < 0xE000) {
			cut = i
		}
		high = err == nil && v >= 0xD800 && v < 0xDC00
		i += 6
	}
	return cut
}

// reducer lexes a huge line as it streams by, copying it to line but for
// the contents of the strings longer than largeString, which it leaves in
// the file (see largeTexts).
type reducer struct {
	lt   *largeTexts
	line []byte
	pos  int64 // the file offset of the next byte fed
	// The string being read: where its quote is in line, where its
	// contents start in the file, and how far its escape has got.
	inStr   bool
	quote   int
	from    int64
	esc     bool
	hex     int
	left    bool // its contents are left in the file
	invalid bool // it is no valid JSON string
}

// feed lexes b, the bytes at r.pos. It returns how many it took and
// whether the line ended: a '\n' wherever it is (a JSON string cannot
// hold one; a line that ends inside one does not parse).
func (r *reducer) feed(b []byte) (int, bool) {
	for i, c := range b {
		switch {
		case c == '\n':
			r.pos += int64(i + 1)
			return i + 1, true
		case r.inStr:
			r.inString(c, r.pos+int64(i))
		default:
			r.line = append(r.line, c)
			if c == '"' {
				r.inStr, r.quote, r.from = true, len(r.line)-1, r.pos+int64(i)+1
				r.esc, r.hex, r.left, r.invalid = false, 0, false, false
			}
		}
	}
	r.pos += int64(len(b))
	return len(b), false
}

// inString lexes c, at off, inside a string: checks the escapes, keeps or
// leaves the byte, and at the closing quote puts a reference in the place
// of what was left.
func (r *reducer) inString(c byte, off int64) {
	switch {
	case r.hex > 0:
		r.invalid = r.invalid || !isHex(c)
		r.hex--
	case r.esc:
		r.esc = false
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			r.hex = 4
		default:
			r.invalid = true
		}
	case c == '\\':
		r.esc = true
	case c == '"':
		r.inStr = false
		if r.left {
			r.line = append(r.line[:r.quote], r.reference(off)...)
			return
		}
	case c < 0x20:
		r.invalid = true
	}
	if r.left {
		return
	}
	r.line = append(r.line, c)
	if len(r.line)-r.quote > largeString {
		r.left = true
		r.line = r.line[:r.quote+1]
	}
}

// reference is the JSON string that stands for the string left in the
// file, ending at off: its reference, or, when it is no valid JSON
// string, a string that does not parse either.
func (r *reducer) reference(off int64) []byte {
	if r.invalid {
		return []byte("\"\x01\"")
	}
	ref, _ := json.Marshal(r.lt.add(r.from, off-r.from))
	return ref
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// readHugeLine reads the rest of a line that began with head (at off, with
// no '\n' in it) from r, leaving its large strings in the file. It returns
// the line, the offset after its '\n' and the bytes read past it; io.EOF
// when the file ends first (a last line without its '\n').
func readHugeLine(r io.Reader, lt *largeTexts, off int64, head []byte) (line []byte, end int64, after []byte, err error) {
	red := &reducer{lt: lt, pos: off}
	red.feed(head)
	chunk := make([]byte, readBuffer)
	for {
		n, err := r.Read(chunk)
		if k, done := red.feed(chunk[:n]); done {
			return red.line, red.pos, chunk[k:n], nil
		}
		if err != nil {
			return nil, 0, nil, err
		}
	}
}

package storage

import (
	"bytes"
	"time"
)

// Session files are JSON lines, and any valid JSON line is a record
// (docs/session-format.md): another program may put spaces after ':' and
// ',' (Python's json.dumps), order the keys otherwise, or spell letters as
// \u escapes. The readers here still want to judge most lines without
// decoding them. Two shortcuts are allowed, and neither decides alone:
//
//   - Head: a line whose head is byte for byte what Append writes — the
//     common fields in their order, compact, without escapes — is in
//     clawdcode's own encoding, and its type, uuid and timestamp are read
//     from that head. Any other line is decoded before it is judged.
//   - Word: a line can hold the JSON string "compact_boundary" (or any
//     ASCII word) only if its bytes hold the word literally or a \u00XX
//     escape of one of its letters (JSON has no other way to spell a
//     letter), so a line with neither is certainly not a boundary, in any
//     encoding. A line that may hold it is decoded to confirm.

// Head is what a line in clawdcode's own encoding tells without decoding.
type Head struct {
	UUID      string
	Timestamp time.Time
	Type      string
}

var (
	headStart     = []byte(`{"parentUuid":`)
	headUUID      = []byte(`,"uuid":`)
	headSessionID = []byte(`,"sessionId":`)
	headTimestamp = []byte(`,"timestamp":`)
	headType      = []byte(`,"type":`)
)

// ParseHead reads the head of a line written in clawdcode's encoding:
//
//	{"parentUuid":null|"…","uuid":"…","sessionId":"…","timestamp":"…","type":"…"
//
// compact, in that order, with no escape in those strings. ok is false for
// any other line, which the caller must then decode.
func ParseHead(line []byte) (h Head, ok bool) {
	uuid, ts, typ, ok := parseLineHead(line)
	if !ok {
		return h, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(ts))
	if err != nil {
		return h, false
	}
	return Head{UUID: string(uuid), Timestamp: t, Type: internRecordType(typ)}, true
}

// InOwnEncoding reports whether a line starts as Append writes one (see
// ParseHead), without reading its fields: the readers that search raw
// bytes for what a record holds may do so only in such a line, and decode
// any other.
func InOwnEncoding(line []byte) bool {
	_, _, _, ok := parseLineHead(line)
	return ok
}

func parseLineHead(line []byte) (uuid, ts, typ []byte, ok bool) {
	rest, ok := bytes.CutPrefix(line, headStart)
	if !ok {
		return nil, nil, nil, false
	}
	if r, isNull := bytes.CutPrefix(rest, []byte("null")); isNull {
		rest = r
	} else if _, rest, ok = plainString(rest); !ok {
		return nil, nil, nil, false
	}
	var sid []byte
	for _, f := range [...]struct {
		key []byte
		val *[]byte
	}{{headUUID, &uuid}, {headSessionID, &sid}, {headTimestamp, &ts}, {headType, &typ}} {
		if rest, ok = bytes.CutPrefix(rest, f.key); !ok {
			return nil, nil, nil, false
		}
		if *f.val, rest, ok = plainString(rest); !ok {
			return nil, nil, nil, false
		}
	}
	if len(rest) == 0 || (rest[0] != ',' && rest[0] != '}') {
		return nil, nil, nil, false
	}
	return uuid, ts, typ, true
}

// plainString reads a JSON string at the start of b that holds no escape
// and returns its content and what follows it.
func plainString(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 || bytes.IndexByte(b[1:1+end], '\\') >= 0 {
		return nil, nil, false
	}
	return b[1 : 1+end], b[2+end:], true
}

// internRecordType returns the known types without allocating.
func internRecordType(t []byte) string {
	for _, k := range [...]string{TypeUser, TypeAssistant, TypeToolUse, TypeToolResult, TypeSystem, TypeTitle} {
		if string(t) == k {
			return k
		}
	}
	return string(t)
}

// word is an ASCII JSON string value searched for in raw bytes in any
// encoding (see the comment at the top of this file).
type word struct {
	lit []byte
	esc [128]bool // letters of lit, which a \u00XX escape may spell
}

func newWord(s string) *word {
	w := &word{lit: []byte(s)}
	for i := 0; i < len(s); i++ {
		w.esc[s[i]&0x7f] = true
	}
	return w
}

var escPrefix = []byte(`\u00`)

// maxLen is the most bytes one match can span from where it starts (the
// overlap a chunked search needs).
func (w *word) maxLen() int { return max(len(w.lit), len(`\u00XX`)) }

// lastIndexBefore returns where the last place in b that may spell the
// word starts (the literal, or an escape of one of its letters), counting
// only places that start before limit; -1 if none.
func (w *word) lastIndexBefore(b []byte, limit int) int {
	last := -1
	for k, sep := range [2][]byte{w.lit, escPrefix} {
		for from := max(0, last+1); from < limit; {
			i := bytes.Index(b[from:], sep)
			if i < 0 || from+i >= limit {
				break
			}
			at := from + i
			if k == 0 || w.escapes(b[at+len(escPrefix):]) {
				last = at
			}
			from = at + 1
		}
	}
	return last
}

// escapes reports whether b starts with the two hex digits of one of the
// word's letters.
func (w *word) escapes(b []byte) bool {
	c, ok := hexByte(b)
	return ok && c < 0x80 && w.esc[c]
}

// mayHold reports whether b may hold the word in some JSON spelling.
func (w *word) mayHold(b []byte) bool { return w.lastIndexBefore(b, len(b)) >= 0 }

// hexByte decodes the two hex digits b starts with.
func hexByte(b []byte) (byte, bool) {
	if len(b) < 2 {
		return 0, false
	}
	hi, ok1 := hexDigit(b[0])
	lo, ok2 := hexDigit(b[1])
	return hi<<4 | lo, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

package search

import (
	"bytes"
	"math"
)

// RecordTextPage returns bytes [offset, offset+size) of the searchable
// text of one session line (the text WithRecordText gives) and the text's
// whole length, without decoding the text whole: the line is walked once
// to find where its text fields lie, and those JSON strings are decoded
// a run at a time, keeping only the bytes inside the window. A page of a
// 100 MB tool result therefore costs one pass over the line's bytes and
// the page, not a 100 MB buffer. ok is false when the line is not a
// searchable record.
//
// The window is in bytes: it may begin or end inside a character, and the
// caller cuts it at rune boundaries (tools.TrimPage). A line the scanner
// cannot read (another program's spelling) or a tool call's input (its
// text is assembled from many values) is decoded whole through
// WithRecordText and cut: such lines are rare and, for inputs, small.
func RecordTextPage(line []byte, offset, size int) (page []byte, total int, ok bool) {
	if t, ok := cheapType(line); ok && !searchable(t) {
		return nil, 0, false
	}
	pieces, typ, ok := textPieces(line)
	if !ok {
		ok = WithRecordText(line, func(text []byte) {
			total = len(text)
			lo := min(offset, total)
			page = bytes.Clone(text[lo : lo+min(size, total-lo)])
		})
		return page, total, ok
	}
	if !searchable(typ) {
		return nil, 0, false
	}
	var w pageWindow
	w.lo, w.hi = offset, offset+min(size, math.MaxInt-offset)
	for _, p := range pieces {
		if p.literal != nil {
			w.add(p.literal)
			continue
		}
		if !w.decode(p.raw) {
			return nil, 0, false
		}
	}
	return w.out, w.pos, true
}

// textPiece is one part of a record's text: a JSON string literal of the
// line (quotes included) or a literal separator.
type textPiece struct {
	raw     []byte
	literal []byte
}

// textPieces finds where a line's text fields lie, in the order
// scanRecord assembles them, and the record's type. ok is false for a
// line the scanner cannot read this way (see RecordTextPage).
func textPieces(line []byte) (pieces []textPiece, typ string, ok bool) {
	s := scanner{b: line, rawSpans: true}
	var f fields
	if !s.object(func(k []byte) (bool, bool) { return s.recordField(&f, k) }) {
		return nil, "", false
	}
	if s.ws(); s.i != len(line) || f.input != [2]int{} {
		return nil, "", false
	}
	raw := func(sp [2]int) []byte { return line[sp[0]:sp[1]] }
	typRaw := raw(f.typ)
	if len(typRaw) < 2 || typRaw[0] != '"' || bytes.IndexByte(typRaw, '\\') >= 0 {
		return nil, "", false
	}
	typ = internType(typRaw[1 : len(typRaw)-1])
	add := func(sp [2]int) {
		if sp[1] > sp[0] && line[sp[0]] == '"' { // null adds nothing
			pieces = append(pieces, textPiece{raw: raw(sp)})
		}
	}
	add(f.content)
	if f.name != [2]int{} {
		add(f.name)
		pieces = append(pieces, textPiece{literal: []byte("\n")})
	}
	add(f.output)
	if f.errText[1]-f.errText[0] > len(`""`) && line[f.errText[0]] == '"' {
		pieces = append(pieces, textPiece{literal: []byte("\n")})
		add(f.errText)
	}
	return pieces, typ, true
}

// pageWindow collects the bytes of a text that fall in [lo, hi) as the
// text goes by; pos is how much of the text has gone by.
type pageWindow struct {
	lo, hi, pos int
	out         []byte
}

func (w *pageWindow) add(b []byte) {
	if a, z := max(w.lo, w.pos), min(w.hi, w.pos+len(b)); a < z {
		w.out = append(w.out, b[a-w.pos:z-w.pos]...)
	}
	w.pos += len(b)
}

// decode walks the JSON string literal raw, adding what it decodes to.
// Runs without escapes are added as they stand; an escape is decoded into
// a few bytes of scratch.
func (w *pageWindow) decode(raw []byte) bool {
	s := scanner{b: raw}
	var scratch [utf8Max2]byte
	for j := 1; j < len(raw); {
		k := j
		for k < len(raw) && raw[k] != '"' && raw[k] != '\\' && raw[k] >= 0x20 {
			k++
		}
		w.add(raw[j:k])
		if k >= len(raw) || raw[k] < 0x20 {
			return false
		}
		if raw[k] == '"' {
			return k == len(raw)-1
		}
		s.dst = scratch[:0]
		next, ok := s.escape(k, true)
		if !ok {
			return false
		}
		w.add(s.dst)
		j = next
	}
	return false
}

// utf8Max2 is room for what one escape decodes to: a rune, or two runes
// when a lone surrogate is followed by another escape.
const utf8Max2 = 8

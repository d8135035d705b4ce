package recall

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// hugeLine is the length past which a record is read without decoding it
// whole: decoding a 100 MB tool result into a storage.Record makes two
// copies of its text, and lower-casing it a third. Past it, the record's
// text is decoded once (search.WithRecordText, the text the search index
// holds), its terms are looked for a chunk at a time, and the snippet is
// cut from around the match.
const hugeLine = 1 << 20

// header is what a hit needs of a record besides its text; decoding only
// these fields skips the text without copying it.
type header struct {
	UUID             string    `json:"uuid"`
	SessionID        string    `json:"sessionId"`
	Timestamp        time.Time `json:"timestamp"`
	Type             string    `json:"type"`
	Subtype          string    `json:"subtype"`
	IsCompactSummary bool      `json:"isCompactSummary"`
}

// decodeHeader decodes a huge line's header; ok is false when it is not a
// record or is one whose text search does not read (a pin), which is
// then decoded whole.
func decodeHeader(line []byte) (h header, ok bool) {
	if json.Unmarshal(line, &h) != nil || h.UUID == "" || h.Subtype == storage.SubtypePin {
		return h, false
	}
	return h, true
}

func (h *header) record() (*storage.Record, string) {
	typ := h.Type
	if h.Type == storage.TypeUser && h.IsCompactSummary {
		typ = "summary"
	}
	return &storage.Record{UUID: h.UUID, SessionID: h.SessionID, Timestamp: h.Timestamp, Type: h.Type, Subtype: h.Subtype, IsCompactSummary: h.IsCompactSummary}, typ
}

// hugeAround is a huge line as Around shows a neighbour: the first
// tools.RecallRecordCap bytes of its text, the rest never decoded.
// hasText is false for a record without text (described by
// recordSummary); ok is false when the line must be decoded whole (see
// decodeHeader).
func hugeAround(line []byte) (a aroundRecord, hasText, ok bool) {
	r, typ, window, _, hasText, ok := hugePage(line, 0, tools.RecallRecordCap)
	if !ok {
		return aroundRecord{}, false, false
	}
	text, _ := tools.TrimPage(window)
	return aroundRecord{r, typ, string(text)}, hasText, true
}

// hugeRecord decodes a huge line's header only, for find.
func hugeRecord(line []byte) (*storage.Record, bool) {
	h, ok := decodeHeader(line)
	if !ok {
		return nil, false
	}
	r, _ := h.record()
	return r, true
}

// matchHuge checks a huge line against q and returns its record (without
// text), its type and the snippet; ok is false when it does not match or
// holds no searchable text.
func matchHuge(line []byte, q *query) (r *storage.Record, typ, snip string, ok bool) {
	h, ok := decodeHeader(line)
	if !ok {
		return nil, "", "", false
	}
	matched := false
	searchable := search.WithRecordText(line, func(text []byte) {
		at := -1
		for _, t := range q.terms {
			i := indexFold(text, t)
			if i < 0 {
				return
			}
			if t == q.anchor {
				at = i
			}
		}
		matched = true
		lo := max(0, at-snippetRadius-utf8.UTFMax)
		hi := min(len(text), at+2*snippetRadius+utf8.UTFMax)
		snip = snippet(string(text[lo:hi]), at-lo)
	})
	if !searchable || !matched {
		return nil, "", "", false
	}
	r, typ = h.record()
	return r, typ, snip, true
}

// foldChunk is how much of a text indexFold lower-cases at a time.
const foldChunk = 1 << 20

// indexFold returns where the lower-cased term first occurs in text,
// without regard to case, or -1. It lower-cases a chunk at a time (the
// chunks overlap by the term's length), so it needs no copy of the text.
// Where lower-casing changes a character's length the offset is near the
// match, not on it, as matches' is.
func indexFold(text []byte, term string) int {
	var buf []byte
	for start := 0; start < len(text); {
		end := min(len(text), start+foldChunk)
		for end < len(text) && !utf8.RuneStart(text[end]) {
			end++
		}
		buf = appendLower(buf[:0], text[start:end])
		if i := bytes.Index(buf, []byte(term)); i >= 0 {
			return start + min(i, end-start)
		}
		if end == len(text) {
			break
		}
		next := max(start+1, end-len(term))
		for next < end && !utf8.RuneStart(text[next]) {
			next++
		}
		start = next
	}
	return -1
}

func appendLower(dst, b []byte) []byte {
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			b = b[1:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		b = b[n:]
	}
	return dst
}

package recall

import (
	"fmt"

	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// page returns the record in data[start:end] with up to size bytes of its
// text from offset, cut at rune boundaries (tools.TrimPage), as the ref
// of Around or Page. A record without text is described (recordSummary).
// A huge line's page is decoded from the line itself, so a page of a
// 100 MB record costs a pass over its bytes, not a copy of its text.
func (m *mapped) page(start, end, offset, size int) (tools.RecallHit, error) {
	r, typ, window, total, _, ok := hugePage(m.data[start:end], offset, size)
	if !ok {
		rec, ok := decodeLine(m.data[start:end])
		if !ok {
			return tools.RecallHit{}, ErrRefNotFound
		}
		var text string
		if typ, text, ok = recordText(rec); !ok {
			typ, text = rec.Type, recordSummary(rec)
		}
		r, total = rec, len(text)
		window = windowOf(text, offset, size)
	}
	if offset > 0 && offset >= total {
		return tools.RecallHit{}, fmt.Errorf("%w: offset %d, and the record's text has %d bytes", ErrPastEnd, offset, total)
	}
	text, skipped := tools.TrimPage(window)
	h := hitOf(r, typ, string(text), "")
	h.Ref, h.Offset, h.Total = true, offset+skipped, total
	return h, nil
}

// hugePage is page for a line past hugeLine, read without decoding it
// into a storage.Record: the window of its text and the text's length, or
// of recordSummary when it has no text (hasText false). ok is false for a
// line that is not huge or must be decoded whole (see decodeHeader).
func hugePage(line []byte, offset, size int) (r *storage.Record, typ string, window []byte, total int, hasText, ok bool) {
	if len(line) <= hugeLine {
		return nil, "", nil, 0, false, false
	}
	h, ok := decodeHeader(line)
	if !ok {
		return nil, "", nil, 0, false, false
	}
	r, typ = h.record()
	window, total, hasText = search.RecordTextPage(line, offset, size)
	if !hasText {
		text := recordSummary(r)
		typ, total = r.Type, len(text)
		window = windowOf(text, offset, size)
	}
	return r, typ, window, total, hasText, true
}

// windowOf is bytes [offset, offset+size) of text, as far as it goes.
func windowOf(text string, offset, size int) []byte {
	lo := min(offset, len(text))
	return []byte(text[lo : lo+min(size, len(text)-lo)])
}

package storage

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A listing needs little of a session file: when it was created (the first
// record's timestamp), its title (the first user message, unless a title
// record set one), its message count and context size, and when it was
// last updated. Append writes the last three into every record's Listing,
// so the head and the last line of a file hold everything, whatever its
// size: a listing without index.json (and an Open without a fresh entry)
// reads a few KiB per file instead of all of it. Only the first bytes of a
// line are read (prefixBytes): the common fields and Listing come first in
// every line, so even a 200 MB line costs a few KiB.

// prefixBytes is how much of a line the head and tail reads look at.
const prefixBytes = 16 << 10

// headLines and headBytes bound the search for the first user message: it
// is the first or second record of any session clawdcode writes (after a
// title, fork or import record, or a handoff's summary).
const (
	headLines = 32
	headBytes = 4 << 20
)

// quickEntry builds a session's index entry from the head and tail of its
// file alone. ok is false when the file does not allow it (its last
// complete line carries no Listing: written before Listing existed, or by
// another program), and then the caller scans the file.
func quickEntry(f *os.File, fi fs.FileInfo, id, root string, old *indexEntry) (*indexEntry, bool, error) {
	size := fi.Size()
	v, err := openView(f, size)
	if err != nil {
		return nil, false, err
	}
	defer v.release()
	end, lst, updated, ok, err := v.lastListing()
	if err != nil || !ok {
		return nil, false, err
	}
	e := &indexEntry{SessionInfo: SessionInfo{ID: id, Project: root}}
	e.Messages, e.Tokens, e.Updated, e.Scanned = lst.Messages, lst.Tokens, updated, end
	e.Parent = lst.Parent
	if old != nil && old.Usage != nil && old.Usage.Scanned <= end {
		e.Usage = old.Usage // the file only grew: Project.Usage goes on from there
	}
	switch {
	case lst.Title != "":
		e.Title, e.TitleSet, e.FileTitle = lst.Title, true, lst.Title
	case old != nil && old.TitleSet:
		e.Title, e.TitleSet = old.Title, true
	}
	if old != nil && !old.Created.IsZero() && old.Size <= size && (e.TitleSet || old.Title != "") {
		e.Created = old.Created
		if e.Title == "" {
			e.Title = old.Title
		}
	} else {
		created, title, ok, err := v.headOf()
		if err != nil || !ok {
			return nil, false, err
		}
		e.Created = created
		if e.Title == "" {
			e.Title = title
		}
	}
	mt := fi.ModTime()
	e.Size, e.ModTime = size, mt.UnixNano()
	if e.Created.IsZero() {
		e.Created = mt.UTC()
	}
	if e.Updated.IsZero() {
		e.Updated = mt.UTC()
	}
	return e, true, nil
}

// lastListing finds the last complete line of the file that carries a
// Listing. end is the offset just past that line's '\n'. Bytes after the
// last '\n' (a torn write, or a writer at work) are left for later, as a
// full scan leaves them. A last complete line without a Listing, or in
// another program's spelling (which a byte search cannot judge: its
// "listing" might not be the record's own), means the file cannot be
// listed from its tail: ok is false.
func (v *view) lastListing() (end int64, l Listing, updated time.Time, ok bool, err error) {
	lineEnd, err := v.lastIndexNewline(v.size)
	if err != nil || lineEnd < 0 {
		return 0, l, updated, false, err
	}
	for tries := 0; lineEnd >= 0 && tries < 8; tries++ {
		nl, err := v.lastIndexNewline(lineEnd)
		if err != nil {
			return 0, l, updated, false, err
		}
		start := nl + 1
		prefix, whole, err := v.linePrefix(start, lineEnd)
		if err != nil {
			return 0, l, updated, false, err
		}
		switch {
		case isBlank(prefix) && whole:
			// skip
		case whole && !validJSON(prefix):
			// A damaged line: a full scan would skip it too.
		default:
			lst, found := rawListing(prefix)
			if !found || !InOwnEncoding(prefix) {
				return 0, l, updated, false, nil
			}
			ts, _ := lineTimestamp(prefix, whole)
			return lineEnd + 1, lst, ts, true, nil
		}
		lineEnd = start - 1
	}
	return 0, l, updated, false, nil
}

// linePrefix reads at most prefixBytes of the line [start, end); whole
// reports whether that is the entire line.
func linePrefix(f *os.File, start, end int64) (prefix []byte, whole bool, err error) {
	n := min(end-start, prefixBytes)
	b := make([]byte, n)
	if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	return b, n == end-start, nil
}

var (
	markVersion = []byte(`"version":"`)
	markListing = []byte(`,"listing":`)
)

// rawListing reads a record's Listing from the first bytes of its line.
// Append writes it right after the common fields, of which version is the
// last, so the first "version" key of a line is the record's own and its
// Listing, if any, follows its value at once.
func rawListing(prefix []byte) (Listing, bool) {
	var l Listing
	i := bytes.Index(prefix, markVersion)
	if i < 0 {
		return l, false
	}
	rest := prefix[i+len(markVersion):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || !bytes.HasPrefix(rest[j+1:], markListing) {
		return l, false
	}
	obj := rest[j+1+len(markListing):]
	n := objectLen(obj)
	if n < 0 || DecodeLine(obj[:n], &l) != nil {
		return l, false
	}
	return l, true
}

// validJSON is encoding/json's Valid, by the JSON v2 implementation
// (the same answer, without the first's second scan of the line).
func validJSON(b []byte) bool {
	return jsontext.Value(b).IsValid(validOptions)
}

var validOptions = jsonv2.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// objectLen returns the length of the JSON object or array b starts
// with, -1 when b does not hold the whole of it (it is not validated:
// the caller decodes what it returns).
func objectLen(b []byte) int {
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return -1
	}
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// headOf reads the head of a session file: the first record's timestamp
// and the title its first user message gives. ok is false when no user
// message turns up within headLines lines or headBytes bytes.
func (v *view) headOf() (created time.Time, title string, ok bool, err error) {
	var off int64
	for n := 0; n < headLines && off < headBytes; n++ {
		end, err := v.indexNewline(off)
		if err != nil {
			return created, "", false, err
		}
		if end < 0 {
			return created, "", false, nil // no complete user line yet
		}
		prefix, whole, err := v.linePrefix(off, end)
		if err != nil {
			return created, "", false, err
		}
		off = end + 1
		if isBlank(prefix) {
			continue
		}
		if created.IsZero() {
			created, _ = lineTimestamp(prefix, whole)
		}
		if whole {
			if t, user, ok := headTitle(prefix); ok && user {
				return created, t, true, nil
			}
			continue
		}
		// A line longer than the prefix: only one in clawdcode's encoding
		// can be judged from its first bytes (another is left to a scan).
		// A user message's content starts within them; whether it is a
		// summary (which gives no title) is said after the message, at
		// the line's end (an imported summary is this long).
		h, ok := ParseHead(prefix)
		if !ok {
			return created, "", false, nil
		}
		if h.Type != TypeUser {
			continue
		}
		if summary, err := endsAsSummary(v.f, end); err != nil || summary {
			if err != nil {
				return created, "", false, err
			}
			continue
		}
		content, ok := rawUserContent(prefix)
		return created, Title(content), ok, nil
	}
	return created, "", false, nil
}

// headTitle is the title a whole line gives when it is a user message
// (not a summary): user is false for any other record, ok false for a
// line that does not decode. A line of clawdcode's own encoding that is
// no user record is judged by its head, without decoding it.
func headTitle(line []byte) (title string, user, ok bool) {
	if h, own := ParseHead(line); own && h.Type != TypeUser {
		return "", false, true
	}
	var pr headProbe
	if DecodeLine(line, &pr) != nil {
		return "", false, false
	}
	if pr.Type != TypeUser || pr.IsCompactSummary || pr.Message == nil {
		return "", false, true
	}
	return Title(pr.Message.Content), true, true
}

// headProbe is what headTitle decodes of a line.
type headProbe struct {
	Type             string `json:"type"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Message          *struct {
		Content string `json:"content"`
	} `json:"message"`
}

// summaryMark is how a compaction summary's record says so, in the
// store's encoding: after its message, among the last fields of the line.
var summaryMark = []byte(`},"isCompactSummary":true`)

// endsAsSummary reports whether the line ending at end (its '\n') is a
// compaction summary, from its last bytes: the fields after the message
// are short, and a message's text cannot hold the mark (its quotes would
// be escaped).
func endsAsSummary(f io.ReaderAt, end int64) (bool, error) {
	const tail = 4 << 10
	from := max(0, end-tail)
	buf := make([]byte, end-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return bytes.Contains(buf, summaryMark), nil
}

// nextNewline returns the offset of the first '\n' at or after off, -1 if
// there is none. It reads the file in chunks without keeping them.
func nextNewline(f io.ReaderAt, off int64) (int64, error) {
	buf := make([]byte, scanChunk)
	for {
		n, err := f.ReadAt(buf, off)
		if j := bytes.IndexByte(buf[:n], '\n'); j >= 0 {
			return off + int64(j), nil
		}
		off += int64(n)
		if errors.Is(err, io.EOF) || n == 0 {
			return -1, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// rawUserContent decodes the start of a user record's message content
// from the first bytes of its line, in clawdcode's encoding (the line
// itself is too long to read).
func rawUserContent(prefix []byte) (string, bool) {
	const contentKey = `"message":{"role":"user","content":"`
	j := bytes.Index(prefix, []byte(contentKey))
	if j < 0 {
		return "", false
	}
	s, ok := jsonStringPrefix(prefix[j+len(contentKey)-1:])
	return s, ok
}

// jsonStringPrefix decodes as much of the JSON string that b starts with
// (b[0] is its opening quote) as b holds, never cutting an escape in two.
func jsonStringPrefix(b []byte) (string, bool) {
	safe := 1
	for i := 1; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			safe = i
			i = len(b)
		case c == '\\':
			need := 2
			if i+1 < len(b) && b[i+1] == 'u' {
				need = 6
			}
			if i+need > len(b) {
				i = len(b)
				continue
			}
			i += need
			safe = i
		default:
			i++
			safe = i
		}
	}
	quoted := append(append([]byte(nil), b[:safe]...), '"')
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return "", false
	}
	return s, true
}

package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/clawdcode/clawdcode/internal/ledger"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
	"golang.org/x/sys/unix"
)

// window is how much of a mapped file one backward step searches. The
// search itself is bytes.Index (vectorised); the window only bounds how
// far past the newest hits a search that stops early has looked.
const window = 2 << 20

// mapped is a session file mapped read-only. Session files are append-only
// and never truncated (CONTRACT.md section 4), so the mapping of the size
// seen at open stays valid; what is appended later is simply not seen.
type mapped struct {
	data []byte
}

func mapFile(path string) (*mapped, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, storage.ErrNotFound
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return &mapped{}, nil
	}
	if int64(int(fi.Size())) != fi.Size() {
		return nil, fmt.Errorf("%s: too large to map", path)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return &mapped{data: data}, nil
}

func (m *mapped) close() {
	if m.data != nil {
		_ = unix.Munmap(m.data)
		m.data = nil
	}
}

// lineAt returns the bounds of the line holding byte p; complete is false
// for a last line without its '\n'.
func (m *mapped) lineAt(p int) (start, end int, complete bool) {
	start = bytes.LastIndexByte(m.data[:p], '\n') + 1
	end = bytes.IndexByte(m.data[p:], '\n')
	if end < 0 {
		return start, len(m.data), false
	}
	return start, p + end, true
}

// decodeLine decodes a complete line as a record.
func decodeLine(line []byte) (*storage.Record, bool) {
	var r storage.Record
	if json.Unmarshal(line, &r) != nil || r.UUID == "" {
		return nil, false
	}
	return &r, true
}

// decodeRef decodes a line for find: a huge one by its header only.
func decodeRef(line []byte) (*storage.Record, bool) {
	if len(line) > hugeLine {
		if r, ok := hugeRecord(line); ok {
			return r, true
		}
	}
	return decodeLine(line)
}

// recordText is what Recall searches and shows of a record: the text a
// person or the model wrote or read. Records without such text (boundaries,
// titles, windows) are not searched.
func recordText(r *storage.Record) (typ, text string, ok bool) {
	switch r.Type {
	case storage.TypeUser:
		if r.Message == nil {
			return "", "", false
		}
		if r.IsCompactSummary {
			return "summary", r.Message.Content, true
		}
		return r.Type, r.Message.Content, true
	case storage.TypeAssistant:
		if r.Message == nil || r.Message.Content == "" {
			return "", "", false
		}
		return r.Type, r.Message.Content, true
	case storage.TypeToolUse:
		if r.Tool == nil {
			return "", "", false
		}
		return r.Type, r.Tool.Name + " " + string(r.Tool.Input), true
	case storage.TypeToolResult:
		if r.ToolResult == nil {
			return "", "", false
		}
		text := r.ToolResult.Output
		if r.ToolResult.Error != "" {
			text = strings.TrimSpace(text + "\nerror: " + r.ToolResult.Error)
		}
		return r.Type, text, true
	case storage.TypeSystem:
		if r.Subtype == storage.SubtypePin && r.Pin != nil {
			return "pin", r.Pin.Text, true
		}
	}
	return "", "", false
}

// scan calls fn with each record of data[:limit] that matches q, newest
// first, until fn returns false.
func (m *mapped) scan(ctx context.Context, q *query, limit int, fn func(r *storage.Record, typ, snippet string) bool) error {
	data := m.data[:limit]
	seen := map[int]bool{}
	var starts []int
	for hi := len(data); hi > 0; {
		if err := ctx.Err(); err != nil {
			return err
		}
		lo := max(0, hi-window)
		starts = starts[:0]
		// The two halves of the window are searched at once: the search
		// is the whole cost of a scan that finds little.
		mid := lo + (hi-lo)/2
		var upper []int
		done := make(chan struct{})
		go func() {
			upper = m.hitLines(data, mid, hi, q.needles, nil)
			close(done)
		}()
		lower := m.hitLines(data, lo, mid, q.needles, nil)
		<-done
		foreign := foreignLines(data, lo, hi, nil)
		for _, s := range append(append(lower, upper...), foreign...) {
			if !seen[s] {
				seen[s] = true
				starts = append(starts, s)
			}
		}
		slices.Sort(starts)
		for i := len(starts) - 1; i >= 0; i-- {
			s, e, complete := m.lineAt(starts[i])
			if !complete || e > len(data) {
				continue
			}
			r, typ, snip, ok := matchLine(data[s:e], q)
			if ok && !fn(r, typ, snip) {
				return nil
			}
		}
		// A line that began before the window was read whole: the
		// next window ends where it begins.
		hi = lo
		if len(starts) > 0 {
			hi = min(lo, starts[0])
		}
	}
	return nil
}

// matchLine checks one line against q and returns its record, type and
// snippet; ok is false when it does not match.
func matchLine(line []byte, q *query) (r *storage.Record, typ, snip string, ok bool) {
	if len(line) > hugeLine {
		if _, rec := decodeHeader(line); rec {
			return matchHuge(line, q)
		}
	}
	// A line in another program's encoding cannot be judged by its bytes.
	if storage.InOwnEncoding(line) && !q.lineMayMatch(line) {
		return nil, "", "", false
	}
	r, ok = decodeLine(line)
	if !ok {
		return nil, "", "", false
	}
	typ, text, ok := recordText(r)
	if !ok {
		return nil, "", "", false
	}
	at, ok := q.matches(text)
	if !ok {
		return nil, "", "", false
	}
	return r, typ, snippet(text, at), true
}

// hitLines appends to dst the start of each line that holds a needle
// starting in data[lo:hi] (a line may repeat).
func (m *mapped) hitLines(data []byte, lo, hi int, needles [][]byte, dst []int) []int {
	for _, n := range needles {
		// A hit may start in [lo, hi) and end past hi.
		part := data[lo:min(len(data), hi+len(n)-1)]
		for from := 0; ; {
			i := bytes.Index(part[from:], n)
			if i < 0 {
				break
			}
			s, e, _ := m.lineAt(lo + from + i)
			dst = append(dst, s)
			// Go on after this line: one check per line is enough.
			from = e - lo + 1
			if from >= len(part) {
				break
			}
		}
	}
	return dst
}

// foreignLines appends to dst the start of each line that starts in
// data[lo:hi] and is not in the store's own encoding (storage.InOwnEncoding,
// e.g. a file another program wrote): raw needles cannot judge such a line,
// so the caller decodes it.
func foreignLines(data []byte, lo, hi int, dst []int) []int {
	s := lo
	if s > 0 && data[s-1] != '\n' {
		j := bytes.IndexByte(data[s:hi], '\n')
		if j < 0 {
			return dst
		}
		s += j + 1
	}
	for s < hi {
		end := len(data)
		if j := bytes.IndexByte(data[s:], '\n'); j >= 0 {
			end = s + j
		}
		if line := data[s:end]; len(bytes.TrimSpace(line)) > 0 && !storage.InOwnEncoding(line) {
			dst = append(dst, s)
		}
		s = end + 1
	}
	return dst
}

// refNeedle is how a record's own uuid begins in a line the store wrote.
func refNeedle(ref string) []byte { return []byte(`"uuid":"` + ref) }

// refCandidates returns the starts of the lines that may hold the record
// ref, in file order: those with the needle, and every line in another
// encoding.
func (m *mapped) refCandidates(ref string) []int {
	n := refNeedle(ref)
	var starts []int
	for from := 0; from < len(m.data); {
		i := bytes.Index(m.data[from:], n)
		if i < 0 {
			break
		}
		s, e, _ := m.lineAt(from + i)
		starts = append(starts, s)
		from = e + 1
	}
	starts = foreignLines(m.data, 0, len(m.data), starts)
	slices.Sort(starts)
	return slices.Compact(starts)
}

// find returns the line of the record whose uuid is ref or begins with it;
// ok is false when none does. Two different records matching a prefix is
// ErrAmbiguousRef.
func (m *mapped) find(ref string) (start, end int, r *storage.Record, err error) {
	found := -1
	for _, at := range m.refCandidates(ref) {
		s, e, complete := m.lineAt(at)
		if !complete {
			continue
		}
		rec, ok := decodeRef(m.data[s:e])
		if !ok || !strings.HasPrefix(rec.UUID, ref) {
			continue // the needle was inside a tool input
		}
		if found >= 0 && rec.UUID != r.UUID {
			return 0, 0, nil, fmt.Errorf("%w: %s and %s", ErrAmbiguousRef, r.UUID, rec.UUID)
		}
		if found < 0 {
			found, start, end, r = s, s, e, rec
			if len(ref) == len(rec.UUID) {
				break // a whole uuid: nothing further can be ambiguous
			}
		}
	}
	if found < 0 {
		return 0, 0, nil, ErrRefNotFound
	}
	return start, end, r, nil
}

// around returns up to n records with text on each side of the record in
// data[start:end], in file order. Each side looks at a bounded number of
// lines, so a long run of records without text cannot make it walk the
// file.
func (m *mapped) around(start, end, n int) (before, after []aroundRecord) {
	const maxLines = 64
	for s, looked := start, 0; s > 0 && len(before) < n && looked < maxLines; looked++ {
		ps := bytes.LastIndexByte(m.data[:s-1], '\n') + 1
		if a, ok := textRecord(m.data[ps : s-1]); ok {
			before = append(before, a)
		}
		s = ps
	}
	slices.Reverse(before)
	for e, looked := end, 0; e+1 < len(m.data) && len(after) < n && looked < maxLines; looked++ {
		ns := e + 1
		ne := bytes.IndexByte(m.data[ns:], '\n')
		if ne < 0 {
			break // a torn last line
		}
		ne += ns
		if a, ok := textRecord(m.data[ns:ne]); ok {
			after = append(after, a)
		}
		e = ne
	}
	return before, after
}

// textRecord is a neighbour as Around shows it; ok is false for a line
// that is not a record with text.
func textRecord(line []byte) (aroundRecord, bool) {
	if len(line) > hugeLine {
		if a, hasText, ok := hugeAround(line); ok {
			return a, hasText
		}
	}
	r, ok := decodeLine(line)
	if !ok {
		return aroundRecord{}, false
	}
	typ, text, ok := recordText(r)
	return aroundRecord{r, typ, text}, ok
}

type aroundRecord struct {
	rec  *storage.Record
	typ  string
	text string
}

// recordSummary describes a record without text (a boundary, a fork) when
// it is the one asked for.
func recordSummary(r *storage.Record) string {
	s := r.Type
	if r.Subtype != "" {
		s += " " + r.Subtype
	}
	m := r.CompactMetadata
	if m != nil && m.Receipt != nil {
		s += fmt.Sprintf(": %d messages (%d tokens) compacted", m.Receipt.Messages, m.Receipt.Tokens)
	}
	// A boundary's ledger is listed whole: the request after the
	// compaction shows what fits its share and names this record's ref
	// for the rest.
	if m != nil && m.Ledger != nil && r.Subtype == storage.SubtypeCompactBoundary {
		if l := ledger.Listing(m.Ledger); l != "" {
			s += "\nEvidence ledger of this compaction, every entry with the ref of its call:\n" + l
		}
	}
	return s
}

func hitOf(r *storage.Record, typ, text, project string) tools.RecallHit {
	return tools.RecallHit{SessionID: r.SessionID, Project: project, UUID: r.UUID, Type: typ, Time: r.Timestamp, Text: text}
}

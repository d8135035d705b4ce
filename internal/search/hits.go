package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// hitLine is what a hit shows of its record besides the text. Decoding
// only these fields skips the text without copying it, whatever its size.
type hitLine struct {
	UUID             string    `json:"uuid"`
	Type             string    `json:"type"`
	Timestamp        time.Time `json:"timestamp"`
	IsCompactSummary bool      `json:"isCompactSummary"`
	Tool             struct {
		Name string `json:"name"`
	} `json:"tool"`
}

// hitReader reads candidates' records from the session files. A record
// longer than its buffer is read through a mapping, so a huge one costs
// its decoded text once, not copies of it.
type hitReader struct {
	home  string
	files map[uint32]*os.File
	buf   []byte
	sc    scanner
}

func (r *hitReader) close() {
	for _, f := range r.files {
		if f != nil {
			f.Close()
		}
	}
}

// read calls fn with the record of d and its searchable text. A record
// that is not where the index says (a line cut short, or one that does
// not decode as the searchable record it was) is errDamaged; a file
// removed since the index was brought up to date is skipped.
func (r *hitReader) read(m *manifest, d doc, fn func(h *hitLine, text []byte)) error {
	fe := &m.Files[d.file]
	if fe.Dead || d.off+uint64(d.length) >= uint64(fe.Offset) {
		return errDamaged // past the bytes indexed: the line's '\n' included
	}
	f, ok := r.files[d.file]
	if !ok {
		f, _ = storage.OpenRegular(filepath.Join(r.home, m.path(int(d.file))), os.O_RDONLY, 0)
		r.files[d.file] = f
	}
	if f == nil {
		return nil // removed meanwhile
	}
	n := int64(d.length) + 1 // with its '\n'
	var data []byte
	if n <= int64(bigLine) {
		if int64(cap(r.buf)) < n {
			r.buf = make([]byte, n)
		}
		data = r.buf[:n]
		if _, err := f.ReadAt(data, int64(d.off)); err != nil {
			return mismatch(f, m, d.file)
		}
	} else {
		big, put, err := readLine(f, int64(d.off), n)
		if err != nil {
			return mismatch(f, m, d.file)
		}
		defer put()
		data = big
	}
	if data[n-1] != '\n' || bytes.IndexByte(data[:n-1], '\n') >= 0 {
		return mismatch(f, m, d.file)
	}
	line := data[:n-1]
	// The header first: a huge line is then decoded over itself.
	var h hitLine
	if err := json.Unmarshal(line, &h); err != nil {
		return mismatch(f, m, d.file)
	}
	text, ok, err := recordText(&r.sc, line, true)
	defer r.sc.release()
	if errors.Is(err, errReread) {
		r.sc.release()
		fresh := make([]byte, n-1)
		if _, err := f.ReadAt(fresh, int64(d.off)); err != nil {
			return mismatch(f, m, d.file)
		}
		text, ok, err = recordText(&r.sc, fresh, false)
	}
	if err != nil || !ok {
		return mismatch(f, m, d.file)
	}
	fn(&h, text)
	return nil
}

// staleFileError is a hit's line that is not where the index says, in a
// session file that another program changed since its files were last
// compared with the index (its inode or mtime moved): the file is indexed
// anew and the search asked again (see freshness.go).
type staleFileError struct{ file uint32 }

func (e *staleFileError) Error() string { return "a session file changed behind the index" }

// mismatch is the error for a hit's line that is not what the index
// says: a stale file when the file is not the one compared with the
// index, damage when it is.
func mismatch(f *os.File, m *manifest, file uint32) error {
	fe := &m.Files[file]
	if fi, err := f.Stat(); err == nil && (storage.Inode(fi) != fe.ID || fi.ModTime().UnixNano() != fe.MTime) {
		return &staleFileError{file: file}
	}
	return fmt.Errorf("%s: %w", m.path(int(file)), errDamaged)
}

// hits reads the best candidates' records from the session files,
// verifies their phrases and cuts their snippets, until limit hits.
func (ix *Index) hits(st *state, cands []candidate, clauses []clause, q Query, limit int) ([]Hit, error) {
	r := &hitReader{home: ix.store.Home(), files: map[uint32]*os.File{}}
	defer r.close()
	var out []Hit
	seen := map[string]int{} // uuid: its hit in out
	for _, c := range cands {
		if len(out) >= limit {
			break
		}
		d, err := st.segs[c.seg].doc(int(c.doc))
		if err != nil {
			return nil, err
		}
		if int(d.file) >= len(st.m.Files) {
			return nil, errDamaged
		}
		fe := &st.m.Files[d.file]
		err = r.read(st.m, d, func(h *hitLine, text []byte) {
			if q.SkipCallsOf != "" && h.Type == storage.TypeToolUse && h.Tool.Name == q.SkipCallsOf {
				return
			}
			start, end, ok := match(text, clauses)
			if !ok {
				return
			}
			// A fork or a handoff copies records under their uuids.
			if at, dup := seen[h.UUID]; dup && h.UUID != "" {
				out[at].copies = append(out[at].copies, sessionRef{fe.Session, fe.Project})
				return
			}
			seen[h.UUID] = len(out)
			out = append(out, Hit{
				SessionID: fe.Session,
				Project:   fe.Project,
				UUID:      h.UUID,
				Timestamp: h.Timestamp.UTC(),
				Type:      h.Type,
				Snippet:   snippet(text, start, end),
				Score:     math.Round(c.score*1000) / 1000,
				Summary:   h.IsCompactSummary,
			})
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

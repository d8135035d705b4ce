package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// ImportPos is the progress mark `clawdcode import` writes into every
// record it appends (CONTRACT.md section 10): the record is the N-th that
// the import of the source bytes [From, To) wrote (the session's import
// record, when that import opened the session, is the first), and End is
// set on the last of them. The marks make the session file the truth
// about an import: an import killed at any moment is completed by the
// next one from the last whole record that carries a mark, and an import
// that ended is continued at To. The conversion of a byte range is
// deterministic, so converting [From, To) again and leaving out the first
// N records gives exactly the records still missing.
type ImportPos struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
	N    int   `json:"n"`
	End  bool  `json:"end,omitempty"`
}

// LastImportPos returns the progress mark of the last whole record of the
// session that carries one, nil if none does. It reads the file backwards
// from the end, only the first bytes of each line (the mark follows the
// common fields), and decodes in full only the line whose mark it
// returns, to be sure that it is a record and not the head of a write a
// crash cut short. A last line without its '\n' that decodes whole is a
// record, as for every reader and for Append (which closes the line). The
// lines it walks past are the records appended after the import (a user
// who continued the session).
func (s *Session) LastImportPos() (*ImportPos, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pos, err := lastImportPos(s.f, s.size)
	if err != nil {
		return nil, fmt.Errorf("read import progress of session %s: %w", s.id, err)
	}
	return pos, nil
}

// HasRecords reports whether a whole line of the session parses as a
// record (Open found the last one).
func (s *Session) HasRecords() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last != ""
}

func lastImportPos(f *os.File, size int64) (*ImportPos, error) {
	if size == 0 {
		return nil, nil
	}
	// The last line may lack its '\n' (a write cut short). When it
	// parses whole — a kill between a record's '}' and its '\n' — it is a
	// record, as for every reader and for Append, which closes the line
	// and writes on after it: its mark counts, or the next import would
	// write that record again. A torn line does not parse and is passed.
	lineEnd := size
	var b [1]byte
	if _, err := f.ReadAt(b[:], size-1); err != nil {
		return nil, err
	}
	if b[0] == '\n' {
		lineEnd-- // without its '\n'
	}
	for {
		start, err := lineStartBefore(f, lineEnd, nil)
		if err != nil {
			return nil, err
		}
		prefix, _, err := linePrefix(f, start, lineEnd)
		if err != nil {
			return nil, err
		}
		if pos := rawImportPos(prefix); pos != nil {
			ok, err := validLine(f, start, lineEnd)
			if err != nil {
				return nil, err
			}
			if ok {
				return pos, nil
			}
		}
		if start == 0 {
			return nil, nil
		}
		lineEnd = start - 1
	}
}

// rawImportPos decodes the top-level fields at the start of a line up to
// its importPos, nil when the line has none among the fields Append
// writes before it. The prefix may end anywhere in a later field.
func rawImportPos(prefix []byte) *ImportPos {
	if !bytes.Contains(prefix, markImportPos) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		if key == "importPos" {
			var pos ImportPos
			if dec.Decode(&pos) != nil {
				return nil
			}
			return &pos
		}
		if !commonField[key] {
			return nil // past the common fields: the mark would precede this
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return nil
}

var markImportPos = []byte(`"importPos":`)

// commonField lists the fields Append writes before importPos.
var commonField = map[string]bool{
	"parentUuid": true, "uuid": true, "sessionId": true, "timestamp": true, "type": true,
	"subtype": true, "cwd": true, "gitBranch": true, "version": true, "listing": true,
}

// lastLineIsRecord reports whether a line of f, [start, end) without its
// '\n', too long to be judged by its prefix, is a record: always when its
// '\n' was written (last, the byte after it, is '\n'), and otherwise when
// it decodes whole — a kill between its '}' and its '\n' — as for every
// reader, for Append, which closes the line and writes on after it, and
// for lastImportPos. A torn last line is no record, however long.
func lastLineIsRecord(f *os.File, last byte, start, end int64) (bool, error) {
	if last == '\n' {
		return true, nil
	}
	return validLine(f, start, end)
}

// validLine reports whether the bytes [start, end) of f are one JSON
// value, reading them as a stream (a line may be a 100 MB tool result).
func validLine(f *os.File, start, end int64) (bool, error) {
	dec := json.NewDecoder(io.NewSectionReader(f, start, end-start))
	depth := 0
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return depth == 0, nil
		}
		if err != nil {
			return false, nil
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// ImportOrigin returns the origin named by the session's first record
// when that is an import record, nil otherwise (a session started here,
// or a first line a crash cut short). A first line that is the only one
// and lacks its '\n' is that record when it decodes whole, as for
// LastImportPos.
func (s *Session) ImportOrigin() (*ImportInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	end, err := nextNewline(s.f, 0)
	if err != nil {
		return nil, err
	}
	if end < 0 {
		end = s.size
	}
	line, whole, err := linePrefix(s.f, 0, end)
	if err != nil || !whole {
		return nil, err // an import record is small
	}
	var r Record
	if json.Unmarshal(line, &r) != nil || r.Subtype != SubtypeImport {
		return nil, nil
	}
	return r.Import, nil
}

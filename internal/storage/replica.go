package storage

import (
	"errors"
	"fmt"
)

// ErrNotReplica is returned by AppendReplica for bytes it cannot append as
// they are: they do not end a line, or the file ends inside one.
var ErrNotReplica = errors.New("not whole lines of a session file")

// Size is the session file's length as this Session knows it: the offset
// at which the next line will start.
func (s *Session) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// AppendReplica appends lines that another machine's store wrote into the
// same session (sync fetched them: the bytes of that file from offset Size
// on) exactly as they are, with one write(2) on the O_APPEND descriptor,
// so that the two files stay byte for byte the same — the byte offsets a
// compaction's boundary records are those of either file, and sync tells
// what the other side lacks by length and hash alone. Nothing is filled in
// and nothing passes through the Redactor: the lines are already as the
// other store wrote them. lines must end with '\n' and the file must not
// end inside a line (ErrNotReplica); a line that is not a record is kept,
// as it is in the other file, and skipped by readers with a warning as any
// damaged line is. A short write is taken back as in AppendBatch. The
// session's parent chain and index entry then follow the last record.
func (s *Session) AppendReplica(lines []byte) (offset int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, fmt.Errorf("append to session %s: %w", s.id, ErrClosed)
	}
	if len(lines) == 0 {
		return s.size, nil
	}
	if lines[len(lines)-1] != '\n' || s.needNL {
		return 0, fmt.Errorf("append to session %s: %w", s.id, ErrNotReplica)
	}
	offset = s.size
	n, err := s.f.Write(lines)
	if err != nil && n > 0 && s.f.Truncate(s.size) == nil {
		n = 0
	}
	s.size += int64(n)
	if n > 0 {
		s.needNL = lines[n-1] != '\n'
		touchProject(s.dir) // the search index sees the project changed
	}
	if err != nil {
		return 0, err
	}
	if err := s.followReplica(); err != nil {
		return 0, fmt.Errorf("append to session %s: %w", s.id, err)
	}
	return offset, nil
}

// followReplica brings the parent chain and the index entry up to the
// file's end after AppendReplica wrote lines: the last record's uuid, and
// the entry from the file's head and last line (every record carries its
// Listing), as a cold Open reads them.
func (s *Session) followReplica() error {
	last, err := lastRecordUUID(s.f, s.size)
	if err != nil {
		return err
	}
	if last != "" {
		s.last = last
	}
	fi, err := s.f.Stat()
	if err != nil {
		return err
	}
	old := s.entry
	e, err := s.project.refreshEntry(s.path, s.id, &old, fi)
	if err != nil {
		return err
	}
	s.entry = *e
	return nil
}

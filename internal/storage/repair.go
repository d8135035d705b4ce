package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// Repair records (SubtypeRepair) are how `sessions check --repair` mends a
// session without breaking the append-only promise: it never changes a
// line, it appends one record naming the damage in the lines before it.
// The readers here honour them: a line a repair names is passed over
// without a warning, and the second copy of an exact duplicate without its
// record, so a resume does not send a message twice. A repair names lines
// by byte offset and length, which never change in an append-only file,
// and a reader only honours an entry whose line still has that length.

// repairWord finds the lines that may be repair records (see boundaryWord).
var repairWord = newWord(SubtypeRepair)

// repairs is what the repair records of a stretch of a file say. A nil
// *repairs says nothing.
type repairs struct {
	skip   map[int64]RepairSkip
	relink map[string]string
}

// skipped returns the entry naming the line of n bytes at off.
func (rp *repairs) skipped(off int64, n int) (RepairSkip, bool) {
	if rp == nil {
		return RepairSkip{}, false
	}
	s, ok := rp.skip[off]
	return s, ok && s.Length == n
}

// passes reports whether the line of n bytes at off is passed over by a
// reader of records: damage, or a duplicate's second copy. A boundary
// without its summary stays a record (a resume ignores it anyway).
func (rp *repairs) passes(off int64, n int) bool {
	s, ok := rp.skipped(off, n)
	return ok && s.Reason != RepairUnfinished
}

// acknowledges reports whether a repair names the line at off, whatever
// its reason: its warning has been dealt with.
func (rp *repairs) acknowledges(off int64) bool {
	if rp == nil {
		return false
	}
	_, ok := rp.skip[off]
	return ok
}

func (rp *repairs) add(info *RepairInfo) {
	for _, s := range info.Skip {
		rp.skip[s.Offset] = s
	}
	for _, l := range info.Relink {
		rp.relink[l.UUID] = l.ParentUUID
	}
}

// readRepairs collects the repair records in [from, size) of f: nil when
// there are none, which costs one search for the word in the common case.
func readRepairs(ctx context.Context, f *os.File, from, size int64) (*repairs, error) {
	none, err := lacksWord(ctx, f, from, size, repairWord)
	if err != nil || none {
		return nil, err
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, err
	}
	rp := &repairs{skip: map[int64]RepairSkip{}, relink: map[string]string{}}
	lr := newLineReader(io.LimitReader(f, size-from), from, false, loadBufferFor(size-from))
	for {
		line, _, complete, err := lr.next()
		if errors.Is(err, io.EOF) {
			return rp, nil
		}
		if err != nil {
			return nil, err
		}
		if !complete || !repairWord.mayHold(line) {
			continue
		}
		if r, err := decodeRecord(line); err == nil && r.Type == TypeSystem && r.Subtype == SubtypeRepair && r.Repair != nil {
			rp.add(r.Repair)
		}
	}
}

// offsetWarning is a warning about the line at off, held until the repairs
// that may acknowledge it are known.
type offsetWarning struct {
	off int64
	msg string
}

// flushWarnings passes on the held warnings that no repair acknowledges.
func flushWarnings(held []offsetWarning, rp *repairs, warn func(string)) {
	for _, w := range held {
		if !rp.acknowledges(w.off) {
			warn(w.msg)
		}
	}
}

// MendTornTail acknowledges a torn last line — bytes a write cut short
// (a SIGKILL in the middle of a large write(2) keeps what was copied so
// far) that are no record — with a repair record naming it, written
// after the '\n' that closes it, as `sessions check --repair` would: the
// next append would otherwise leave it a damaged line in the middle of
// the session. A last line that decodes whole (a kill between a record
// and its '\n') is a record and needs nothing. It reports whether it
// appended the repair.
func (s *Session) MendTornTail() (bool, error) {
	s.mu.Lock()
	torn, size := s.needNL, s.size
	s.mu.Unlock()
	if !torn {
		return false, nil
	}
	start, err := lineStartBefore(s.f, size, nil)
	if err != nil {
		return false, fmt.Errorf("mend session %s: %w", s.id, err)
	}
	if record, err := validLine(s.f, start, size); err != nil || record {
		if err != nil {
			return false, fmt.Errorf("mend session %s: %w", s.id, err)
		}
		return false, nil
	}
	skip := RepairSkip{Offset: start, Length: int(size - start), Reason: RepairDamaged}
	if _, err := s.Append(&Record{Type: TypeSystem, Subtype: SubtypeRepair, Repair: &RepairInfo{Skip: []RepairSkip{skip}}}); err != nil {
		return false, fmt.Errorf("mend session %s: %w", s.id, err)
	}
	return true, nil
}

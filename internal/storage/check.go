package storage

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
)

// Kinds of Problem that CheckSession finds in a session file.
const (
	ProblemTorn          = "torn line"                // a last line without its '\n' that does not parse
	ProblemDamaged       = "damaged line"             // a complete line that does not parse
	ProblemDuplicate     = "duplicate line"           // a byte-identical copy of an earlier record's line
	ProblemUUIDClash     = "uuid clash"               // two different records with one uuid
	ProblemMissingParent = "missing parent"           // parentUuid names no earlier record
	ProblemUnfinished    = "boundary without summary" // a compact_boundary not followed by its summary
)

// Problem is one thing wrong with a session file.
type Problem struct {
	Kind   string
	Line   int   // 1-based
	Offset int64 // of the line
	UUID   string
	Detail string
	// Fixable says whether Repair can mend it; the uuid clash (which of
	// the two records is right is not for clawdcode to guess) cannot.
	Fixable bool

	skip   *RepairSkip
	relink *RepairRelink
}

// Checked is what CheckSession found in one session file.
type Checked struct {
	ID       string
	Path     string
	Problems []Problem
	// dupMessages counts the user and assistant records among the
	// duplicates, which a listing counted twice.
	dupMessages int
}

// checkState is CheckSession's walk through a file.
type checkState struct {
	rp       *repairs
	seen     map[string][32]byte // uuid → hash of its first line
	prev     string              // uuid of the last record kept
	boundary *Problem            // a boundary waiting for its summary
	out      *Checked
}

// CheckSession reads the whole of a session file and reports what is
// wrong with it, leaving out what a repair record already acknowledges.
// It takes no lock; Project.Repair checks again under the session's lock.
func CheckSession(ctx context.Context, path, id string) (*Checked, error) {
	f, err := OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, notFound(path, err, "check session")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("check session %s: %w", id, err)
	}
	c, err := checkFile(ctx, f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("check session %s: %w", id, err)
	}
	c.ID, c.Path = id, path
	return c, nil
}

func checkFile(ctx context.Context, f *os.File, size int64) (*Checked, error) {
	rp, err := readRepairs(ctx, f, 0, size)
	if err != nil {
		return nil, err
	}
	st := &checkState{rp: rp, seen: map[string][32]byte{}, out: &Checked{}}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	lr := newLineReader(io.LimitReader(f, size), 0, true, loadBufferFor(size))
	for n := 1; ; n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		line, off, complete, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if !isBlank(line) {
			st.line(n, off, line, complete)
		}
	}
	st.closeBoundary(nil)
	return st.out, nil
}

// line judges one non-blank line.
func (st *checkState) line(n int, off int64, line []byte, complete bool) {
	if st.rp.passes(off, len(line)) {
		return // damage or a duplicate a repair named already
	}
	r, err := decodeRecord(line)
	if err != nil {
		kind, detail := ProblemDamaged, fmt.Sprintf("%d bytes that do not parse: %v", len(line), err)
		if !complete {
			kind, detail = ProblemTorn, fmt.Sprintf("%d bytes without a newline (a write cut short)", len(line))
		}
		st.report(Problem{Kind: kind, Line: n, Offset: off, Detail: detail, Fixable: true,
			skip: &RepairSkip{Offset: off, Length: len(line), Reason: RepairDamaged}})
		return
	}
	if r.Type != TypeSystem || r.Subtype != SubtypeRepair {
		// A repair record is no part of the conversation: a boundary
		// waits for its summary past it (besideStory).
		st.closeBoundary(r)
	}
	if r.IsBoundary() && !st.rp.acknowledges(off) {
		st.boundary = &Problem{Kind: ProblemUnfinished, Line: n, Offset: off, UUID: r.UUID, Fixable: true,
			Detail: "the compaction did not finish; a resume ignores it",
			skip:   &RepairSkip{Offset: off, Length: len(line), Reason: RepairUnfinished, UUID: r.UUID}}
	}
	if r.UUID == "" {
		return
	}
	sum := sha256.Sum256(line)
	if first, ok := st.seen[r.UUID]; ok {
		if first == sum {
			st.report(Problem{Kind: ProblemDuplicate, Line: n, Offset: off, UUID: r.UUID, Fixable: true,
				Detail: "the same record again",
				skip:   &RepairSkip{Offset: off, Length: len(line), Reason: RepairDuplicate, UUID: r.UUID}})
			if r.Type == TypeAssistant || (r.Type == TypeUser && !r.IsCompactSummary) {
				st.out.dupMessages++
			}
			return
		}
		st.report(Problem{Kind: ProblemUUIDClash, Line: n, Offset: off, UUID: r.UUID,
			Detail: "another record has this uuid with other content"})
	}
	st.checkParent(n, off, r)
	if _, ok := st.seen[r.UUID]; !ok {
		st.seen[r.UUID] = sum
	}
	st.prev = r.UUID
}

// checkParent reports a record whose parent is no earlier record (after
// the relinks repairs made); its fix makes the record before it its parent.
func (st *checkState) checkParent(n int, off int64, r *Record) {
	parent := ""
	if r.ParentUUID != nil {
		parent = *r.ParentUUID
	}
	if st.rp != nil {
		if p, ok := st.rp.relink[r.UUID]; ok {
			parent = p
		}
	}
	if _, ok := st.seen[parent]; parent == "" || ok {
		return
	}
	st.report(Problem{Kind: ProblemMissingParent, Line: n, Offset: off, UUID: r.UUID, Fixable: true,
		Detail: fmt.Sprintf("parentUuid %q is no earlier record", parent),
		relink: &RepairRelink{UUID: r.UUID, ParentUUID: st.prev}})
}

// closeBoundary settles the boundary waiting for its summary, given the
// record after it (nil at the end of the file).
func (st *checkState) closeBoundary(next *Record) {
	if st.boundary == nil {
		return
	}
	if next == nil || !next.IsSummary() {
		st.report(*st.boundary)
	}
	st.boundary = nil
}

func (st *checkState) report(p Problem) { st.out.Problems = append(st.out.Problems, p) }

// repairInfo is the repair record that mends what can be mended.
func (c *Checked) repairInfo() *RepairInfo {
	info := &RepairInfo{}
	for _, p := range c.Problems {
		if p.skip != nil {
			info.Skip = append(info.Skip, *p.skip)
		}
		if p.relink != nil {
			info.Relink = append(info.Relink, *p.relink)
		}
	}
	if len(info.Skip) == 0 && len(info.Relink) == 0 {
		return nil
	}
	return info
}

// Repair mends what CheckSession finds in a session of the project, by
// appending one SubtypeRepair record: no line of the file is changed or
// removed (see repair.go). It holds the session's lock, as any writer
// does, and checks the file again under it, so what it mends is what the
// file holds. It returns what it found; the fixable problems are mended.
// A session in use is ErrSessionBusy.
func (p *Project) Repair(ctx context.Context, id string) (*Checked, error) {
	s, err := p.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	c, err := checkFile(ctx, s.f, s.size)
	if err != nil {
		return nil, fmt.Errorf("repair session %s: %w", id, err)
	}
	c.ID, c.Path = id, s.path
	info := c.repairInfo()
	if info == nil {
		return c, nil
	}
	s.mu.Lock()
	// A listing counted the duplicates' messages: the repair record's
	// Listing, which later listings read, counts them once.
	s.entry.Messages = max(0, s.entry.Messages-c.dupMessages)
	s.mu.Unlock()
	if _, err := s.Append(&Record{Type: TypeSystem, Subtype: SubtypeRepair, Repair: info}); err != nil {
		return nil, fmt.Errorf("repair session %s: %w", id, err)
	}
	if err := s.Sync(); err != nil {
		return nil, fmt.Errorf("repair session %s: %w", id, err)
	}
	return c, nil
}

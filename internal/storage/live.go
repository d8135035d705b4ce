package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// Live is what a resume restores: the records from the last complete
// boundary's retained offset to the end of the file (other boundaries and
// older summary records in that range dropped), with their byte offsets. A
// boundary is complete when its summary record follows it; one that is not
// is ignored (see the package doc, After a crash). The boundary in force
// and its summary are among Records, at their place in the file, and are
// also pointed to by Boundary and Summary. Without a complete boundary it
// is the whole file, less any unfinished boundaries.
type Live struct {
	Records  []LiveRecord
	Boundary *Record // last complete compact_boundary, nil if none
	Summary  *Record // the summary record after it, nil if none
	// Rewound is the last rewind record honoured among Records' range (it
	// is not among Records), nil if none: the conversation can return to
	// where it was just before it (a rewind to that record).
	Rewound  *LiveRecord
	Warnings []string
}

// LiveRecord is a record and the byte offset of its line in the file.
type LiveRecord struct {
	Offset int64
	Record *Record
}

// scanChunk is how much of the file the backward search reads at a time.
const scanChunk = 64 << 10

// boundaryWord finds the lines that may be compact boundaries, in any
// JSON spelling (see canonical.go): a line without it is certainly none,
// one with it is decoded to confirm.
var boundaryWord = newWord(SubtypeCompactBoundary)

// LoadLive reads the live context of a session file without locking it
// (for `sessions show`). It finds the last compact_boundary by scanning
// bytes backwards from the end and decodes only from its retained offset,
// so its cost follows the size of the live context, not of the file.
// Unparseable lines in what it decodes are skipped and reported in
// Warnings. A missing file is ErrNotFound.
func LoadLive(ctx context.Context, path string) (*Live, error) {
	f, err := OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, notFound(path, err, "load session")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", path, err)
	}
	live, err := loadLive(ctx, f, path, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", path, err)
	}
	return live, nil
}

// applyRewinds honours the rewind records of the live context: each drops
// the records from its target user record up to itself, so the
// conversation continues from just before that message. A rewind whose
// target is an earlier rewind record returns to where the conversation
// was when that one was made (the context just before it, as below). A compaction's
// boundary and summary among them stay (they stand for the history before
// the retained records, which the rewind does not touch). A rewind whose
// target a compaction replaced since (it is not in the live context)
// starts again from earlier(target): the context as it was just before
// that record, whose boundary and summary are then the ones in force. A
// rewind whose target cannot be found either way is ignored.
func (l *Live) applyRewinds(earlier func(*RewindInfo, int64) (*Live, error)) error {
	out := l.Records[:0:0]
	for _, lr := range l.Records {
		r := lr.Record
		if r.Type != TypeSystem || r.Subtype != SubtypeRewind || r.Rewind == nil {
			out = append(out, lr)
			continue
		}
		j := len(out) - 1
		for j >= 0 && out[j].Record.UUID != r.Rewind.UUID {
			j--
		}
		if j >= 0 {
			out = dropFrom(out, j)
			l.Rewound = &LiveRecord{Offset: lr.Offset, Record: r}
			continue
		}
		before, err := earlier(r.Rewind, lr.Offset)
		if err != nil {
			return err
		}
		if before != nil {
			out = append(out[:0:0], before.Records...)
			l.Boundary, l.Summary = before.Boundary, before.Summary
			l.Warnings = append(l.Warnings, before.Warnings...)
			l.Rewound = &LiveRecord{Offset: lr.Offset, Record: r}
		}
	}
	l.Records = out
	return nil
}

// dropFrom drops records[j:] but the compaction records among them.
func dropFrom(records []LiveRecord, j int) []LiveRecord {
	kept := records[:j]
	for _, d := range records[j:] {
		if d.Record.IsBoundary() || d.Record.IsSummary() {
			kept = append(kept, d)
		}
	}
	return kept
}

func loadLive(ctx context.Context, f *os.File, path string, size int64) (*Live, error) {
	live, err := loadLiveRecords(ctx, f, path, size)
	if err != nil {
		return nil, err
	}
	err = live.applyRewinds(func(ri *RewindInfo, at int64) (*Live, error) {
		return liveBefore(ctx, f, path, ri, at)
	})
	if err != nil {
		return nil, err
	}
	return live, nil
}

// liveBefore is the live context as it was just before the record ri
// names (a user record, or an earlier rewind record), for a rewind record
// at offset at: the context a load of the file's bytes before that record
// finds (its own rewinds honoured). Nil when ri's offset, which must lie
// before the rewind, does not start the line of such a record.
func liveBefore(ctx context.Context, f *os.File, path string, ri *RewindInfo, at int64) (*Live, error) {
	if ri.Offset < 0 || ri.Offset >= at {
		return nil, nil
	}
	if ri.Offset > 0 {
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], ri.Offset-1); err != nil {
			return nil, err
		}
		if prev[0] != '\n' {
			return nil, nil
		}
	}
	line, complete, err := readLineAt(f, ri.Offset)
	if err != nil || !complete {
		return nil, err
	}
	rec, err := decodeRecord(line)
	if err != nil || rec.UUID != ri.UUID || (rec.Type != TypeUser && !(rec.Type == TypeSystem && rec.Subtype == SubtypeRewind)) {
		return nil, nil
	}
	return loadLive(ctx, f, path, ri.Offset)
}

// LoadLiveBefore is LoadLive of the session as it was when its file ended
// at byte offset end: the context a resume would have restored then (for
// /rewind, which offers the messages a compaction replaced since).
func (s *Session) LoadLiveBefore(ctx context.Context, end int64) (*Live, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("load session %s: %w", s.id, ErrClosed)
	}
	live, err := loadLive(ctx, s.f, s.path, min(end, s.size))
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", s.id, err)
	}
	return live, nil
}

// BoundaryOffset is where the boundary in force starts in the file; ok is
// false without a compaction.
func (l *Live) BoundaryOffset() (int64, bool) {
	for _, lr := range l.Records {
		if lr.Record == l.Boundary && l.Boundary != nil {
			return lr.Offset, true
		}
	}
	return 0, false
}

func loadLiveRecords(ctx context.Context, f *os.File, path string, size int64) (*Live, error) {
	live := &Live{}
	warn := func(s string) { live.Warnings = append(live.Warnings, s) }
	// Warnings about unfinished boundaries wait for the repairs, which
	// may have acknowledged them.
	var held []offsetWarning
	bOff, boundary, err := findCompleteBoundary(ctx, f, path, size, func(off int64, s string) {
		held = append(held, offsetWarning{off, s})
	})
	if err != nil {
		return nil, err
	}
	start := int64(0)
	if boundary == nil {
		bOff = -1
	} else {
		var ok bool
		if start, ok, err = retainedStart(f, bOff, boundary); err != nil {
			return nil, err
		}
		if !ok {
			rp, err := readRepairs(ctx, f, 0, size)
			if err != nil {
				return nil, err
			}
			flushWarnings(held, rp, warn)
			warn(fmt.Sprintf("%s: compact boundary at byte offset %d: retained offset %d does not hold record %q; rescanning the whole file",
				path, bOff, boundary.CompactMetadata.RetainedOffset, boundary.CompactMetadata.RetainedUUID))
			return fullScanLive(ctx, f, path, size, bOff, boundary, rp, live)
		}
	}
	rp, err := readRepairs(ctx, f, start, size)
	if err != nil {
		return nil, err
	}
	flushWarnings(held, rp, warn)
	err = readRecords(ctx, f, path, start, size, rp, func(off int64, r *Record) error {
		if off >= size {
			return errPastEnd
		}
		live.add(off, r, bOff)
		return nil
	}, warn)
	if errors.Is(err, errPastEnd) {
		err = nil
	}
	return live, err
}

// errPastEnd stops a read at the size a load was asked for: what was
// appended since (or, for LoadLiveBefore, what followed) is not its.
var errPastEnd = errors.New("past the end of the load")

// findCompleteBoundary returns the last compact_boundary that the
// compaction finished: one followed by its summary record. A boundary
// without one is what a crash between a compaction's two records leaves
// (or a torn write of both). That compaction never took effect — the
// context in force was still the history before it, and resuming from the
// boundary would drop that history with no summary in its place — so the
// boundary is passed over with a warning and the search goes on before it.
// A nil record means no complete boundary: the whole file is live.
func findCompleteBoundary(ctx context.Context, f *os.File, path string, size int64, warn func(off int64, msg string)) (int64, *Record, error) {
	for end := size; ; {
		off, b, err := findLastBoundary(ctx, f, end)
		if err != nil || b == nil {
			return 0, nil, err
		}
		ok, err := summaryFollows(f, off, size)
		if err != nil {
			return 0, nil, err
		}
		if ok {
			return off, b, nil
		}
		warn(off, fmt.Sprintf("%s: compact boundary at byte offset %d has no summary after it (the compaction did not finish); ignoring it", path, off))
		end = off
	}
}

// summaryFollows reports whether the first record after the line at off,
// within the first size bytes, is a compaction summary; lines that are no
// part of the conversation are passed over (besideStory).
func summaryFollows(f *os.File, off, size int64) (bool, error) {
	line, complete, err := readLineAt(f, off)
	if err != nil || !complete {
		return false, err
	}
	for next := off + int64(len(line)) + 1; next < size; next += int64(len(line)) + 1 {
		line, complete, err = readLineAt(f, next)
		if err != nil {
			return false, err
		}
		if isBlank(line) && complete {
			continue
		}
		if next+int64(len(line)) > size {
			return false, nil // written after the size we read as of
		}
		r, err := decodeRecord(line)
		if besideStory(r, err, complete) {
			continue
		}
		return err == nil && r.IsSummary(), nil
	}
	return false, nil
}

// besideStory reports whether a whole line between a compaction's
// boundary and its summary is no part of the conversation, which readers
// pass over: damage (a write a kill cut short, closed by the next
// append), or a repair record naming it. An import that resumes after
// such a cut writes the summary after them.
func besideStory(r *Record, err error, complete bool) bool {
	if err != nil {
		return complete
	}
	return r.Type == TypeSystem && r.Subtype == SubtypeRepair
}

// add places one decoded record, given the offset of the boundary in force
// (-1 for none): superseded compaction records before it are dropped, and
// so is every other boundary — one after it is an unfinished compaction's,
// which LoadLive treats as if it were not there.
func (l *Live) add(off int64, r *Record, bOff int64) {
	if l.place(off, r, bOff) {
		l.Records = append(l.Records, LiveRecord{off, r})
	}
}

// place is add without keeping the record: it reports whether the record
// belongs to the live context, noting the boundary and its summary.
func (l *Live) place(off int64, r *Record, bOff int64) bool {
	switch {
	case off < bOff && (r.IsBoundary() || r.IsSummary()):
		return false
	case off != bOff && r.IsBoundary():
		return false
	case off == bOff:
		l.Boundary = r
	case off > bOff && l.Boundary != nil && l.Summary == nil && r.IsSummary():
		l.Summary = r
	}
	return true
}

// retainedStart checks the boundary's pointer to its first retained record:
// the offset must start a line before the boundary, and the line there must
// carry the retained uuid. ok is false when the pointer cannot be trusted.
func retainedStart(f *os.File, bOff int64, b *Record) (start int64, ok bool, err error) {
	m := b.CompactMetadata
	if m == nil || (m.RetainedOffset == 0 && m.RetainedUUID == "") {
		return bOff, true, nil // nothing retained
	}
	r := m.RetainedOffset
	if r == bOff {
		return bOff, m.RetainedUUID == "" || m.RetainedUUID == b.UUID, nil
	}
	if r < 0 || r > bOff {
		return 0, false, nil
	}
	if r > 0 {
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], r-1); err != nil {
			return 0, false, err
		}
		if prev[0] != '\n' {
			return 0, false, nil
		}
	}
	line, complete, err := readLineAt(f, r)
	if err != nil {
		return 0, false, err
	}
	if !complete {
		return 0, false, nil
	}
	rec, err := decodeRecord(line)
	if err != nil || (m.RetainedUUID != "" && rec.UUID != m.RetainedUUID) {
		return 0, false, nil
	}
	return r, true, nil
}

// fullScanLive is the fallback when a boundary's retained offset is wrong:
// decode the whole file and start the live context at the record carrying
// the retained uuid (or at the boundary when no record does). Only the
// records from the latest such start are kept in memory.
func fullScanLive(ctx context.Context, f *os.File, path string, size, bOff int64, b *Record, rp *repairs, live *Live) (*Live, error) {
	want := b.CompactMetadata.RetainedUUID
	found := false
	err := readRecords(ctx, f, path, 0, size, rp, func(off int64, r *Record) error {
		if off >= size {
			return errPastEnd
		}
		if off < bOff && want != "" && r.UUID == want {
			live.Records = live.Records[:0]
			found = true
		}
		if off == bOff && !found {
			live.Records = live.Records[:0]
		}
		live.add(off, r, bOff)
		return nil
	}, func(s string) { live.Warnings = append(live.Warnings, s) })
	if errors.Is(err, errPastEnd) {
		err = nil
	}
	return live, err
}

// findLastBoundary searches f backwards from size for the last line that
// may spell compact_boundary and decodes as a boundary record. It returns
// a nil record when there is none. Memory stays at one chunk whatever the
// file or line sizes (a false hit in a huge line costs reading that line).
func findLastBoundary(ctx context.Context, f *os.File, size int64) (int64, *Record, error) {
	overlap := int64(boundaryWord.maxLen() - 1)
	buf := make([]byte, scanChunk+overlap)
	end := size // search [0, end); a match may straddle end by overlap bytes
	for end > 0 {
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		start := max(0, end-scanChunk)
		stop := min(end+overlap, size)
		chunk := buf[:stop-start]
		if _, err := f.ReadAt(chunk, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, nil, err
		}
		i := boundaryWord.lastIndexBefore(chunk, int(end-start))
		if i < 0 {
			end = start
			continue
		}
		lineOff, err := lineStartBefore(f, start, chunk[:i])
		if err != nil {
			return 0, nil, err
		}
		// A torn line cannot decode, so whether the line ends in '\n' does
		// not matter: a whole object without one is still a record.
		line, _, err := readLineAt(f, lineOff)
		if err != nil {
			return 0, nil, err
		}
		if rec, err := decodeRecord(line); err == nil && rec.IsBoundary() {
			return lineOff, rec, nil
		}
		// A false hit: go on before the line that held it.
		end = lineOff
	}
	return 0, nil, nil
}

// lineStartBefore returns the offset of the line that contains the byte
// just after before, where before is f's content from start.
func lineStartBefore(f *os.File, start int64, before []byte) (int64, error) {
	if j := bytes.LastIndexByte(before, '\n'); j >= 0 {
		return start + int64(j) + 1, nil
	}
	buf := make([]byte, scanChunk)
	for end := start; end > 0; {
		from := max(0, end-scanChunk)
		b := buf[:end-from]
		if _, err := f.ReadAt(b, from); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if j := bytes.LastIndexByte(b, '\n'); j >= 0 {
			return from + int64(j) + 1, nil
		}
		end = from
	}
	return 0, nil
}

// readLineAt reads the line starting at off, without its '\n'. complete
// is false when the file ends before a '\n'.
func readLineAt(f *os.File, off int64) ([]byte, bool, error) {
	var line []byte
	buf := make([]byte, 4<<10)
	for {
		n, err := f.ReadAt(buf, off)
		if j := bytes.IndexByte(buf[:n], '\n'); j >= 0 {
			return append(line, buf[:j]...), true, nil
		}
		line = append(line, buf[:n]...)
		off += int64(n)
		if errors.Is(err, io.EOF) {
			return line, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if len(buf) < scanChunk {
			buf = make([]byte, scanChunk)
		}
	}
}

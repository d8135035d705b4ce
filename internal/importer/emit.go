package importer

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// target is the session a source file goes to, created when it does not
// exist yet and opened when it does.
type target struct {
	p  *storage.Project
	id string
	s  *storage.Session
}

// open creates the session, or opens it when it exists. Creating first
// looks the name up once: looking up a name the directory does not have
// waits for its lock, which a worker creating another session holds, so
// checking first made every new session wait for that lock twice. A
// session created and never written to is removed when it is closed.
func (t *target) open(ctx context.Context) error {
	s, err := t.p.CreateID(ctx, t.id)
	if err == nil {
		t.s = s
		return nil
	}
	if !errors.Is(err, storage.ErrSessionExists) {
		return err
	}
	if t.s, err = t.p.Open(ctx, t.id); err != nil {
		return err
	}
	return nil
}

func (t *target) append(recs []*storage.Record) ([]int64, error) {
	return t.s.AppendBatch(recs...)
}

// close closes the session, leaving its index entry in b.
func (t *target) close(b *storage.IndexBatch) error {
	if t.s == nil {
		return nil
	}
	return t.s.CloseInto(b)
}

// emitter numbers the records a pass produces, leaves out the ones the
// session holds already, marks the others with their progress and writes
// them in batches.
type emitter struct {
	t    *target
	pos  storage.ImportPos // the pass's range
	skip int
	cwd  string
	// head, when set, is the import record that opens the session: it
	// is produced before the first record, with its time.
	head    *storage.Record
	n       int // records produced so far
	written int
	queue   []*storage.Record
	large   *largeTexts // what records' references refer to
	last    time.Time
	offsets map[string]int64 // of the records written, by uuid
}

func newEmitter(t *target, ps pass, cwd string) *emitter {
	return &emitter{t: t, pos: storage.ImportPos{From: ps.from, To: ps.to}, skip: ps.skip, cwd: cwd, offsets: map[string]int64{}}
}

// take produces the records the converter made since the last take.
func (e *emitter) take(ctx context.Context, out *converted) error {
	for _, r := range out.recs {
		if err := e.produce(ctx, r); err != nil {
			return err
		}
	}
	clear(out.recs)
	out.recs = out.recs[:0]
	return nil
}

func (e *emitter) produce(ctx context.Context, r *storage.Record) error {
	if h := e.head; h != nil {
		e.head = nil
		h.Timestamp = r.Timestamp
		if err := e.produce(ctx, h); err != nil {
			return err
		}
	}
	r.CWD = e.cwd
	r.Large = e.large.records()
	if r.Timestamp.IsZero() {
		r.Timestamp = e.last // a line without a time: the one before's
	}
	e.last = r.Timestamp
	e.n++
	if e.n <= e.skip {
		return nil // written by the import that was interrupted
	}
	pos := e.pos
	pos.N = e.n
	r.ImportPos = &pos
	// A boundary that retains records (from a clawdcode export) needs
	// the offset of the first one kept: what is queued is written first,
	// and the offsets noted.
	if m := r.CompactMetadata; r.IsBoundary() && m != nil && m.RetainedUUID != "" {
		if err := e.write(ctx, len(e.queue)); err != nil {
			return err
		}
		if off, ok := e.offsets[m.RetainedUUID]; ok {
			m.RetainedOffset = off
		} else {
			m.RetainedUUID = "" // kept by an earlier import: resume from the summary
		}
	}
	e.queue = append(e.queue, r)
	// One record stays queued, so that the last one can still be
	// marked as the end of the pass.
	if len(e.queue) > batch {
		return e.write(ctx, batch)
	}
	return nil
}

// finish writes what is queued, the last record marked as the pass's end.
func (e *emitter) finish(ctx context.Context) error {
	if len(e.queue) == 0 {
		return nil
	}
	e.queue[len(e.queue)-1].ImportPos.End = true
	return e.write(ctx, len(e.queue))
}

// write appends the first n queued records with one write.
func (e *emitter) write(ctx context.Context, n int) error {
	if n == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	part := e.queue[:n]
	offs, err := e.t.append(part)
	if err != nil {
		return err
	}
	for i, r := range part {
		e.offsets[r.UUID] = offs[i]
	}
	e.written += n
	rest := copy(e.queue, e.queue[n:])
	clear(e.queue[rest:])
	e.queue = e.queue[:rest]
	return nil
}

// batch is how many records go out in one write: few system calls, and
// no write so large that it strains memory.
const batch = 256

// readBuffer is the most readLines reads at once while lines fit (a
// variable for the tests).
var readBuffer = 1 << 20

// readLines calls fn for every non-blank line of the section r of a
// file, and returns the offset in the file after the last line; it stops
// at the first error fn returns. A last line without its '\n' is not
// passed (callers give a range that ends after one). With lt, a line
// longer than hugeLine is read without holding it (see largeTexts).
func readLines(r *io.SectionReader, lt *largeTexts, fn func(lineNo int, off int64, line []byte) error) (int64, error) {
	outer, start, size := r.Outer()
	if m, ok := outer.(*memSource); ok {
		return m.lines(start, size, fn)
	}
	// A small file's buffer is its size: an import of many small files
	// does not clear a megabyte for each.
	buf := make([]byte, max(min(4<<10, readBuffer), int(min(int64(readBuffer), size+1))))
	off, have, lineNo := start, 0, 0
	for {
		if have == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		n, err := r.Read(buf[have:])
		have += n
		data := buf[:have]
		pos, last, ferr := eachLine(data, off, lineNo, fn)
		if ferr != nil {
			return off + int64(pos), ferr
		}
		lineNo = last
		off += int64(pos)
		rest := data[pos:]
		if lt != nil && err == nil && len(rest) > hugeLine {
			lineNo++
			line, end, after, herr := readHugeLine(r, lt, off, rest)
			if herr == io.EOF {
				return off, nil
			}
			if herr != nil {
				return off, herr
			}
			if ferr := fn(lineNo, off, line); ferr != nil {
				return off, ferr
			}
			off, rest = end, after
		}
		if len(buf) > readBuffer && len(rest) <= readBuffer || len(rest) > len(buf) {
			// A huge line is done: let its memory go before the next.
			buf = make([]byte, max(readBuffer, len(rest)))
		}
		have = copy(buf, rest)
		if err == io.EOF {
			return off, nil
		}
		if err != nil {
			return off, err
		}
	}
}

package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// A source file is imported in passes. A pass converts the whole lines of
// a byte range [from, to) of the source — the range fixed when it starts,
// so that converting it again gives the same records — and appends them
// to the session, each carrying its progress mark (storage.ImportPos):
// the range and its number in the pass, the last one marked as the end.
// The next import reads the last mark in the session: a pass that ended
// is continued at its `to`; one that did not is converted again and its
// first n records, already in the file, are left out. So an import killed
// at any moment loses nothing and writes nothing twice, and the session
// file (append-only) is the only truth.
type pass struct {
	from, to int64
	skip     int  // records of the pass already in the session
	head     bool // the pass that opens the session with its import record
}

// importFile brings one source file's session up to date with the
// file's whole lines. It returns the session's result (nil when nothing
// was written) and the file's new state.
func (r *run) importFile(ctx context.Context, path string, fi fs.FileInfo, prev fileState) (*SessionResult, fileState, error) {
	// O_NONBLOCK: a FIFO put in the file's place since it was listed
	// does not hang the import, and the runtime takes the descriptor as
	// it is instead of switching it to non-blocking and back (four
	// fcntl calls a file). A regular file's reads ignore the flag.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, prev, fmt.Errorf("import %s: %w", path, err)
	}
	defer f.Close()
	size := fi.Size()
	var src io.ReaderAt = f
	if m, done := readSmall(f, size); m != nil {
		defer done()
		src = m
	}
	end, err := wholeLinesEnd(src, size)
	if err != nil {
		return nil, prev, fmt.Errorf("import %s: %w", path, err)
	}
	now := fileState{Offset: end, Size: size, ModTime: fi.ModTime().UnixNano()}
	h, err := probeHead(r.tool, src, path, end)
	if err != nil {
		return nil, prev, fmt.Errorf("import %s: %w", path, err)
	}
	if h.cwd == "" || !filepath.IsAbs(h.cwd) {
		if h.records {
			return nil, prev, fmt.Errorf("import %s: no working directory recorded; skipped", path)
		}
		return nil, now, nil // nothing in it (yet)
	}
	p, err := r.project(h.cwd)
	if err != nil {
		return nil, prev, fmt.Errorf("import %s: %w", path, err)
	}
	t := &target{p: p, id: clawdcodeID(h.id)}
	// Two source files may carry one session id (a copy that goes on
	// after the lines it took over): the workers take turns on a session,
	// so the second sees the first's records and its origin.
	unlock := r.lockSession(p.Root, t.id)
	sr, err := r.transfer(ctx, src, path, h, t, end, prev)
	if cerr := t.close(r.batch); err == nil {
		err = cerr
	}
	unlock()
	if err != nil {
		return nil, prev, fmt.Errorf("import %s: %w", path, err)
	}
	now.Session, now.Project = t.id, h.cwd
	now.SessionPath = p.Path(t.id)
	if sfi, err := os.Lstat(now.SessionPath); err == nil {
		now.SessionSize = sfi.Size()
	} else {
		now.SessionPath = ""
	}
	return sr, now, nil
}

// transfer plans the passes from the session's last progress mark and
// runs them.
func (r *run) transfer(ctx context.Context, f io.ReaderAt, path string, h head, t *target, end int64, prev fileState) (*SessionResult, error) {
	passes, err := r.passes(ctx, t, path, end, prev)
	if err != nil || len(passes) == 0 {
		return nil, err
	}
	sr := &SessionResult{ID: t.id, Project: t.p.Root, Source: path}
	for _, ps := range passes {
		n, err := r.runPass(ctx, f, path, h, t, ps)
		sr.Records += n
		if err != nil {
			return nil, err
		}
		sr.New = sr.New || ps.head
	}
	if sr.Records == 0 {
		return nil, nil
	}
	return sr, nil
}

// passes creates the session, or opens it and decides from its last
// progress mark what is left to import of the source's whole lines up to
// end.
func (r *run) passes(ctx context.Context, t *target, path string, end int64, prev fileState) ([]pass, error) {
	if err := t.open(ctx); err != nil {
		return nil, err
	}
	fresh := !t.s.HasRecords()
	// A kill in the middle of a batch's write leaves its session ending
	// inside a line: acknowledged by a repair record before anything is
	// appended after it, it is no damaged line in the middle of the
	// session (sessions check finds nothing), and readers pass it over.
	if _, err := t.s.MendTornTail(); err != nil {
		return nil, err
	}
	if fresh {
		// Created now, or by an import killed before its first record
		// (known without reading the file): the source from its start.
		return []pass{{from: 0, to: end, head: true}}, nil
	}
	pos, err := t.s.LastImportPos()
	if err != nil {
		return nil, err
	}
	if from, err := t.s.ImportOrigin(); err != nil {
		return nil, err
	} else if from != nil && from.Path != path {
		// Another source file with the same session id (a transcript
		// that begins with another's lines): its marks are not this
		// file's offsets.
		r.im.Warn(fmt.Sprintf("import %s: session %s was imported from %s; not imported again", path, t.id, from.Path))
		return nil, nil
	}
	switch {
	case pos == nil && prev.Session == t.id && prev.Offset > 0:
		// Imported before imports marked their records: the state of
		// that import says how far it read.
		return growth(prev.Offset, end), nil
	case pos == nil:
		r.im.Warn(fmt.Sprintf("import %s: session %s in %s was not written by import; not imported again", path, t.id, t.p.Dir))
		return nil, nil
	case end < pos.To:
		r.im.Warn(fmt.Sprintf("import %s: the file is shorter than what was imported of it; left as it is", path))
		return nil, nil
	case pos.End:
		return growth(pos.To, end), nil
	}
	// An import was killed in this pass: finish it, then take what the
	// file gained since.
	return append([]pass{{from: pos.From, to: pos.To, skip: pos.N, head: pos.From == 0}}, growth(pos.To, end)...), nil
}

func growth(from, end int64) []pass {
	if end <= from {
		return nil
	}
	return []pass{{from: from, to: end}}
}

// runPass converts the pass's byte range and appends the records past
// its skip. It returns how many it wrote.
func (r *run) runPass(ctx context.Context, f io.ReaderAt, path string, h head, t *target, ps pass) (int, error) {
	out := &converted{sessionID: h.id, cwd: h.cwd, uuids: map[string]bool{}, large: newLargeTexts(f)}
	conv := newConverter(r.tool, out)
	if err := primeConverter(conv, f, ps.from); err != nil {
		return 0, fmt.Errorf("import %s: read before offset %d: %w", path, ps.from, err)
	}
	e := newEmitter(t, ps, h.cwd)
	e.large = out.large
	if ps.head {
		e.head = &storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeImport, Import: &storage.ImportInfo{Tool: r.tool, Path: path}}
	}
	_, err := readLines(io.NewSectionReader(f, ps.from, ps.to-ps.from), out.large, func(lineNo int, off int64, line []byte) error {
		if err := conv.line(line); err != nil && e.n >= ps.skip {
			// (A line before the skip was reported by the import that
			// wrote its records.)
			r.im.Warn(fmt.Sprintf("%s: %s: skipped a line that does not parse (%d bytes): %v", path, where(ps.from, lineNo, off), len(line), err))
		}
		return e.take(ctx, out)
	})
	if err != nil {
		return e.written, err
	}
	conv.end()
	if err := e.take(ctx, out); err != nil {
		return e.written, err
	}
	if out.title != "" {
		if err := e.produce(ctx, &storage.Record{Type: storage.TypeTitle, Title: out.title}); err != nil {
			return e.written, err
		}
	}
	if err := e.finish(ctx); err != nil {
		return e.written, err
	}
	if ps.skip > 0 && e.n <= ps.skip {
		r.im.Warn(fmt.Sprintf("import %s: the file changed since it was imported; left as it is", path))
	}
	return e.written, ctx.Err()
}

// primeConverter gives a primer the source's lines before from, so that a
// pass which starts there converts as one pass from the start would. It
// reads the prefix again, which only a source that grew costs.
func primeConverter(conv converter, f io.ReaderAt, from int64) error {
	p, ok := conv.(primer)
	if !ok || from == 0 {
		return nil
	}
	// Huge strings are left in the file (a throwaway largeTexts), so a
	// huge line costs no more here than in a pass.
	_, err := readLines(io.NewSectionReader(f, 0, from), newLargeTexts(f), func(_ int, _ int64, line []byte) error {
		p.prime(line)
		return nil
	})
	return err
}

// head is what the first lines of a source say: the session's id and
// working directory, and whether any line holds a record.
type head struct {
	id, cwd string
	records bool
}

var errEnough = errors.New("enough")

// probeHead reads the source's first lines until they name the session
// and its working directory (the whole file when they never do).
func probeHead(tool string, f io.ReaderAt, path string, end int64) (head, error) {
	out := &converted{uuids: map[string]bool{}, large: newLargeTexts(f)}
	conv := newConverter(tool, out)
	var h head
	_, err := readLines(io.NewSectionReader(f, 0, end), out.large, func(_ int, _ int64, line []byte) error {
		conv.line(line) // the pass reports what does not parse
		h.records = h.records || len(out.recs) > 0
		out.recs = out.recs[:0]
		if out.sessionID != "" && out.cwd != "" {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return h, err
	}
	if !errors.Is(err, errEnough) {
		conv.end()
		h.records = h.records || len(out.recs) > 0 || out.title != ""
	}
	h.id, h.cwd = out.sessionID, out.cwd
	if h.id == "" && tool == Codex {
		h.id = codexIDFromName(path)
	}
	if h.id == "" && tool == ClaudeCode {
		h.id = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	return h, nil
}

// wholeLinesEnd is the offset after the file's last '\n': a last line
// without one (a tool still writing) waits for the next import.
func wholeLinesEnd(f io.ReaderAt, size int64) (int64, error) {
	if m, ok := f.(*memSource); ok {
		return int64(bytes.LastIndexByte(m.b[:size], '\n') + 1), nil
	}
	buf := make([]byte, min(size, 8<<10))
	for end := size; end > 0; {
		from := max(0, end-int64(len(buf)))
		b := buf[:end-from]
		if _, err := f.ReadAt(b, from); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] == '\n' {
				return from + int64(i) + 1, nil
			}
		}
		end = from
	}
	return 0, nil
}

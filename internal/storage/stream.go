package storage

import (
	"context"
	"errors"
	"io"
	"os"
)

// rewindWord finds the lines that may be rewind records (see
// boundaryWord).
var rewindWord = newWord(SubtypeRewind)

// StreamLive is LoadLive for a reader that needs one record at a time
// (`sessions show`): it calls start once with the summary in force (nil
// without a compaction), then fn for every record of the live context in
// file order, the same records LoadLive returns, and warn for every line
// skipped. Memory follows the largest record, not the live context — except
// when the live context holds a rewind record (which drops records before
// it) or the boundary's pointer to its retained records is wrong: then the
// live context is loaded whole, as LoadLive does, and replayed.
func StreamLive(ctx context.Context, path string, start func(summary *Record) error, fn func(LiveRecord) error, warn func(string)) error {
	f, err := OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return notFound(path, err, "load session")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	if warn == nil {
		warn = func(string) {}
	}
	var buffered []offsetWarning
	bOff, boundary, err := findCompleteBoundary(ctx, f, path, size, func(off int64, s string) {
		buffered = append(buffered, offsetWarning{off, s})
	})
	if err != nil {
		return err
	}
	from, ok := int64(0), true
	if boundary != nil {
		from, ok, err = retainedStart(f, bOff, boundary)
		if err != nil {
			return err
		}
	} else {
		bOff = -1
	}
	// Rewinds and repairs change what comes before them: those files are
	// loaded whole, as LoadLive does.
	for _, w := range []*word{rewindWord, repairWord} {
		if ok {
			if ok, err = lacksWord(ctx, f, from, size, w); err != nil {
				return err
			}
		}
	}
	if !ok {
		return replayLive(ctx, f, path, size, start, fn, warn)
	}
	flushWarnings(buffered, nil, warn)
	var summary *Record
	if boundary != nil {
		if summary, err = summaryAfter(f, bOff, size); err != nil {
			return err
		}
	}
	if err := start(summary); err != nil {
		return err
	}
	live := &Live{}
	return readRecords(ctx, f, path, from, size, nil, func(off int64, r *Record) error {
		if !live.place(off, r, bOff) {
			return nil
		}
		return fn(LiveRecord{off, r})
	}, warn)
}

// replayLive is StreamLive's fallback: LoadLive, then the records.
func replayLive(ctx context.Context, f *os.File, path string, size int64, start func(*Record) error, fn func(LiveRecord) error, warn func(string)) error {
	live, err := loadLive(ctx, f, path, size)
	if err != nil {
		return err
	}
	for _, w := range live.Warnings {
		warn(w)
	}
	if err := start(live.Summary); err != nil {
		return err
	}
	for _, lr := range live.Records {
		if err := fn(lr); err != nil {
			return err
		}
	}
	return nil
}

// summaryAfter decodes the summary record that follows the boundary at
// bOff (findCompleteBoundary has checked that there is one).
func summaryAfter(f *os.File, bOff, size int64) (*Record, error) {
	line, _, err := readLineAt(f, bOff)
	if err != nil {
		return nil, err
	}
	for next := bOff + int64(len(line)) + 1; next < size; next += int64(len(line)) + 1 {
		var complete bool
		if line, complete, err = readLineAt(f, next); err != nil {
			return nil, err
		}
		if isBlank(line) && complete {
			continue
		}
		r, err := decodeRecord(line)
		if besideStory(r, err, complete) {
			continue
		}
		if err != nil || !r.IsSummary() {
			return nil, nil
		}
		return r, nil
	}
	return nil, nil
}

// lacksWord reports whether [from, size) of f certainly holds no
// spelling of w, reading it in chunks (memory stays at one chunk).
func lacksWord(ctx context.Context, f *os.File, from, size int64, w *word) (bool, error) {
	overlap := int64(w.maxLen() - 1)
	buf := make([]byte, min(scanChunk, max(size-from, 0))+overlap) // one turn's records are kilobytes
	for off := from; off < size; off += scanChunk {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		b := buf[:min(scanChunk+overlap, size-off)]
		if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		if w.mayHold(b) {
			return false, nil
		}
	}
	return true, nil
}

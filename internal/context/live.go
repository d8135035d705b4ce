package contextmgr

import (
	"errors"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// liveContext is the context in force, held in the MemoryStore: the
// summary (nil before the first compaction) first, then the records after
// it in file order, each with its offset in the session file. Beside each
// record it keeps what the accounting knows of its size (entry).
//
// The MemoryStore bounds the bytes held (Options.MaxLiveBytes). Reaching
// the bound drops nothing: the largest texts held are cut down in memory
// (head and tail kept, with the marker), halving until the new record
// fits; the file keeps every record whole, and the manager records the
// cuts (context_cut) and tells the user. The next request is then far over
// the trigger anyway, so it compacts.
type liveContext struct {
	mem     *storage.MemoryStore
	summary *entry
	entries []*entry
}

// minHeldBytes is the least text a record is cut down to at the bound.
const minHeldBytes = 2048

func newLiveContext(maxBytes int64) *liveContext {
	return &liveContext{mem: storage.NewMemoryStore(maxBytes)}
}

// index is e's position in the MemoryStore (-1 = not held).
func (l *liveContext) index(e *entry) int {
	base := 0
	if l.summary != nil {
		if e == l.summary {
			return 0
		}
		base = 1
	}
	for i, x := range l.entries {
		if x == e {
			return base + i
		}
	}
	return -1
}

// hold appends e, cutting the largest texts held (e's included) when the
// bound is reached. It returns the entries it cut.
func (l *liveContext) hold(e *entry) ([]*entry, error) {
	var clipped []*entry
	for {
		err := l.mem.Add(storage.LiveRecord{Record: e.rec, Offset: e.offset})
		if err == nil {
			l.entries = append(l.entries, e)
			return clipped, nil
		}
		if !errors.Is(err, storage.ErrContextTooLarge) {
			return clipped, err
		}
		v := l.largest(append(l.entries[:len(l.entries):len(l.entries)], e))
		if v == nil {
			return clipped, fmt.Errorf("hold %s record: %w", e.rec.Type, err)
		}
		l.clip(v, max(minHeldBytes, len(fullText(v.rec))/2))
		clipped = appendOnce(clipped, v)
	}
}

// install makes summary + retained the live context (after a compaction),
// cutting the largest retained texts if they alone exceed the bound.
func (l *liveContext) install(summary *entry, retained []*entry) ([]*entry, error) {
	var clipped []*entry
	for {
		recs := make([]storage.LiveRecord, 0, len(retained)+1)
		recs = append(recs, storage.LiveRecord{Record: summary.rec, Offset: summary.offset})
		for _, e := range retained {
			recs = append(recs, storage.LiveRecord{Record: e.rec, Offset: e.offset})
		}
		err := l.mem.Replace(recs)
		if err == nil {
			l.summary, l.entries = summary, append([]*entry(nil), retained...)
			return clipped, nil
		}
		if !errors.Is(err, storage.ErrContextTooLarge) {
			return clipped, err
		}
		v := l.largest(retained)
		if v == nil {
			return clipped, fmt.Errorf("hold the compacted context: %w", err)
		}
		l.clip(v, max(minHeldBytes, len(fullText(v.rec))/2))
		clipped = appendOnce(clipped, v)
	}
}

// largest is the entry of es with the longest text that can still be cut.
func (l *liveContext) largest(es []*entry) *entry {
	var best *entry
	n := minHeldBytes
	for _, e := range es {
		if t := len(fullText(e.rec)); t > n {
			best, n = e, t
		}
	}
	return best
}

// clip replaces e's record, in the entry and in the MemoryStore, by a copy
// whose text is cut to limit bytes.
func (l *liveContext) clip(e *entry, limit int) {
	short, ok := cutRecord(e.rec, limit)
	if !ok {
		return
	}
	e.rec, e.clip = short, limit
	if e.trunc != nil && len(sentText(e.trunc)) >= len(sentText(short)) {
		e.trunc, e.truncLimit = nil, 0
	}
	if i := l.index(e); i >= 0 {
		// Smaller than before: Update cannot exceed the bound.
		_ = l.mem.Update(i, short)
	}
}

func appendOnce(es []*entry, e *entry) []*entry {
	for _, x := range es {
		if x == e {
			return es
		}
	}
	return append(es, e)
}

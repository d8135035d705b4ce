package contextmgr

import (
	"errors"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// liveContext is the context in force, held in the MemoryStore and only
// there: the summary (when there is one) first, then the records after it
// in file order, each an entry (its record, its offset in the session
// file, and what the accounting knows of its size). summary and entries
// are views of the store's one list, not copies kept in step with it.
//
// The MemoryStore bounds the bytes held (Options.MaxLiveBytes). Reaching
// the bound drops nothing: the largest texts held are cut down in memory
// (head and tail kept, with the marker), halving until the new record
// fits; the file keeps every record whole, and the manager records the
// cuts (context_cut) and tells the user. The next request is then far over
// the trigger anyway, so it compacts.
type liveContext struct {
	mem        *storage.MemoryStore[*entry]
	hasSummary bool // the store's first entry is the summary in force
}

// minHeldBytes is the least text a record is cut down to at the bound.
const minHeldBytes = 2048

func newLiveContext(maxBytes int64) *liveContext {
	return &liveContext{mem: storage.NewMemoryStore[*entry](maxBytes)}
}

// summary is the summary in force (nil before the first compaction).
func (l *liveContext) summary() *entry {
	if !l.hasSummary {
		return nil
	}
	return l.mem.Records()[0]
}

// entries are the records after the summary, in file order. The slice is
// the store's: read it, do not keep it across a change.
func (l *liveContext) entries() []*entry {
	all := l.mem.Records()
	if l.hasSummary {
		return all[1:]
	}
	return all
}

// index is e's position in the MemoryStore (-1 = not held).
func (l *liveContext) index(e *entry) int {
	for i, x := range l.mem.Records() {
		if x == e {
			return i
		}
	}
	return -1
}

// hold appends e, cutting the largest texts held (e's included) when the
// bound is reached. It returns the entries it cut.
func (l *liveContext) hold(e *entry) ([]*entry, error) {
	var clipped []*entry
	for {
		err := l.mem.Add(e)
		if err == nil {
			return clipped, nil
		}
		if !errors.Is(err, storage.ErrContextTooLarge) {
			return clipped, err
		}
		held := l.entries()
		v := largest(append(held[:len(held):len(held)], e))
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
	items := make([]*entry, 0, len(retained)+1)
	items = append(append(items, summary), retained...)
	for {
		err := l.mem.Replace(items)
		if err == nil {
			l.hasSummary = true
			return clipped, nil
		}
		if !errors.Is(err, storage.ErrContextTooLarge) {
			return clipped, err
		}
		v := largest(items[1:])
		if v == nil {
			return clipped, fmt.Errorf("hold the compacted context: %w", err)
		}
		l.clip(v, max(minHeldBytes, len(fullText(v.rec))/2))
		clipped = appendOnce(clipped, v)
	}
}

// largest is the entry of es with the longest text that can still be cut.
func largest(es []*entry) *entry {
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
		// Smaller than before: the store weighs it again, and it fits.
		_ = l.mem.Update(i, e)
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

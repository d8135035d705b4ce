package storage

import "fmt"

// MemoryStore is the in-memory live context with a size bound (in bytes of
// record content, see ContentBytes): the records in force for one session,
// in order, each with its offset in the session file.
//
// At the bound nothing is dropped silently: a change that would exceed it
// fails with ErrContextTooLarge and leaves the store as it was, so the
// caller (the context manager) decides what to compact or truncate. It is
// not safe for concurrent use; its owner serialises access.
type MemoryStore struct {
	max     int64
	bytes   int64
	records []LiveRecord
	sizes   []int64
}

// NewMemoryStore makes an empty store bounded at maxBytes (<= 0: unbounded).
func NewMemoryStore(maxBytes int64) *MemoryStore {
	return &MemoryStore{max: maxBytes}
}

// ContentBytes is what a record weighs in the live context: the bytes of
// the text a request would carry for it (message content, tool name and
// input, tool output and error). It is also an upper bound on its tokens,
// a BPE token being at least one byte.
func ContentBytes(r *Record) int64 {
	var n int
	if r.Message != nil {
		n += len(r.Message.Content)
	}
	if r.Tool != nil {
		n += len(r.Tool.Name) + len(r.Tool.Input)
	}
	if r.ToolResult != nil {
		n += len(r.ToolResult.Output) + len(r.ToolResult.Error)
	}
	return int64(n)
}

func (m *MemoryStore) fits(total int64) bool { return m.max <= 0 || total <= m.max }

func (m *MemoryStore) tooLarge(total int64) error {
	return fmt.Errorf("%w: %d bytes, bound %d", ErrContextTooLarge, total, m.max)
}

// Add appends one record.
func (m *MemoryStore) Add(lr LiveRecord) error {
	n := ContentBytes(lr.Record)
	if !m.fits(m.bytes + n) {
		return m.tooLarge(m.bytes + n)
	}
	m.records = append(m.records, lr)
	m.sizes = append(m.sizes, n)
	m.bytes += n
	return nil
}

// Replace swaps the whole content, e.g. for a loaded Live or after a
// compaction; all or nothing.
func (m *MemoryStore) Replace(recs []LiveRecord) error {
	sizes := make([]int64, len(recs))
	var total int64
	for i, lr := range recs {
		sizes[i] = ContentBytes(lr.Record)
		total += sizes[i]
	}
	if !m.fits(total) {
		return m.tooLarge(total)
	}
	m.records = append([]LiveRecord(nil), recs...)
	m.sizes, m.bytes = sizes, total
	return nil
}

// Update replaces record i in place (e.g. a tool result cut down to fit).
func (m *MemoryStore) Update(i int, r *Record) error {
	if i < 0 || i >= len(m.records) {
		return fmt.Errorf("memory store: index %d out of range [0,%d)", i, len(m.records))
	}
	n := ContentBytes(r)
	if total := m.bytes - m.sizes[i] + n; !m.fits(total) {
		return m.tooLarge(total)
	}
	m.bytes += n - m.sizes[i]
	m.sizes[i] = n
	m.records[i].Record = r
	return nil
}

// Records is the live context in order. The slice is the store's own:
// read it, do not keep it across changes.
func (m *MemoryStore) Records() []LiveRecord { return m.records }

// Len is the number of records.
func (m *MemoryStore) Len() int { return len(m.records) }

// Bytes is the content size held; Max the bound (0 = none).
func (m *MemoryStore) Bytes() int64 { return m.bytes }
func (m *MemoryStore) Max() int64   { return m.max }

// Reset empties the store.
func (m *MemoryStore) Reset() {
	m.records, m.sizes, m.bytes = nil, nil, 0
}

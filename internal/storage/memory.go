package storage

import "fmt"

// MemoryStore is the in-memory live context with a size bound (in bytes of
// record content, see ContentBytes): the records in force for one session,
// in order, each with its offset in the session file. What it holds is a
// Held: a LiveRecord, or an owner's richer value that stands for one (the
// context manager keeps each record's accounting beside it), so that the
// store is the one list of the live context and no owner keeps a second
// one in step with it.
//
// At the bound nothing is dropped silently: a change that would exceed it
// fails with ErrContextTooLarge and leaves the store as it was, so the
// caller (the context manager) decides what to compact or truncate. It is
// not safe for concurrent use; its owner serialises access.
type MemoryStore[T Held] struct {
	max   int64
	bytes int64
	items []T
	sizes []int64
}

// Held is what a MemoryStore holds: a value standing for one record of the
// live context and its offset in the session file.
type Held interface {
	Live() LiveRecord
}

// Live is lr itself: a LiveRecord is the plainest Held.
func (lr LiveRecord) Live() LiveRecord { return lr }

// NewMemoryStore makes an empty store bounded at maxBytes (<= 0: unbounded).
func NewMemoryStore[T Held](maxBytes int64) *MemoryStore[T] {
	return &MemoryStore[T]{max: maxBytes}
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

func (m *MemoryStore[T]) fits(total int64) bool { return m.max <= 0 || total <= m.max }

func (m *MemoryStore[T]) tooLarge(total int64) error {
	return fmt.Errorf("%w: %d bytes, bound %d", ErrContextTooLarge, total, m.max)
}

func weigh[T Held](item T) int64 { return ContentBytes(item.Live().Record) }

// Add appends one item.
func (m *MemoryStore[T]) Add(item T) error {
	n := weigh(item)
	if !m.fits(m.bytes + n) {
		return m.tooLarge(m.bytes + n)
	}
	m.items = append(m.items, item)
	m.sizes = append(m.sizes, n)
	m.bytes += n
	return nil
}

// Replace swaps the whole content, e.g. for a loaded Live or after a
// compaction; all or nothing. The store keeps its own copy of items.
func (m *MemoryStore[T]) Replace(items []T) error {
	sizes := make([]int64, len(items))
	var total int64
	for i, item := range items {
		sizes[i] = weigh(item)
		total += sizes[i]
	}
	if !m.fits(total) {
		return m.tooLarge(total)
	}
	m.items = append([]T(nil), items...)
	m.sizes, m.bytes = sizes, total
	return nil
}

// Update replaces item i in place and weighs it again (e.g. a tool result
// cut down to fit). An item whose record shrank always fits.
func (m *MemoryStore[T]) Update(i int, item T) error {
	if i < 0 || i >= len(m.items) {
		return fmt.Errorf("memory store: index %d out of range [0,%d)", i, len(m.items))
	}
	n := weigh(item)
	if total := m.bytes - m.sizes[i] + n; !m.fits(total) {
		return m.tooLarge(total)
	}
	m.bytes += n - m.sizes[i]
	m.sizes[i] = n
	m.items[i] = item
	return nil
}

// Records is the live context in order. The slice is the store's own:
// read it, do not keep it across changes.
func (m *MemoryStore[T]) Records() []T { return m.items }

// Bytes is the content size held; Max the bound (0 = none).
func (m *MemoryStore[T]) Bytes() int64 { return m.bytes }
func (m *MemoryStore[T]) Max() int64   { return m.max }

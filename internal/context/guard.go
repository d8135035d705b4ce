package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// RecoverOverflow is the ContextGuard, called after the server rejected
// the last request as too long, without the server's words: it is
// RecoverOverflowFrom with no rejection to read.
func (m *Manager) RecoverOverflow(ctx context.Context, attempt int) (bool, error) {
	return m.RecoverOverflowFrom(ctx, attempt, nil)
}

// RecoverOverflowFrom is the ContextGuard, called after the server
// rejected the last request (rejection, may be nil) as too long. The
// server's window is evidently smaller than believed, so every attempt
// first lowers the effective window: to the maximum the server states in
// its message when it states one (see llm.StatedWindow), otherwise to 90% of
// the exact token count of the rejected request. Attempt 1 then cuts
// oversized tool results down in memory (head and tail kept, the session
// file keeps them whole); attempt 2 compacts; from attempt 3 on it returns
// false: the caller stops with an error and the session stays resumable.
func (m *Manager) RecoverOverflowFrom(ctx context.Context, attempt int, rejection error) (bool, error) {
	if attempt >= 3 {
		return false, nil
	}
	before := m.window
	m.learnWindow(rejection)
	if m.window < before {
		m.learnt = m.window
		if err := m.recordWindow(); err != nil {
			return false, err
		}
	}
	m.invalidate()
	if attempt <= 1 {
		limit := max(m.window/8, 256)
		var oversized []*entry
		for _, e := range m.entries {
			if e.rec.Type == storage.TypeToolResult && m.countEntry(e) > limit {
				oversized = append(oversized, e)
			}
		}
		n := 0
		for _, e := range oversized {
			if m.truncateEntry(e, 2*limit) {
				n++
			}
		}
		if n > 0 {
			if err := m.recordCuts(); err != nil {
				return false, err
			}
		}
		m.notify("truncated", "the server rejected the request as too long; cut %d oversized tool results down and lowered the window estimate to %d tokens", n, m.window)
		return true, nil
	}
	m.notify("warning", "the server still rejects the request as too long; compacting")
	_, err := m.compact(ctx, storage.TriggerAuto, "")
	if errors.Is(err, ErrNothingToCompact) {
		if err := m.shrinkToFit(m.trigger() - 1); err != nil {
			return false, err
		}
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("compact after overflow: %w", err)
	}
	return true, nil
}

// learnWindow lowers the effective window after a rejection. What the
// server states is the truth and is taken as it is. Otherwise the rejected
// request is counted exactly: it was at least one token over the real
// window, and the cheap byte bound that Request decides with can be far
// above the real count (a third above it for ordinary text, more once
// results were cut), which would leave the estimate too large for the
// guard's own summary call. Tokenizing here is worth it: overflows are rare.
// The window is never raised above what it was.
func (m *Manager) learnWindow(rejection error) {
	if w, ok := llm.StatedWindow(rejection); ok {
		m.window = min(w, m.window)
		return
	}
	rejected := m.requestTokens(exact) // the live context is still what was sent
	if w := max(int(0.9*float64(rejected)), minEffectiveWindow); w < m.window {
		m.window = w
	}
}

// recordWindow appends a context_window record with the effective window
// just learnt, so that a resume (-c) starts with it instead of sending a
// request the server already refused. It is appended at once, not with
// the next compaction: most rejections are recovered by truncation alone.
func (m *Manager) recordWindow() error {
	r := &storage.Record{
		UUID:          uuid.NewString(),
		Type:          storage.TypeSystem,
		Subtype:       storage.SubtypeContextWindow,
		ContextWindow: m.window,
	}
	if _, err := m.log.Append(r); err != nil {
		return fmt.Errorf("record the learnt context window: %w", err)
	}
	return nil
}

// learntWindow is the smallest window a server rejection taught this
// session, as recorded in the live context (0 = none): the boundary's
// effectiveWindow and every context_window record after it.
func learntWindow(live *storage.Live) int {
	w := 0
	lower := func(n int) {
		if n > 0 && (w == 0 || n < w) {
			w = n
		}
	}
	if b := live.Boundary; b != nil && b.CompactMetadata != nil {
		lower(b.CompactMetadata.EffectiveWindow)
	}
	for _, lr := range live.Records {
		if r := lr.Record; r != nil && r.Type == storage.TypeSystem && r.Subtype == storage.SubtypeContextWindow {
			lower(r.ContextWindow)
		}
	}
	return w
}

// shrinkToFit cuts long texts of the live context down in memory until the
// request fits target tokens (or nothing more can be cut), and records the
// cuts in the session.
func (m *Manager) shrinkToFit(target int) error {
	over := m.requestTokens(exact) - target
	if over <= 0 {
		return nil
	}
	n := m.truncateEntries(m.entries, m.sizeOf(m.entries)-over)
	if n == 0 {
		return nil
	}
	m.notify("truncated", "cut %d long texts down in memory to fit the context window", n)
	return m.recordCuts()
}

// recordCuts appends a context_cut record naming every entry now sent cut.
func (m *Manager) recordCuts() error {
	cut := truncatedLimits(m.entries)
	if len(cut) == 0 {
		return nil
	}
	r := &storage.Record{
		UUID:            uuid.NewString(),
		Type:            storage.TypeSystem,
		Subtype:         storage.SubtypeContextCut,
		CompactMetadata: &storage.CompactMetadata{Truncated: cut},
	}
	if _, err := m.log.Append(r); err != nil {
		return fmt.Errorf("record the texts cut in memory: %w", err)
	}
	return nil
}

// truncateEntries cuts the longest texts of es until they weigh at most
// target tokens: tool results first, then user and assistant text, each
// time halving the bytes a text may keep. It returns how many were cut.
func (m *Manager) truncateEntries(es []*entry, target int) int {
	cut := map[*entry]bool{}
	total := m.sizeOf(es)
	for _, results := range []bool{true, false} {
		for limit := 32 << 10; total > target && limit >= 256; limit /= 2 {
			for _, e := range es {
				if (e.rec.Type == storage.TypeToolResult) != results {
					continue
				}
				if m.truncateEntry(e, limit) {
					cut[e] = true
				}
			}
			total = m.sizeOf(es)
		}
	}
	if len(cut) > 0 {
		m.invalidate()
	}
	return len(cut)
}

// truncateEntry makes e send its text cut to at most limit bytes (from the
// full text on record, so repeated cuts do not stack markers). It reports
// whether e's text is now cut.
func (m *Manager) truncateEntry(e *entry, limit int) bool {
	r := e.rec
	var full string
	switch {
	case r.Type == storage.TypeToolResult && r.ToolResult != nil:
		full = r.ToolResult.Output
	case (r.Type == storage.TypeUser || r.Type == storage.TypeAssistant) && r.Message != nil:
		full = r.Message.Content
	default:
		return false
	}
	if len(full) <= limit || (e.trunc != nil && len(sentText(e.trunc)) <= limit) {
		return e.trunc != nil
	}
	t := *r
	short := truncateText(full, limit)
	if r.Type == storage.TypeToolResult {
		tr := *r.ToolResult
		tr.Output = short
		t.ToolResult = &tr
	} else {
		msg := *r.Message
		msg.Content = short
		t.Message = &msg
	}
	e.trunc, e.truncLimit = &t, limit
	e.ub = m.opt.UpperBound(recordMessage(&t))
	e.exact, e.est = -1, -1
	m.invalidate()
	return true
}

func sentText(r *storage.Record) string {
	if r.ToolResult != nil {
		return r.ToolResult.Output
	}
	return messageContent(r)
}

// truncateText keeps the head (three quarters) and the tail of s within
// about limit bytes, with a marker saying what was cut.
func truncateText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	keep := max(limit-80, 0) // room for the marker
	head := cutUTF8(s, keep*3/4)
	tail := tailUTF8(s, keep-len(head))
	marker := fmt.Sprintf("\n\n[… %d of %d bytes cut here to fit the context window …]\n\n", len(s)-len(head)-len(tail), len(s))
	return head + marker + tail
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailUTF8 returns the longest suffix of s of at most n bytes that does
// not split a character.
func tailUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// RecoverOverflow is the ContextGuard, called after the server rejected
// the last request as too long. The server's window is evidently smaller
// than believed, so every attempt first lowers the effective window to 90%
// of the rejected request. Attempt 1 then cuts oversized tool results down
// in memory (head and tail kept, the session file keeps them whole);
// attempt 2 compacts; from attempt 3 on it returns false: the caller stops
// with an error and the session stays resumable.
func (m *Manager) RecoverOverflow(ctx context.Context, attempt int) (bool, error) {
	if attempt >= 3 {
		return false, nil
	}
	rejected := m.sent.tokens
	if !m.sent.ok || rejected == 0 {
		rejected = m.requestTokens(exact)
	}
	if w := max(int(0.9*float64(rejected)), minEffectiveWindow); w < m.window {
		m.window = w
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
		m.notify("truncated", "the server rejected the request as too long; cut %d oversized tool results down and lowered the window estimate to %d tokens", n, m.window)
		return true, nil
	}
	m.notify("warning", "the server still rejects the request as too long; compacting")
	_, err := m.compact(ctx, storage.TriggerAuto, "")
	if errors.Is(err, ErrNothingToCompact) {
		m.shrinkToFit(m.trigger() - 1)
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("compact after overflow: %w", err)
	}
	return true, nil
}

// shrinkToFit cuts long texts of the live context down in memory until the
// request fits target tokens (or nothing more can be cut).
func (m *Manager) shrinkToFit(target int) {
	over := m.requestTokens(exact) - target
	if over <= 0 {
		return
	}
	if n := m.truncateEntries(m.entries, m.sizeOf(m.entries)-over); n > 0 {
		m.notify("truncated", "cut %d long texts down in memory to fit the context window", n)
	}
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
	e.trunc = &t
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

package contextmgr

import (
	"strings"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// truncateEntries cuts the longest texts of es until they weigh at most
// target tokens: tool results first, then user and assistant text, each
// time halving the bytes a text may keep. It returns how many were cut.
func (a *accountant) truncateEntries(es []*entry, target int) int {
	cut := map[*entry]bool{}
	total := a.sizeOf(es)
	for _, results := range []bool{true, false} {
		for limit := 32 << 10; total > target && limit >= 256; limit /= 2 {
			for _, e := range es {
				if (e.rec.Type == storage.TypeToolResult) != results {
					continue
				}
				if a.truncateEntry(e, limit) {
					cut[e] = true
				}
			}
			total = a.sizeOf(es)
		}
	}
	if len(cut) > 0 {
		a.invalidate()
	}
	return len(cut)
}

// truncateEntry makes e send its text cut to at most limit bytes (from the
// text held, so repeated cuts do not stack markers). It reports whether
// e's text is now cut.
func (a *accountant) truncateEntry(e *entry, limit int) bool {
	if e.cleared != "" {
		return true // a stub is as short as it gets
	}
	if e.trunc != nil && len(sentText(e.trunc)) <= limit {
		return true
	}
	t, ok := cutRecord(e.rec, limit)
	if !ok {
		return e.trunc != nil || e.clip > 0
	}
	e.trunc, e.truncLimit = t, limit
	a.resized(e)
	return true
}

// fullText is the text of r that a cut shortens ("" for records without
// one).
func fullText(r *storage.Record) string {
	switch {
	case r.Type == storage.TypeToolResult && r.ToolResult != nil:
		return r.ToolResult.Output
	case (r.Type == storage.TypeUser || r.Type == storage.TypeAssistant) && r.Message != nil:
		return r.Message.Content
	}
	return ""
}

// cutRecord is a copy of r with its text cut to at most limit bytes; ok is
// false when r has no text that long. The cut text ends with the Recall
// call that reads the whole (toolcall.RecallWhole): the session file keeps
// it, and the model can read it a part at a time.
func cutRecord(r *storage.Record, limit int) (*storage.Record, bool) {
	full := fullText(r)
	if len(full) <= limit {
		return nil, false
	}
	t := *r
	short := truncateText(full, limit)
	if r.UUID != "" {
		note := " " + toolcall.RecallWhole(r.UUID, "")
		short = truncateNoted(full, max(0, limit-len(note)), note)
	}
	if r.Type == storage.TypeToolResult {
		tr := *r.ToolResult
		tr.Output = short
		t.ToolResult = &tr
	} else {
		msg := *r.Message
		msg.Content = short
		t.Message = &msg
	}
	return &t, true
}

func sentText(r *storage.Record) string {
	if r.ToolResult != nil {
		return r.ToolResult.Output
	}
	return messageContent(r)
}

// truncateText keeps the head (three quarters) and the tail of s within
// about limit bytes, with chat.OmissionMarker saying what was cut.
func truncateText(s string, limit int) string {
	return truncateNoted(s, limit, "")
}

// truncateNoted is truncateText with note after the marker.
func truncateNoted(s string, limit int, note string) string {
	head, rest := truncatedParts(s, limit, note)
	return head + rest
}

// truncatedParts is truncateNoted's text in two parts: the head it keeps
// of s (a part of s itself, not a copy) and the rest, the marker and the
// tail kept (all of s and "" when s is within limit).
func truncatedParts(s string, limit int, note string) (head, rest string) {
	if len(s) <= limit {
		return s, ""
	}
	keep := max(limit-64, 0) // room for the marker
	head = cutUTF8(s, keep*3/4)
	tail := tailUTF8(s, keep-len(head))
	cut := s[len(head) : len(s)-len(tail)]
	return head, "\n" + chat.OmissionMarker(len(cut), strings.Count(cut, "\n")) + note + "\n" + tail
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

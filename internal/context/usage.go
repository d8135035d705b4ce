package contextmgr

import (
	"fmt"
	"strings"
)

// Usage is the context usage shown by /context and the JSON result.
type Usage struct {
	Tokens, Window int // the next request's size; the effective window
	Threshold      float64
	Trigger        int // the request size at which auto-compaction fires
	System, Tools  int
	Summary        int
	Messages       int
}

// Usage is the size of the next request, broken down by part. It never
// loads the tokenizer (front ends call it after every turn): parts counted
// exactly are exact, the rest is the fast estimate. When the server has
// reported the size of a recent request, Tokens is that figure plus what
// came after, and the messages line absorbs the difference between the two
// ways of counting.
func (m *Manager) Usage() Usage {
	u := Usage{
		Tokens:    m.requestTokens(estimate),
		Window:    m.window,
		Threshold: m.opt.Threshold,
		Trigger:   m.trigger(),
		System:    m.partSize(&m.system, estimate),
		Tools:     m.partSize(&m.tools, estimate),
	}
	if m.summary != nil {
		u.Summary = m.size(m.summary, estimate)
	}
	u.Messages = max(u.Tokens-u.System-u.Tools-u.Summary, 0)
	return u
}

const barCells = 30

// FormatContext renders u for /context.
func FormatContext(u Usage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Context usage: ~%d / %d tokens (%d%%)\n", u.Tokens, u.Window, percent(u.Tokens, u.Window))
	filled := min(barCells, u.Tokens*barCells/max(u.Window, 1))
	mark := min(barCells-1, u.Trigger*barCells/max(u.Window, 1))
	b.WriteString("[")
	for i := range barCells {
		switch {
		case i < filled:
			b.WriteString("█")
		case i == mark:
			b.WriteString("|")
		default:
			b.WriteString("░")
		}
	}
	b.WriteString("]\n")
	for _, row := range []struct {
		name string
		n    int
	}{{"system prompt", u.System}, {"tools", u.Tools}, {"summary", u.Summary}, {"messages", u.Messages}} {
		fmt.Fprintf(&b, "  %-14s %7d tokens (%d%%)\n", row.name, row.n, percent(row.n, u.Window))
	}
	if away := u.Trigger - u.Tokens; away > 0 {
		fmt.Fprintf(&b, "auto-compaction at %d tokens (%d%% / %d tokens away)\n", u.Trigger, percent(u.Trigger, u.Window), away)
	} else {
		fmt.Fprintf(&b, "auto-compaction at %d tokens (%d%% / reached: the next request compacts first)\n", u.Trigger, percent(u.Trigger, u.Window))
	}
	return b.String()
}

// FormatCompact renders a compaction's outcome for /compact.
func FormatCompact(r *CompactResult) string {
	var b strings.Builder
	sign, change := "-", r.PreTokens-r.PostTokens
	if change < 0 {
		sign, change = "+", -change
	}
	fmt.Fprintf(&b, "Compacted: %d → %d tokens (%s%d%%)\n", r.PreTokens, r.PostTokens, sign, percent(change, r.PreTokens))
	if len(r.Files) > 0 {
		fmt.Fprintf(&b, "Files included: %s\n", strings.Join(r.Files, ", "))
	} else {
		b.WriteString("Files included: none\n")
	}
	if r.Fallback {
		fmt.Fprintf(&b, "(fallback: summary failed: %s)\n", r.Err)
	}
	return b.String()
}

// ContextLeft is the share of the way to the auto-compaction trigger that
// is still free, in percent (for the REPL's "context left until
// auto-compact: P%" hint). It uses only counts already made: cheap enough
// for every prompt.
func (m *Manager) ContextLeft() int {
	t := m.trigger()
	return max(0, percent(t-m.requestTokens(estimate), t))
}

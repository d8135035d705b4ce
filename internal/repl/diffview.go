package repl

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 3

// diffView is a unified diff of one file laid out for the terminal: a
// line number, a +/- mark and the text of each line, hunks separated by
// an ellipsis. The numbers are the new file's for kept and added lines and
// the old file's for removed ones, so each line can be found in its file.
type diffView struct {
	lines            []string // the rows unwrapped: render(0)
	rows             []diffRow
	numWidth         int
	cs               colorScheme
	added, removed   int
	identical, isNew bool
}

// diffRow is one line of a diff: its number, its mark ('+', '-', ' ', or
// 0 for the ellipsis between hunks) and its text, made safe.
type diffRow struct {
	num  int
	mark byte
	text string
}

// newDiffView diffs before → after (isNew: there was no file before).
func newDiffView(before, after string, isNew bool, cs colorScheme) diffView {
	v := diffView{isNew: isNew, cs: cs}
	if before == after {
		v.identical = true
		return v
	}
	edits := udiff.Lines(before, after)
	u, err := udiff.ToUnifiedDiff("a", "b", before, edits, diffContext)
	if err != nil {
		// Only malformed edits fail, which Lines never makes; say what is known.
		v.lines = []string{cs.err("(diff unavailable: " + err.Error() + ")")}
		return v
	}
	width := 1
	for _, h := range u.Hunks {
		width = max(width, len(fmt.Sprint(h.ToLine+len(h.Lines))))
	}
	v.numWidth = width
	for i, h := range u.Hunks {
		if i > 0 {
			v.rows = append(v.rows, diffRow{})
		}
		oldN, newN := h.FromLine, h.ToLine
		for _, l := range h.Lines {
			// The content is the model's: shown, never obeyed, before
			// the diff's own colours are added.
			text := safe(strings.TrimRight(l.Content, "\r\n"))
			switch l.Kind {
			case udiff.Delete:
				v.rows = append(v.rows, diffRow{num: oldN, mark: '-', text: text})
				oldN++
				v.removed++
			case udiff.Insert:
				v.rows = append(v.rows, diffRow{num: newN, mark: '+', text: text})
				newN++
				v.added++
			default:
				v.rows = append(v.rows, diffRow{num: newN, mark: ' ', text: text})
				oldN++
				newN++
			}
		}
	}
	v.lines = v.render(0)
	return v
}

// render lays the rows out for width columns: a line longer than that
// wraps at words onto continuation rows marked ↪ in the number column,
// the +/- gutter kept, so a changed line is never cut (width 0: no wrap).
func (v diffView) render(width int) []string {
	if v.rows == nil {
		return v.lines
	}
	cs := v.cs
	green := func(s string) string { return cs.wrap(styleGreen, styleFgReset, s) }
	var out []string
	for _, r := range v.rows {
		if r.mark == 0 {
			out = append(out, cs.dim(strings.Repeat(" ", v.numWidth)+" ⋮"))
			continue
		}
		parts := []string{r.text}
		if room := width - v.numWidth - 3; width > 0 && visibleWidth(r.text) > room {
			parts = termtext.Wrap(r.text, room)
		}
		for i, part := range parts {
			num := fmt.Sprintf("%*d", v.numWidth, r.num)
			if i > 0 {
				num = fmt.Sprintf("%*s", v.numWidth, "↪")
			}
			switch r.mark {
			case '-':
				out = append(out, cs.err(num+" - "+part))
			case '+':
				out = append(out, green(num+" + "+part))
			default:
				out = append(out, cs.dim(num+"  ")+" "+part)
			}
		}
	}
	return out
}

// summary is "Added 3 lines, removed 1" (or what a new file holds).
func (v diffView) summary() string {
	switch {
	case v.identical:
		return "no changes"
	case v.isNew:
		return "Created with " + plural(v.added, "line")
	}
	var parts []string
	if v.added > 0 {
		parts = append(parts, "added "+plural(v.added, "line"))
	}
	if v.removed > 0 {
		parts = append(parts, "removed "+plural(v.removed, "line"))
	}
	s := strings.Join(parts, ", ")
	return strings.ToUpper(s[:1]) + s[1:]
}

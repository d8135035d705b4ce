package repl

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 3

// diffView is a unified diff of one file laid out for the terminal: a
// line number, a +/- mark and the text of each line, hunks separated by
// an ellipsis. The numbers are the new file's for kept and added lines and
// the old file's for removed ones, so each line can be found in its file.
type diffView struct {
	lines            []string
	added, removed   int
	identical, isNew bool
}

// newDiffView diffs before → after (isNew: there was no file before).
func newDiffView(before, after string, isNew bool, cs colorScheme) diffView {
	v := diffView{isNew: isNew}
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
	green := func(s string) string { return cs.wrap(styleGreen, styleFgReset, s) }
	for i, h := range u.Hunks {
		if i > 0 {
			v.lines = append(v.lines, cs.dim(strings.Repeat(" ", width)+" ⋮"))
		}
		oldN, newN := h.FromLine, h.ToLine
		for _, l := range h.Lines {
			// The content is the model's: shown, never obeyed, before
			// the diff's own colours are added.
			text := safe(strings.TrimRight(l.Content, "\r\n"))
			switch l.Kind {
			case udiff.Delete:
				v.lines = append(v.lines, cs.err(fmt.Sprintf("%*d - %s", width, oldN, text)))
				oldN++
				v.removed++
			case udiff.Insert:
				v.lines = append(v.lines, green(fmt.Sprintf("%*d + %s", width, newN, text)))
				newN++
				v.added++
			default:
				v.lines = append(v.lines, cs.dim(fmt.Sprintf("%*d  ", width, newN))+" "+text)
				oldN++
				newN++
			}
		}
	}
	return v
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

package repl

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// pickItem is one entry of a picker.
type pickItem struct {
	label  string // the line shown
	detail string // dim, after the label (e.g. "3 min ago · 12 messages")
	match  string // what typing filters on, besides label
	// preview gives the lines shown under the list for the highlighted
	// item; nil shows none. Called only for the highlighted item.
	preview func() []string
}

// pickerRows is how many items a picker lists at once.
const pickerRows = 8

// picker is an interactive list on a terminal: arrows (or Ctrl-P/N) move,
// typing filters, Enter picks, Esc or Ctrl-C cancels. It draws in place
// under a title and erases itself when done. Reusable by any command that
// needs the user to choose one of many (sessions, messages to rewind to).
type picker struct {
	con   *console
	w     io.Writer
	cs    colorScheme
	title string
	items []pickItem
	// search, when set, returns the indexes of items whose content
	// matches query beyond their label and match text (e.g. a full-text
	// search of the sessions); nil filters on label and match only.
	search func(query string) map[int]bool
	// numbered: the items are numbered 1-9 and a digit typed into an
	// empty filter picks that item, as in the permission dialog (one key
	// model across dialogs).
	numbered bool
}

// run returns the index of the chosen item, or -1 when cancelled.
func (p *picker) run(ctx context.Context) (int, error) {
	p.con.kb.beginDialog()
	defer p.con.kb.endDialog()
	var query []rune
	sel, top, drawn := 0, 0, 0
	shown := p.filter("")
	previews := map[int][]string{}
	erase := func() {
		if drawn > 0 {
			fmt.Fprintf(p.w, "\x1b[%dA\r\x1b[J", drawn)
			drawn = 0
		}
	}
	draw := func() {
		width := 80
		if p.con.width != nil {
			width = p.con.width()
		}
		var lines []string
		lines = append(lines, p.cs.bold(clipWidth(p.title, width-1)))
		lines = append(lines, clipWidth("  filter: "+string(query), width-1)+p.cs.dim("▏"))
		if len(shown) == 0 {
			lines = append(lines, p.cs.dim("  (nothing matches)"))
		}
		sel = min(max(sel, 0), max(len(shown)-1, 0))
		if sel < top {
			top = sel
		}
		if sel >= top+pickerRows {
			top = sel - pickerRows + 1
		}
		for i := top; i < min(len(shown), top+pickerRows); i++ {
			it := p.items[shown[i]]
			text := clipWidth(it.label, max(width-6-visibleWidth(it.detail)-2, 10))
			line := text + "  " + p.cs.dim(it.detail)
			if i == sel {
				lines = append(lines, "  "+p.cs.wrap(styleCode, styleFgReset, "❯ ")+clipStyled(line, width-5))
			} else {
				lines = append(lines, "    "+clipStyled(line, width-5))
			}
		}
		if len(shown) > top+pickerRows {
			lines = append(lines, p.cs.dim(fmt.Sprintf("    … %d more", len(shown)-top-pickerRows)))
		}
		if len(shown) > 0 {
			lines = append(lines, p.previewOf(shown[sel], previews, width)...)
		}
		lines = append(lines, p.cs.dim(clipWidth(p.hint(), width-1)))
		erase()
		io.WriteString(p.w, strings.Join(lines, "\n")+"\n")
		drawn = len(lines)
	}
	draw()
	for {
		k, err := p.con.kb.next(ctx)
		if err != nil {
			erase()
			if err == io.EOF {
				return -1, nil
			}
			return -1, err
		}
		switch {
		case k.kind == keyUp || k.kind == keyCtrl && k.r == 'p':
			sel--
		case k.kind == keyDown || k.kind == keyCtrl && k.r == 'n' || k.kind == keyTab:
			sel++
		case k.kind == keyEnter:
			erase()
			if len(shown) == 0 {
				return -1, nil
			}
			return shown[sel], nil
		case k.kind == keyEsc || k.kind == keyCtrl && (k.r == 'c' || k.r == 'g'):
			erase()
			return -1, nil
		case k.kind == keyBackspace:
			if len(query) > 0 {
				query = query[:len(query)-1]
				shown, sel, top = p.filter(string(query)), 0, 0
			}
		case k.kind == keyRune && p.digitPick(k.r, len(query)) >= 0:
			erase()
			return p.digitPick(k.r, len(query)), nil
		case k.kind == keyRune:
			query = append(query, k.r)
			shown, sel, top = p.filter(string(query)), 0, 0
		case k.kind == keyPaste:
			query = append(query, []rune(strings.ReplaceAll(k.text, "\n", " "))...)
			shown, sel, top = p.filter(string(query)), 0, 0
		}
		draw()
	}
}

// previewOf is the preview under the list for item idx (none without
// one), made once per item and kept in made.
func (p *picker) previewOf(idx int, made map[int][]string, width int) []string {
	if p.items[idx].preview == nil {
		return nil
	}
	pv, ok := made[idx]
	if !ok {
		pv = p.items[idx].preview()
		made[idx] = pv
	}
	if len(pv) == 0 {
		return nil
	}
	lines := []string{p.cs.dim("  ─── preview " + strings.Repeat("─", max(width-16, 0)))}
	for _, l := range pv {
		lines = append(lines, "  "+clipStyled(l, width-3))
	}
	return lines
}

// hint is the keys line under the list.
func (p *picker) hint() string {
	if p.numbered {
		return "  ↑↓ move · 1-" + fmt.Sprint(len(p.items)) + " or enter pick · type to filter · esc cancel"
	}
	return "  ↑↓ move · type to filter · enter pick · esc cancel"
}

// digitPick is the item a digit picks in a numbered picker whose filter is
// empty (typed: its length), or -1.
func (p *picker) digitPick(r rune, typed int) int {
	if !p.numbered || typed > 0 || r < '1' || r > '9' || int(r-'1') >= len(p.items) {
		return -1
	}
	return int(r - '1')
}

// filter returns the items matching every word of query, in order.
func (p *picker) filter(query string) []int {
	words := strings.Fields(strings.ToLower(query))
	var extra map[int]bool
	if p.search != nil && len(strings.TrimSpace(query)) >= 3 { // shorter matches nearly everything
		extra = p.search(query)
	}
	var out []int
	for i, it := range p.items {
		hay := strings.ToLower(it.label + " " + it.match)
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok || extra[i] {
			out = append(out, i)
		}
	}
	return out
}

// relativeTime says how long ago t was, as people say it.
func relativeTime(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	case d < 7*24*time.Hour:
		if int(d/(24*time.Hour)) == 1 {
			return "yesterday"
		}
		return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
	}
	return t.Local().Format("2 Jan 2006")
}

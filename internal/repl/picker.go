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
	// body, when set, gives lines shown under the label of the item
	// wherever it is listed, made for width columns (wrapped at words:
	// a search hit's snippet). The label and detail of such an item are
	// wrapped too, never cut.
	body func(width int) []string
}

// pickerRows is how many items a picker lists at once.
const pickerRows = 8

// picker is an interactive list on a terminal: arrows (or Ctrl-P/N) move,
// typing filters, Enter picks, Esc or Ctrl-C cancels. It draws in place
// under a title and erases itself when done. Reusable by any command that
// needs the user to choose one of many (sessions, messages to rewind to,
// search hits).
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
	// numbered: the first nine items are numbered and a digit typed into
	// an empty filter picks that item, as in the permission dialog (one
	// key model across dialogs).
	numbered bool
}

// pickState is a running picker's state: the filter typed, the items it
// lets through, the highlighted one, the first one listed, and how many
// rows the last draw took.
type pickState struct {
	query           []rune
	shown           []int
	sel, top, drawn int
	previews        map[int][]string
}

// run returns the index of the chosen item, or -1 when cancelled.
func (p *picker) run(ctx context.Context) (int, error) {
	p.con.kb.beginDialog()
	defer p.con.kb.endDialog()
	st := &pickState{shown: p.filter(""), previews: map[int][]string{}}
	p.draw(st)
	for {
		k, err := p.con.kb.next(ctx)
		if err != nil {
			p.erase(st)
			if err == io.EOF {
				return -1, nil
			}
			return -1, err
		}
		if i, done := p.key(st, k); done {
			p.erase(st)
			return i, nil
		}
		p.draw(st)
	}
}

// key applies k to st; done, with the item chosen (-1 for none), when k
// ends the picker.
func (p *picker) key(st *pickState, k key) (chosen int, done bool) {
	switch {
	case k.kind == keyUp || k.kind == keyCtrl && k.r == 'p':
		st.sel--
	case k.kind == keyDown || k.kind == keyCtrl && k.r == 'n' || k.kind == keyTab:
		st.sel++
	case k.kind == keyEnter:
		if len(st.shown) == 0 {
			return -1, true
		}
		return st.shown[st.sel], true
	case k.kind == keyEsc || k.kind == keyCtrl && (k.r == 'c' || k.r == 'g'):
		return -1, true
	case k.kind == keyBackspace:
		if len(st.query) > 0 {
			p.setQuery(st, st.query[:len(st.query)-1])
		}
	case k.kind == keyRune && p.digitPick(k.r, len(st.query)) >= 0:
		return p.digitPick(k.r, len(st.query)), true
	case k.kind == keyRune:
		p.setQuery(st, append(st.query, k.r))
	case k.kind == keyPaste:
		p.setQuery(st, append(st.query, []rune(strings.ReplaceAll(k.text, "\n", " "))...))
	}
	return 0, false
}

// setQuery filters the items anew on query, the first one highlighted.
func (p *picker) setQuery(st *pickState, query []rune) {
	st.query = query
	st.shown, st.sel, st.top = p.filter(string(query)), 0, 0
}

func (p *picker) erase(st *pickState) {
	if st.drawn > 0 {
		fmt.Fprintf(p.w, "\x1b[%dA\r\x1b[J", st.drawn)
		st.drawn = 0
	}
}

func (p *picker) width() int {
	if p.con.width != nil {
		return p.con.width()
	}
	return 80
}

// draw replaces what the last draw showed: the title, the filter, the
// items that fit, the highlighted one's preview and the keys.
func (p *picker) draw(st *pickState) {
	width := p.width()
	var lines []string
	for _, l := range wrapWidth(p.title, width-1) {
		lines = append(lines, p.cs.bold(l))
	}
	lines = append(lines, clipWidth("  filter: "+string(st.query), width-1)+p.cs.dim("▏"))
	if len(st.shown) == 0 {
		lines = append(lines, p.cs.dim("  (nothing matches)"))
	}
	st.sel = min(max(st.sel, 0), max(len(st.shown)-1, 0))
	first, end := p.window(st, width)
	for i := first; i < end; i++ {
		lines = append(lines, p.itemLines(p.items[st.shown[i]], i == st.sel, width)...)
	}
	if len(st.shown) > end {
		lines = append(lines, p.cs.dim(fmt.Sprintf("    … %d more", len(st.shown)-end)))
	}
	if len(st.shown) > 0 {
		lines = append(lines, p.previewOf(st.shown[st.sel], st.previews, width)...)
	}
	for _, l := range wrapWidth(p.hint(), width-3) {
		lines = append(lines, p.cs.dim("  "+l))
	}
	p.erase(st)
	io.WriteString(p.w, strings.Join(lines, "\n")+"\n")
	st.drawn = len(lines)
}

// window is the range of st.shown listed: from st.top as many items as
// the picker's rows hold (one at least), st.top moved so that the
// highlighted item is among them.
func (p *picker) window(st *pickState, width int) (first, end int) {
	st.top = min(st.top, st.sel)
	rows := p.rows()
	for {
		used, end := 0, st.top
		for end < len(st.shown) {
			h := len(p.itemLines(p.items[st.shown[end]], false, width))
			if end > st.top && used+h > rows {
				break
			}
			used, end = used+h, end+1
		}
		if st.sel < end || end == len(st.shown) {
			return st.top, end
		}
		st.top++
	}
}

// rows is how many rows the items may take: pickerRows one-line items,
// or, for items with a body, what the terminal's height leaves beside
// the title, the filter and the keys.
func (p *picker) rows() int {
	if len(p.items) == 0 || p.items[0].body == nil {
		return pickerRows
	}
	if p.con.height == nil {
		return 2 * pickerRows
	}
	return max(p.con.height()-8, 4)
}

// itemLines is how an item is listed: one line, cut to the width, or,
// with a body, its label and detail wrapped and the body under them.
func (p *picker) itemLines(it pickItem, selected bool, width int) []string {
	lead := "    "
	if selected {
		lead = "  " + p.cs.wrap(styleCode, styleFgReset, "❯ ")
	}
	if it.body == nil {
		text := clipWidth(it.label, max(width-6-visibleWidth(it.detail)-2, 10))
		return []string{lead + clipStyled(text+"  "+p.cs.dim(it.detail), width-5)}
	}
	cols := width - 5
	head := wrapWidth(it.label, cols)
	if last := head[len(head)-1]; visibleWidth(last)+2+visibleWidth(it.detail) <= cols {
		head[len(head)-1] = last + "  " + p.cs.dim(it.detail)
	} else {
		for _, l := range wrapWidth(it.detail, cols) {
			head = append(head, p.cs.dim(l))
		}
	}
	lines := []string{lead + head[0]}
	for _, l := range head[1:] {
		lines = append(lines, "    "+l)
	}
	for _, l := range it.body(cols - 2) {
		lines = append(lines, "      "+l)
	}
	return lines
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
		return "↑↓ move · 1-" + fmt.Sprint(min(len(p.items), 9)) + " or enter pick · type to filter · esc cancel"
	}
	return "↑↓ move · type to filter · enter pick · esc cancel"
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

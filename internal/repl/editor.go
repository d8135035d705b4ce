package repl

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// pasteCollapse: a paste with more lines than this (or more bytes than
// pasteCollapseBytes) is shown as one "[pasted N lines]" chip in the entry
// and sent in full.
const (
	pasteCollapse      = 4
	pasteCollapseBytes = 800
)

// pasteBase is the first of the private-use runes that stand for
// collapsed pastes in the entry being edited.
const pasteBase = 0xF0000

// editor is the multi-line entry editor of a terminal REPL. Enter submits;
// Shift-Enter (where the terminal reports it), Alt-Enter, Ctrl-J and a
// trailing backslash insert a newline; a bracketed paste is inserted whole
// and never submits. Up and Down walk the history from the first and last
// line (as Ctrl-P and Ctrl-N do: editKeys), Ctrl-R searches it, Tab
// completes. It redraws the entry (and the
// status line under it) in place on every key, so its rows are known and
// the output that follows starts cleanly below.
type editor struct {
	w        io.Writer
	kb       *keyboard
	width    func() int
	status   func(width int) string // the status line under the entry; nil: none
	complete func(text string, pos int) (start int, items []string)
	// onKey binds Ctrl+letter keys to actions that print above the entry
	// (Ctrl-O: the last tool output in full); the entry is redrawn after.
	onKey map[rune]func()
	// backTab is Shift-Tab: the next permission mode, which the status
	// line shows when the entry is redrawn; nil: the key does nothing.
	backTab func()
	// clipImage is Ctrl-V: the entry text that attaches the clipboard's
	// image, or why there is none (shown under the entry); nil: the key
	// does nothing.
	clipImage func() (string, error)
	cs        colorScheme

	hist []string // oldest first

	buf    []rune
	pos    int
	pastes map[rune]string
	prompt string
	hint   string // completion candidates or a note, shown under the entry

	// draftNext is what the next read starts with instead of an empty
	// entry (a rewound message), once.
	draftNext string

	// histAt is the history entry shown (len(hist): the draft being typed),
	// draft what was typed before Up or Ctrl-P left it.
	histAt int
	draft  string

	searching bool
	query     []rune
	found     int // index in hist of the current search match, -1 none

	cursorRow int // the cursor's row below the first row of the last draw

	// escAt is when Esc was last pressed alone at the entry (escape).
	escAt time.Time
}

func newEditor(w io.Writer, kb *keyboard, width func() int, cs colorScheme) *editor {
	return &editor{w: w, kb: kb, width: width, cs: cs, pastes: map[rune]string{}}
}

func (e *editor) addHistory(line string) {
	if line == "" || (len(e.hist) > 0 && e.hist[len(e.hist)-1] == line) {
		return
	}
	e.hist = append(e.hist, line)
	if len(e.hist) > historyKeep {
		e.hist = e.hist[len(e.hist)-historyKeep:]
	}
}

// read edits one entry. On Ctrl-C it returns the half-typed text and
// errInterrupt; on Ctrl-D at an empty entry io.EOF. What each key does is
// the editKeys table's, so keys that mean the same (Up and Ctrl-P, Home
// and Ctrl-A, …) behave the same by construction.
func (e *editor) read(ctx context.Context, prompt string) (string, error) {
	e.buf, e.pos, e.prompt, e.hint = e.buf[:0], 0, prompt, ""
	clear(e.pastes)
	e.searching = false
	e.histAt, e.draft = len(e.hist), ""
	e.escAt = time.Time{}
	if e.draftNext != "" {
		e.set(e.draftNext)
		e.draftNext = ""
	}
	e.draw(false)
	for {
		k, err := e.kb.next(ctx)
		if err != nil {
			e.draw(true)
			if err == io.EOF && len(e.buf) > 0 {
				return e.text(), nil
			}
			return "", err
		}
		if k.kind == keyResize || (e.searching && e.searchKey(k)) {
			e.draw(false)
			continue
		}
		e.hint = ""
		if end := e.apply(k); end != nil {
			e.draw(true)
			return end.text, end.err
		}
		e.draw(false)
	}
}

// readEnd is how a key ends read: with the entry's text, or with an error
// (errInterrupt, io.EOF).
type readEnd struct {
	text string
	err  error
}

// editAction is what one key does to the entry; a non-nil readEnd ends
// the read.
type editAction func(e *editor, k key) *readEnd

// binding names a key in editKeys: its kind, and for Ctrl keys the letter.
type binding struct {
	kind keyKind
	r    rune
}

func bindingOf(k key) binding {
	if k.kind == keyCtrl {
		return binding{keyCtrl, k.r}
	}
	return binding{kind: k.kind}
}

// editKeys is the editor's key map. Ctrl letters bound through onKey (Ctrl-O)
// come first; a key missing here does nothing.
var editKeys = map[binding]editAction{
	{kind: keyRune}:      func(e *editor, k key) *readEnd { e.insert(string(k.r)); return nil },
	{kind: keyNewline}:   func(e *editor, _ key) *readEnd { e.insert("\n"); return nil },
	{kind: keyPaste}:     func(e *editor, k key) *readEnd { e.paste(k.text); return nil },
	{kind: keyEnter}:     (*editor).submit,
	{kind: keyBackspace}: (*editor).backspace,
	{kind: keyDelete}:    (*editor).deleteChar,
	{kind: keyWordBack}:  (*editor).deleteWordBack,
	{kind: keyLeft}:      (*editor).charLeft,
	{keyCtrl, 'b'}:       (*editor).charLeft,
	{kind: keyRight}:     (*editor).charRight,
	{keyCtrl, 'f'}:       (*editor).charRight,
	{kind: keyWordLeft}:  func(e *editor, _ key) *readEnd { e.pos = e.wordStart(); return nil },
	{kind: keyWordRight}: func(e *editor, _ key) *readEnd { e.pos = e.wordEnd(); return nil },
	{kind: keyHome}:      (*editor).home,
	{keyCtrl, 'a'}:       (*editor).home,
	{kind: keyEnd}:       (*editor).end,
	{keyCtrl, 'e'}:       (*editor).end,
	{kind: keyUp}:        (*editor).up,
	{keyCtrl, 'p'}:       (*editor).up,
	{kind: keyDown}:      (*editor).down,
	{keyCtrl, 'n'}:       (*editor).down,
	{kind: keyTab}:       func(e *editor, _ key) *readEnd { e.tab(); return nil },
	{kind: keyBackTab}:   (*editor).shiftTab,
	{keyCtrl, 'c'}:       func(e *editor, _ key) *readEnd { return &readEnd{e.text(), errInterrupt} },
	{keyCtrl, 'd'}:       (*editor).eofOrDelete,
	{keyCtrl, 'k'}:       (*editor).killToLineEnd,
	{keyCtrl, 'u'}:       (*editor).killToLineStart,
	{keyCtrl, 'l'}:       (*editor).clearScreen,
	{keyCtrl, 'r'}:       (*editor).startSearch,
	{keyCtrl, 'v'}:       (*editor).pasteClipImage,
	{kind: keyEsc}:       (*editor).escape,
}

// apply runs the action bound to k.
func (e *editor) apply(k key) *readEnd {
	if k.kind == keyCtrl {
		if f := e.onKey[k.r]; f != nil {
			e.erase()
			f()
			return nil
		}
	}
	if act := editKeys[bindingOf(k)]; act != nil {
		return act(e, k)
	}
	return nil
}

// shiftTab is Shift-Tab: it switches the permission mode (backTab).
func (e *editor) shiftTab(key) *readEnd {
	if e.backTab != nil {
		e.backTab()
	}
	return nil
}

// submit is Enter: it sends the entry, except after a trailing backslash,
// which it turns into a newline.
func (e *editor) submit(key) *readEnd {
	if e.pos == len(e.buf) && e.pos > 0 && e.buf[e.pos-1] == '\\' {
		e.buf = e.buf[:e.pos-1]
		e.pos--
		e.insert("\n")
		return nil
	}
	return &readEnd{text: e.text()}
}

func (e *editor) backspace(key) *readEnd {
	if e.pos > 0 {
		e.buf = append(e.buf[:e.pos-1], e.buf[e.pos:]...)
		e.pos--
	}
	return nil
}

func (e *editor) deleteChar(key) *readEnd { e.deleteForward(); return nil }

func (e *editor) deleteWordBack(key) *readEnd {
	start := e.wordStart()
	e.buf = append(e.buf[:start], e.buf[e.pos:]...)
	e.pos = start
	return nil
}

func (e *editor) charLeft(key) *readEnd  { e.pos = max(e.pos-1, 0); return nil }
func (e *editor) charRight(key) *readEnd { e.pos = min(e.pos+1, len(e.buf)); return nil }
func (e *editor) home(key) *readEnd      { e.pos = e.lineStart(); return nil }
func (e *editor) end(key) *readEnd       { e.pos = e.lineEnd(); return nil }

// up moves to the line above in a multi-line entry; from its first line it
// recalls the previous history entry, keeping the half-typed draft for
// down to bring back.
func (e *editor) up(key) *readEnd {
	switch {
	case e.lineStart() > 0:
		e.moveLine(-1)
	case e.histAt > 0:
		if e.histAt == len(e.hist) {
			e.draft = string(e.buf)
		}
		e.histAt--
		e.set(e.hist[e.histAt])
	}
	return nil
}

// down moves to the line below; from the last line it recalls the next
// history entry, and past the newest the draft up left.
func (e *editor) down(key) *readEnd {
	switch {
	case e.lineEnd() < len(e.buf):
		e.moveLine(1)
	case e.histAt < len(e.hist):
		e.histAt++
		if e.histAt == len(e.hist) {
			e.set(e.draft)
		} else {
			e.set(e.hist[e.histAt])
		}
	}
	return nil
}

// eofOrDelete is Ctrl-D: the end of input at an empty entry, else a
// forward delete.
func (e *editor) eofOrDelete(key) *readEnd {
	if len(e.buf) == 0 {
		return &readEnd{err: io.EOF}
	}
	e.deleteForward()
	return nil
}

func (e *editor) killToLineEnd(key) *readEnd {
	end := e.lineEnd()
	if end == e.pos && end < len(e.buf) {
		end++ // at a line's end, join the next line
	}
	e.buf = append(e.buf[:e.pos], e.buf[end:]...)
	return nil
}

func (e *editor) killToLineStart(key) *readEnd {
	start := e.lineStart()
	e.buf = append(e.buf[:start], e.buf[e.pos:]...)
	e.pos = start
	return nil
}

// clearScreen is Ctrl-L. The entry goes on the second row: an erase from
// the very top-left is a clear screen to tmux, which would push every
// redraw into its scrollback.
func (e *editor) clearScreen(key) *readEnd {
	fmt.Fprint(e.w, "\x1b[H\x1b[2J\r\n")
	e.cursorRow = 0
	return nil
}

func (e *editor) startSearch(key) *readEnd {
	e.searching, e.query, e.found = true, e.query[:0], len(e.hist)
	e.search(false)
	return nil
}

// text is the entry as it is sent: collapsed pastes expanded.
func (e *editor) text() string {
	var b strings.Builder
	for _, r := range e.buf {
		if p, ok := e.pastes[r]; ok {
			b.WriteString(p)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shown is the entry as the user saw it (collapsed pastes as their chips),
// which is what the history keeps.
func (e *editor) shown() string {
	var b strings.Builder
	for _, r := range e.buf {
		if _, ok := e.pastes[r]; ok {
			b.WriteString(e.chip(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (e *editor) set(s string) {
	e.buf = append(e.buf[:0], []rune(s)...)
	e.pos = len(e.buf)
}

func (e *editor) insert(s string) {
	rs := []rune(s)
	e.buf = append(e.buf[:e.pos], append(rs, e.buf[e.pos:]...)...)
	e.pos += len(rs)
}

func (e *editor) paste(text string) {
	if at, ok := droppedImage(text); ok {
		e.insert(at)
		return
	}
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	if lines <= pasteCollapse && len(text) <= pasteCollapseBytes {
		e.insert(strings.Map(pasteRune, text))
		return
	}
	r := rune(pasteBase + len(e.pastes))
	e.pastes[r] = text
	e.insert(string(r))
}

// pasteRune drops control characters from a short paste (a tab becomes
// spaces' worth of one space) so the entry holds only what is visible.
func pasteRune(r rune) rune {
	switch {
	case r == '\n':
		return r
	case r == '\t':
		return ' '
	case unicode.IsControl(r):
		return -1
	}
	return r
}

func (e *editor) chip(r rune) string {
	p := e.pastes[r]
	n := strings.Count(strings.TrimRight(p, "\n"), "\n") + 1
	if n == 1 {
		return fmt.Sprintf("[pasted %d chars]", len([]rune(p)))
	}
	return fmt.Sprintf("[pasted %d lines]", n)
}

func (e *editor) deleteForward() {
	if e.pos < len(e.buf) {
		e.buf = append(e.buf[:e.pos], e.buf[e.pos+1:]...)
	}
}

func (e *editor) lineStart() int {
	i := e.pos
	for i > 0 && e.buf[i-1] != '\n' {
		i--
	}
	return i
}

func (e *editor) lineEnd() int {
	i := e.pos
	for i < len(e.buf) && e.buf[i] != '\n' {
		i++
	}
	return i
}

func (e *editor) wordStart() int {
	i := e.pos
	for i > 0 && unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	return i
}

func (e *editor) wordEnd() int {
	i := e.pos
	for i < len(e.buf) && unicode.IsSpace(e.buf[i]) {
		i++
	}
	for i < len(e.buf) && !unicode.IsSpace(e.buf[i]) {
		i++
	}
	return i
}

// moveLine moves the cursor to the same column of the previous (-1) or
// next (+1) line.
func (e *editor) moveLine(dir int) {
	col := e.pos - e.lineStart()
	if dir < 0 {
		e.pos = e.lineStart() - 1 // end of the previous line
		start := e.lineStart()
		e.pos = min(start+col, e.pos)
		return
	}
	e.pos = e.lineEnd() + 1
	end := e.lineEnd()
	e.pos = min(e.pos+col, end)
}

func (e *editor) tab() {
	if e.complete == nil {
		return
	}
	text := string(e.buf[:e.pos])
	start, items := e.complete(text, e.pos)
	if len(items) == 0 {
		return
	}
	typed := []rune(text)[start:]
	common := []rune(items[0])
	for _, it := range items[1:] {
		common = commonPrefix(common, []rune(it))
	}
	if len(common) > len(typed) {
		e.buf = append(e.buf[:start], append(append([]rune(nil), common...), e.buf[e.pos:]...)...)
		e.pos = start + len(common)
	}
	if len(items) > 1 {
		e.hint = strings.Join(items, "  ")
	}
}

func commonPrefix(a, b []rune) []rune {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// searchKey handles a key during Ctrl-R; false hands it on to the editor
// (the search ends and the match stays in the entry).
func (e *editor) searchKey(k key) bool {
	switch {
	case k.kind == keyRune:
		e.query = append(e.query, k.r)
		e.search(true)
		return true
	case k.kind == keyBackspace:
		if len(e.query) > 0 {
			e.query = e.query[:len(e.query)-1]
		}
		e.search(true)
		return true
	case k.kind == keyCtrl && k.r == 'r':
		e.search(false)
		return true
	case k.kind == keyEsc || k.kind == keyCtrl && k.r == 'g':
		e.searching = false
		e.buf, e.pos = e.buf[:0], 0
		e.hint = ""
		return true
	}
	e.searching = false
	e.hint = ""
	return k.kind == keyEnter // Enter takes the match without sending it
}

// search finds the newest history entry containing the query, starting at
// the current match (again: the current one qualifies) or before it.
func (e *editor) search(again bool) {
	from := e.found - 1
	if again {
		from = min(e.found, len(e.hist)-1)
	}
	q := strings.ToLower(string(e.query))
	for i := from; i >= 0; i-- {
		if strings.Contains(strings.ToLower(e.hist[i]), q) {
			e.found = i
			e.set(e.hist[i])
			e.hint = "reverse search: " + string(e.query)
			return
		}
	}
	e.hint = "reverse search: " + string(e.query) + "  (no match)"
}

// erase removes the entry's rows from the screen, leaving the cursor where
// they began, so that something can be printed there; the next draw puts
// the entry back under it.
func (e *editor) erase() {
	if e.cursorRow > 0 {
		fmt.Fprintf(e.w, "\x1b[%dA", e.cursorRow)
	}
	io.WriteString(e.w, "\r\x1b[J")
	e.cursorRow = 0
}

// draw redraws the entry in place; final draws it without the status and
// hint lines and leaves the cursor on the line after it.
func (e *editor) draw(final bool) {
	width := max(e.width(), 8)
	rows, crow, ccol := e.layout(width)
	var b strings.Builder
	if e.cursorRow > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", e.cursorRow)
	}
	b.WriteString("\r\x1b[J")
	b.WriteString(strings.Join(rows, "\r\n"))
	last := len(rows) - 1
	if final {
		// What was sent stays broken at words.
		b.Reset()
		if e.cursorRow > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", e.cursorRow)
		}
		b.WriteString("\r\x1b[J" + strings.Join(echoRows(e.prompt, e.shown(), width, e.cs), "\r\n") + "\r\n")
		e.cursorRow = 0
		io.WriteString(e.w, b.String())
		return
	}
	if e.hint != "" {
		b.WriteString("\r\n" + e.cs.dim(clipWidth(e.hint, width-1)))
		last++
	}
	if e.status != nil {
		if s := e.status(width - 1); s != "" {
			b.WriteString("\r\n" + s)
			last++
		}
	}
	if up := last - crow; up > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", up)
	}
	b.WriteString("\r")
	if ccol > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", ccol)
	}
	e.cursorRow = crow
	io.WriteString(e.w, b.String())
}

// layout wraps the entry into screen rows of at most width columns, the
// prompt before the first line and as much indent before the others, and
// says where the cursor is.
func (e *editor) layout(width int) (rows []string, crow, ccol int) {
	indent := strings.Repeat(" ", runewidth.StringWidth(e.prompt))
	var row strings.Builder
	col := 0
	row.WriteString(e.cs.bold(e.prompt))
	col = runewidth.StringWidth(e.prompt)
	newRow := func() {
		rows = append(rows, row.String())
		row.Reset()
		col = 0
	}
	place := func(s string, w int) {
		if col+w > width && col > 0 {
			newRow()
		}
		row.WriteString(s)
		col += w
	}
	for i, r := range e.buf {
		if i == e.pos {
			if col >= width {
				newRow()
			}
			crow, ccol = len(rows), col
		}
		switch {
		case r == '\n':
			newRow()
			row.WriteString(indent)
			col = len(indent)
		case e.pastes[r] != "":
			chip := e.chip(r)
			place(e.cs.wrap(styleCode, styleFgReset, chip), runewidth.StringWidth(chip))
		default:
			place(string(r), max(runewidth.RuneWidth(r), 1))
		}
	}
	if e.pos >= len(e.buf) {
		if col >= width {
			newRow()
		}
		crow, ccol = len(rows), col
	}
	rows = append(rows, row.String())
	return rows, crow, ccol
}

// clipWidth cuts s to at most w columns, marking the cut.
func clipWidth(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if runewidth.StringWidth(s) <= w {
		return s
	}
	return runewidth.Truncate(s, w, "…")
}

var ansiSGR = regexp.MustCompile("\x1b\\[[0-9;]*m")

// visibleWidth is s's width in columns, its SGR styles not counted.
func visibleWidth(s string) int {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiSGR.ReplaceAllString(s, "")
	}
	return runewidth.StringWidth(s)
}

package repl

import (
	"io"
	"strings"
	"unicode/utf8"
)

// markdownWriter renders streamed Markdown for a terminal as it arrives.
// Prose (paragraphs and list items) is written a word at a time, as soon
// as a word is complete and no inline span (code, bold, italic, link) is
// left open across it, wrapped at the terminal's width at that moment —
// so a long paragraph shows as it streams and a resized terminal is
// followed from the next word on. Lines whose form is known only when
// they end (headings, quotes, rules) are held until their newline; a
// table is held until its last row, then drawn aligned in a box; fenced
// code is written verbatim with no gutter, so that it copies cleanly.
// What is written never depends on where the stream was cut into deltas.
//
// It is hand-written rather than built on a Markdown library because a
// streaming renderer must never rewrite what it already printed, and
// because each delta must cost time proportional to its own size, not to
// the answer's: a parser over the whole document per delta cannot be.
type markdownWriter struct {
	w     io.Writer
	width func() int
	out   []byte // output of the current call, written once

	line    []byte // the current source line so far
	kind    lineKind
	emitted int        // bytes of line already written (prose only)
	scan    inlineScan // inline state after line[:scanned]
	scanned int
	safeAt  int // the last offset in line[:scanned] before a space outside every span

	col      int    // output column
	hang     string // what starts a wrapped row of the current prose line
	hangCols int
	words    int // words written on the current output row

	inFence   bool
	fenceMark string
	table     []string // source rows of a table being held
}

type lineKind int

const (
	kindUndecided lineKind = iota
	kindProse              // streamed word by word
	kindHeld               // rendered when complete
)

func newMarkdownWriter(w io.Writer, width func() int) *markdownWriter {
	if width == nil {
		width = func() int { return 80 }
	}
	return &markdownWriter{w: w, width: width}
}

// WriteString feeds a delta; what it completes is rendered and written.
func (m *markdownWriter) WriteString(s string) error {
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			m.line = append(m.line, s...)
			m.streamPartial()
			break
		}
		m.line = append(m.line, s[:i]...)
		m.endLine()
		s = s[i+1:]
	}
	return m.write()
}

// Pending reports whether text is held back.
func (m *markdownWriter) Pending() bool { return len(m.line) > m.emitted || len(m.table) > 0 }

// Flush renders what is held (ending the line) and forgets the block
// state: the next text starts a new message.
func (m *markdownWriter) Flush() error {
	if len(m.line) > 0 || m.kind == kindProse {
		m.endLine()
	}
	m.endTable()
	m.inFence, m.fenceMark = false, ""
	return m.write()
}

func (m *markdownWriter) write() error {
	if len(m.out) == 0 {
		return nil
	}
	_, err := m.w.Write(m.out)
	m.out = m.out[:0]
	return err
}

func (m *markdownWriter) cols() int { return max(m.width(), 20) }

// streamPartial writes the complete words of a prose line.
func (m *markdownWriter) streamPartial() {
	if m.inFence {
		return
	}
	if m.kind == kindUndecided {
		m.kind = decideKind(m.line, false)
		if m.kind == kindProse {
			m.startProse()
		}
	}
	if m.kind != kindProse {
		return
	}
	m.scanTo(len(m.line))
	if m.safeAt > m.emitted {
		m.placeText(string(m.line[m.emitted:m.safeAt]))
		m.emitted = m.safeAt
	}
}

// endLine renders the rest of a complete source line.
func (m *markdownWriter) endLine() {
	if m.inFence {
		line := strings.TrimSuffix(string(m.line), "\r")
		m.resetLine()
		if isFenceClose(strings.TrimLeft(line, " \t"), m.fenceMark) {
			m.inFence, m.fenceMark = false, ""
			m.out = append(m.out, styleDim+"└───"+styleNormal+"\n"...)
			return
		}
		m.out = append(m.out, styleCode...)
		m.out = append(m.out, line...)
		m.out = append(m.out, styleFgReset+"\n"...)
		return
	}
	if m.kind == kindUndecided {
		m.kind = decideKind(m.line, true)
		if m.kind == kindProse {
			m.startProse()
		}
	}
	if m.kind == kindProse {
		rest := strings.TrimSuffix(string(m.line[m.emitted:]), "\r")
		m.placeText(rest)
		m.out = append(m.out, '\n')
		m.col, m.words = 0, 0
		m.resetLine()
		return
	}
	line := strings.TrimSuffix(string(m.line), "\r")
	m.resetLine()
	m.heldLine(line)
}

func (m *markdownWriter) resetLine() {
	m.line, m.kind, m.emitted, m.scan, m.scanned, m.safeAt = m.line[:0], kindUndecided, 0, inlineScan{}, 0, 0
}

// decideKind tells prose from the lines that are rendered whole, from as
// much of the line as has arrived (complete: all of it).
func decideKind(line []byte, complete bool) lineKind {
	s := strings.TrimLeft(string(line), " \t")
	if s == "" {
		if complete {
			return kindHeld
		}
		return kindUndecided
	}
	undecided := kindUndecided
	if complete {
		undecided = kindHeld
	}
	switch c := s[0]; {
	case c == '#' || c == '|' || c == '>':
		return kindHeld
	case c == '`' || c == '~':
		n := runLength(s, c)
		if n >= 3 {
			return kindHeld // a fence
		}
		if n == len(s) {
			return undecided
		}
		return kindProse
	case c == '-' || c == '*' || c == '+' || c == '_':
		if len(s) >= 2 && (s[1] == ' ' || s[1] == '\t') && c != '_' {
			if isRule(strings.TrimSpace(s)) && complete {
				return kindHeld
			}
			if strings.Trim(s, string(c)+" \t") == "" {
				return undecided // "- -" may still become a rule
			}
			return kindProse
		}
		if strings.Trim(s, string(c)+" \t") == "" {
			return undecided
		}
		return kindProse
	case c >= '0' && c <= '9':
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == len(s) {
			return undecided
		}
		return kindProse
	}
	return kindProse
}

// startProse writes a prose line's lead (indent, bullet or number) and
// sets the indent its wrapped rows continue at.
func (m *markdownWriter) startProse() {
	m.endTable()
	s := string(m.line)
	trimmed := strings.TrimLeft(s, " \t")
	indent := s[:len(s)-len(trimmed)]
	lead, skip := indent, len(indent)
	if rest, ok := bullet(trimmed); ok {
		lead = indent + "• "
		skip = len(s) - len(rest)
	} else if n := numberedLead(trimmed); n > 0 {
		lead = indent + trimmed[:n]
		skip = len(indent) + n
	}
	m.out = append(m.out, lead...)
	m.col = visibleWidth(lead)
	m.hang, m.hangCols = strings.Repeat(" ", m.col), m.col
	m.words = 0
	m.emitted = skip
	m.scanned, m.safeAt = skip, skip
}

// numberedLead is the length of "12. " at the start of s, or 0.
func numberedLead(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(s) || (s[i] != '.' && s[i] != ')') || s[i+1] != ' ' {
		return 0
	}
	return i + 2
}

// placeText renders a piece of prose that closes every span it opens and
// writes it word by word, wrapping at the width.
func (m *markdownWriter) placeText(src string) {
	if strings.TrimSpace(src) == "" {
		return
	}
	rendered := string(renderInline(nil, src))
	m.placeWords(rendered)
}

func (m *markdownWriter) placeWords(rendered string) {
	width := m.cols()
	for _, word := range strings.FieldsFunc(rendered, func(r rune) bool { return r == ' ' || r == '\t' }) {
		w := visibleWidth(word)
		if m.words > 0 {
			if m.col+1+w > width {
				m.out = append(m.out, '\n')
				m.out = append(m.out, m.hang...)
				m.col = m.hangCols
			} else {
				m.out = append(m.out, ' ')
				m.col++
			}
		}
		m.out = append(m.out, word...)
		m.col += w
		m.words++
	}
}

// heldLine renders a complete non-prose line.
func (m *markdownWriter) heldLine(line string) {
	trimmed := strings.TrimLeft(line, " \t")
	indent := line[:len(line)-len(trimmed)]
	if strings.HasPrefix(trimmed, "|") {
		m.table = append(m.table, trimmed)
		return
	}
	m.endTable()
	if mark, lang, ok := fenceOpen(trimmed); ok {
		m.inFence, m.fenceMark = true, mark
		m.out = append(m.out, styleDim+"┌───"...)
		if lang != "" {
			m.out = append(m.out, ' ')
			m.out = append(m.out, lang...)
		}
		m.out = append(m.out, styleNormal+"\n"...)
		return
	}
	width := m.cols()
	switch {
	case trimmed == "":
		m.out = append(m.out, '\n')
		return
	case isRule(trimmed):
		m.out = append(m.out, styleDim+strings.Repeat("─", min(40, width))+styleNormal+"\n"...)
		return
	}
	if level, text := heading(trimmed); level > 0 {
		m.col, m.words, m.hang, m.hangCols = 0, 0, "", 0
		m.out = append(m.out, styleBold...)
		m.placeWords(string(renderInline(nil, text)))
		m.out = append(m.out, styleNormal+"\n"...)
		m.col, m.words = 0, 0
		return
	}
	if rest, ok := strings.CutPrefix(trimmed, ">"); ok {
		lead := indent + styleDim + "│ " + styleNormal
		m.out = append(m.out, lead...)
		m.col, m.words = visibleWidth(lead), 0
		m.hang, m.hangCols = lead, m.col
		m.out = append(m.out, styleItalic...)
		m.placeWords(string(renderInline(nil, strings.TrimPrefix(rest, " "))))
		m.out = append(m.out, styleNoItalic+"\n"...)
		m.col, m.words = 0, 0
		return
	}
	// Anything else that was held (a lone number, a run of markers) is prose after all.
	m.line = append(m.line[:0], line...)
	m.startProse()
	m.placeText(string(m.line[m.emitted:]))
	m.out = append(m.out, '\n')
	m.col, m.words = 0, 0
	m.resetLine()
}

// inlineScan follows which inline spans are open, to find where a prose
// line can be cut without cutting a span: conservatively, so that a span
// renderInline would style is never cut (it may hold back a little more).
type inlineScan struct {
	code   int  // length of the open backtick run, 0 none
	bold   int  // open "**"/"__" markers, modulo 2 each
	under  int  //
	italic bool // an open single "*"
	link   bool // inside [text](url), from "[" to ")"
	escape bool // the previous byte was a backslash
	prev   byte
}

// scanTo advances the scan over line[m.scanned:end], noting each space
// where no span is open.
func (m *markdownWriter) scanTo(end int) {
	s := &m.scan
	line := m.line
	for i := m.scanned; i < end; i++ {
		c := line[i]
		prev := s.prev
		s.prev = c
		if s.escape {
			s.escape = false
			continue
		}
		if s.code > 0 {
			if c == '`' {
				n := runLength(string(line[i:end]), '`')
				if i+n == end {
					// The run may continue in the next delta: decide then.
					s.prev = prev
					m.scanned = i
					return
				}
				if n == s.code {
					s.code = 0
				}
				i += n - 1
			}
			continue
		}
		switch c {
		case '\\':
			s.escape = true
		case '`':
			n := runLength(string(line[i:end]), '`')
			if i+n == end {
				s.prev = prev
				m.scanned = i
				return
			}
			s.code = n
			i += n - 1
		case '*', '_':
			if i+1 == end {
				s.prev = prev
				m.scanned = i
				return // a second marker may follow
			}
			if line[i+1] == c {
				if c == '*' {
					s.bold ^= 1
				} else {
					s.under ^= 1
				}
				i++
				s.prev = c
				continue
			}
			if c == '*' {
				next := line[i+1]
				if !s.italic && next != ' ' && (prev == 0 || prev == ' ' || prev == '(') {
					s.italic = true
				} else if s.italic && prev != ' ' {
					s.italic = false
				}
			}
		case '[':
			s.link = true
		case ')':
			s.link = false
		case ' ', '\t':
			if s.code == 0 && s.bold == 0 && s.under == 0 && !s.italic && !s.link {
				m.safeAt = i
			}
		}
	}
	m.scanned = end
	_ = utf8.RuneStart
}

package repl

import (
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/mattn/go-runewidth"
)

// echoRows is an entry as it stays on the screen once sent: each of its
// lines broken at words to width columns (termtext.Wrap, the one rule),
// prompt before the first row and as much indent before the others —
// never cut mid-word at the terminal's edge, as a row of the line editor
// is while it is being typed.
func echoRows(prompt, text string, width int, cs colorScheme) []string {
	indent := strings.Repeat(" ", runewidth.StringWidth(prompt))
	var rows []string
	for i, line := range strings.Split(text, "\n") {
		for j, part := range termtext.Wrap(line, width-1-len(indent)) {
			lead := indent
			if i == 0 && j == 0 {
				lead = cs.bold(prompt)
			}
			rows = append(rows, lead+part)
		}
	}
	return rows
}

// escapeTwice is how soon a second Esc must follow the first to count as
// Esc Esc.
const escapeTwice = time.Second

// escape is Esc at the entry: pressed twice, it clears a typed entry, or
// at an empty one asks for /rewind (errRewind), as in Claude Code.
func (e *editor) escape(key) *readEnd {
	now := time.Now()
	twice := !e.escAt.IsZero() && now.Sub(e.escAt) < escapeTwice
	e.escAt = now
	if !twice {
		return nil
	}
	e.escAt = time.Time{}
	if len(e.buf) > 0 {
		e.buf, e.pos = e.buf[:0], 0
		return nil
	}
	return &readEnd{err: errRewind}
}

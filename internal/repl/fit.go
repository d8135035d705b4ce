package repl

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// What the REPL prints as lines of its own — the welcome line, errors and
// their hints, warnings, the output of slash commands — is broken at words
// to the terminal's width, rather than left for the terminal to cut
// mid-word. Pickers, dialogs and a turn's output fit themselves; output
// that is not a terminal is left as it is.

// fitLine breaks line, if it is wider than width columns, at words into
// rows that fit, each keeping the line's indentation (up to half the
// width). A line that fits is returned as it is. Styles must sit inside
// words (see styleWords); a word longer than a row is broken inside.
func fitLine(line string, width int) []string {
	if width <= 0 || visibleWidth(line) <= width {
		return []string{line}
	}
	body := strings.TrimLeft(line, " ")
	indent := strings.Repeat(" ", min(len(line)-len(body), width/2))
	var rows []string
	if strings.IndexByte(body, 0x1b) >= 0 {
		rows = wrapStyled(body, width-len(indent))
	} else {
		rows = termtext.Wrap(body, width-len(indent))
	}
	for i := range rows {
		rows[i] = indent + rows[i]
	}
	return rows
}

// styleWords styles each space-separated word of s on its own, so that the
// line can be broken between any two words without a style running on
// past its row.
func styleWords(style func(string) string, s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		if w != "" {
			words[i] = style(w)
		}
	}
	return strings.Join(words, " ")
}

// fitWriter passes on what is written to it a line at a time, each line
// broken by fitLine to the width width reports then. An unfinished line is
// held back until its newline or Flush. With width nil (not a terminal)
// it passes everything on at once, untouched. Not safe for concurrent use.
type fitWriter struct {
	w     io.Writer
	width func() int
	held  []byte
}

func (f *fitWriter) Write(p []byte) (int, error) {
	if f.width == nil {
		return f.w.Write(p)
	}
	f.held = append(f.held, p...)
	end := bytes.LastIndexByte(f.held, '\n')
	if end < 0 {
		return len(p), nil
	}
	width := f.width()
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(f.held[:end+1]), "\n") {
		if text, ok := strings.CutSuffix(line, "\n"); ok {
			out.WriteString(strings.Join(fitLine(text, width), "\n") + "\n")
		}
	}
	f.held = append(f.held[:0], f.held[end+1:]...)
	if _, err := io.WriteString(f.w, out.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes on the unfinished line held back, fitted.
func (f *fitWriter) Flush() error {
	if len(f.held) == 0 {
		return nil
	}
	_, err := io.WriteString(f.w, strings.Join(fitLine(string(f.held), f.width()), "\n"))
	f.held = f.held[:0]
	return err
}

// fitWidth is the terminal's width, read at each call, for output to a
// stream that is a terminal; nil when the stream is not one or the width
// cannot be known (input not a terminal).
func (s *session) fitWidth(terminal bool) func() int {
	if !terminal || s.con == nil || s.con.width == nil {
		return nil
	}
	return s.con.width
}

// say writes text, one of the REPL's own lines (or several), to ErrOut:
// each line broken at words to the terminal's width when ErrOut is one.
// Styled text must be styled word by word (styleWords).
func (s *session) say(text string) {
	fmt.Fprintln(&fitWriter{w: s.io.ErrOut, width: s.fitWidth(s.io.IsStderrTTY())}, text)
}

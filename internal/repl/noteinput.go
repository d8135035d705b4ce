package repl

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// readNote is the one-line input under a dialog after its "No, …" (the
// permission dialog's "tell the model to do something else", the plan's
// "keep planning"), under the hint that asks for it: what the user types
// goes to the model with the answer. Enter sends it; Esc (or an empty
// line) is a plain no, and so is the end of input.
func readNote(ctx context.Context, c *console, w io.Writer, cs colorScheme, hint string) (string, error) {
	return readOneLine(ctx, c, w, cs, hint)
}

// readOneLine shows question (dim, broken at words) and reads one line of
// input under it: Enter gives the line, Esc or the end of input an empty
// one, Ctrl-C context.Canceled.
func readOneLine(ctx context.Context, c *console, w io.Writer, cs colorScheme, question string) (string, error) {
	width := func() int {
		if c.width != nil {
			return c.width()
		}
		return 80
	}
	for _, l := range wrapWidth(question, width()-5) {
		fmt.Fprintln(w, "    "+cs.dim(l))
	}
	var buf []rune
	draw := func() {
		// One row: as much of the end of the text as fits.
		shown := string(buf)
		for runewidth.StringWidth(shown) > width()-5 && shown != "" {
			_, size := utf8.DecodeRuneInString(shown)
			shown = shown[size:]
		}
		fmt.Fprint(w, "\r\x1b[K  "+cs.bold(">")+" "+shown)
	}
	draw()
	for {
		k, err := c.kb.next(ctx)
		if err != nil {
			fmt.Fprint(w, "\r\x1b[K")
			if err == io.EOF {
				return "", nil
			}
			return "", err
		}
		switch {
		case k.kind == keyEnter:
			fmt.Fprintln(w)
			return strings.TrimSpace(string(buf)), nil
		case k.kind == keyEsc:
			fmt.Fprint(w, "\r\x1b[K")
			return "", nil
		case k.kind == keyCtrl && k.r == 'c':
			fmt.Fprint(w, "\r\x1b[K")
			return "", context.Canceled
		case k.kind == keyBackspace && len(buf) > 0:
			buf = buf[:len(buf)-1]
		case k.kind == keyRune:
			buf = append(buf, k.r)
		case k.kind == keyPaste:
			buf = append(buf, []rune(strings.ReplaceAll(safe(k.text), "\n", " "))...)
		}
		draw()
	}
}

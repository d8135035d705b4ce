package repl

import (
	"context"
	"errors"
	"fmt"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"io"
	"strings"
	"unicode"
)

// choice is one answer a dialog offers: the key that picks it at once,
// its words, and whether it is the answer to an Escape.
type choice struct {
	key    rune // shown: "1. Yes"
	alias  rune // also accepted, either case: 'y'
	label  string
	cancel bool
}

// selectOption shows options under what was already written (the question),
// the default (the first) marked, and returns the index of the answer:
// its key, or Enter on the highlighted one (arrows move it), Escape the
// cancelling choice. Extra keys (e.g. 'v' to view more) return their own
// negative code through onKey, which may write above the options. The
// options are replaced by the answer once given. The caller opens the
// dialog (c.kb.beginDialog) before it writes the question, so a key typed
// once the question shows answers it, and only what was typed before
// waits for the prompt.
func selectOption(ctx context.Context, c *console, w io.Writer, cs colorScheme, options []choice, onKey func(key) bool) (int, error) {
	sel := 0
	drawn := 0
	draw := func() {
		var b strings.Builder
		if drawn > 0 {
			fmt.Fprintf(&b, "\x1b[%dA\r\x1b[J", drawn)
		}
		width := 80
		if c.width != nil {
			width = c.width()
		}
		drawn = 0
		for i, o := range options {
			label := fmt.Sprintf("%c. %s", o.key, o.label)
			if o.cancel {
				label += " (esc)"
			}
			// An option is wrapped, never cut: what "always" allows must be
			// read whole before it is chosen.
			for j, line := range wrapWidth(label, width-5) {
				switch {
				case j > 0:
					b.WriteString("       " + line + "\n")
				case i == sel:
					b.WriteString("  " + cs.wrap(styleCode, styleFgReset, "❯ "+line) + "\n")
				default:
					b.WriteString("    " + line + "\n")
				}
				drawn++
			}
		}
		io.WriteString(w, b.String())
	}
	answer := func(i int) (int, error) {
		fmt.Fprintf(w, "\x1b[%dA\r\x1b[J", drawn)
		fmt.Fprintf(w, "  %s %s\n", cs.dim("⎿"), options[i].label)
		return i, nil
	}
	draw()
	for {
		k, err := c.kb.next(ctx)
		if err != nil {
			fmt.Fprintf(w, "\x1b[%dA\r\x1b[J", drawn)
			return -1, err
		}
		switch {
		case k.kind == keyUp || k.kind == keyCtrl && k.r == 'p':
			sel = (sel + len(options) - 1) % len(options)
		case k.kind == keyDown || k.kind == keyTab || k.kind == keyCtrl && k.r == 'n':
			sel = (sel + 1) % len(options)
		case k.kind == keyEnter:
			return answer(sel)
		case k.kind == keyEsc:
			for i, o := range options {
				if o.cancel {
					return answer(i)
				}
			}
		case k.kind == keyCtrl && k.r == 'c':
			fmt.Fprintf(w, "\x1b[%dA\r\x1b[J", drawn)
			return -1, context.Canceled
		case k.kind == keyRune:
			for i, o := range options {
				if k.r == o.key || o.alias != 0 && unicode.ToLower(k.r) == o.alias {
					return answer(i)
				}
			}
			if onKey != nil {
				fmt.Fprintf(w, "\x1b[%dA\r\x1b[J", drawn)
				drawn = 0
				onKey(k)
			}
		}
		draw()
	}
}

// chooseKey is slash.Env.Choose on a terminal: the picker over items,
// numbered, under the question.
func (s *session) chooseKey(ctx context.Context, question string, items []string) (int, error) {
	list := make([]pickItem, len(items))
	for i, it := range items {
		list[i] = pickItem{label: fmt.Sprintf("%d. %s", i+1, safe(it))}
	}
	pk := &picker{con: s.con, w: s.io.ErrOut, cs: s.cs, title: safe(question), items: list}
	return pk.run(ctx)
}

// confirmKey is slash.Env.Confirm on a terminal: one key, no by default.
func (s *session) confirmKey(ctx context.Context, question string) (bool, error) {
	s.con.kb.beginDialog()
	defer s.con.kb.endDialog()
	fmt.Fprintf(s.io.ErrOut, "%s %s\n", s.cs.warn("?"), s.cs.bold(safe(question)))
	i, err := selectOption(ctx, s.con, s.io.ErrOut, s.cs, []choice{
		{key: '1', alias: 'n', label: "No", cancel: true},
		{key: '2', alias: 'y', label: "Yes"},
	}, nil)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	return i == 1, nil
}

// wrapWidth breaks s into lines of at most w columns at words
// (termtext.Wrap: the one rule).
func wrapWidth(s string, w int) []string { return termtext.Wrap(s, w) }

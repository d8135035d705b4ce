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
	i, _, err := selectOptionKey(ctx, c, w, cs, options, onKey)
	return i, err
}

// selectOptionKey is selectOption that also says whether the answer was
// an Escape (the permission dialog's plain no, against its "No" chosen by
// key, which asks what to do instead).
func selectOptionKey(ctx context.Context, c *console, w io.Writer, cs colorScheme, options []choice, onKey func(key) bool) (int, bool, error) {
	d := &optionDialog{c: c, w: w, cs: cs, options: options}
	d.draw()
	for {
		k, err := c.kb.next(ctx)
		if err != nil {
			d.erase()
			return -1, false, err
		}
		switch {
		case k.kind == keyUp || k.kind == keyBackTab || k.kind == keyCtrl && k.r == 'p':
			d.sel = (d.sel + len(options) - 1) % len(options)
		case k.kind == keyDown || k.kind == keyTab || k.kind == keyCtrl && k.r == 'n':
			d.sel = (d.sel + 1) % len(options)
		case k.kind == keyEnter:
			return d.answer(d.sel), false, nil
		case k.kind == keyCtrl && k.r == 'c':
			d.erase()
			return -1, false, context.Canceled
		case k.kind == keyEsc || k.kind == keyRune:
			if i := d.chosen(k); i >= 0 {
				return d.answer(i), k.kind == keyEsc, nil
			}
			if k.kind == keyRune && onKey != nil {
				d.erase()
				onKey(k)
			}
		}
		d.draw()
	}
}

// optionDialog is selectOption's state: the options, the highlighted one
// and how many rows the last draw took.
type optionDialog struct {
	c       *console
	w       io.Writer
	cs      colorScheme
	options []choice
	sel     int
	drawn   int
}

// chosen is the option a key picks: Esc the cancelling one, a rune the
// option with that key or alias; -1 for none.
func (d *optionDialog) chosen(k key) int {
	for i, o := range d.options {
		if k.kind == keyEsc && o.cancel ||
			k.kind == keyRune && (k.r == o.key || o.alias != 0 && unicode.ToLower(k.r) == o.alias) {
			return i
		}
	}
	return -1
}

func (d *optionDialog) erase() {
	if d.drawn > 0 {
		fmt.Fprintf(d.w, "\x1b[%dA\r\x1b[J", d.drawn)
	}
	d.drawn = 0
}

func (d *optionDialog) draw() {
	var b strings.Builder
	if d.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA\r\x1b[J", d.drawn)
	}
	width := 80
	if d.c.width != nil {
		width = d.c.width()
	}
	d.drawn = 0
	for i, o := range d.options {
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
			case i == d.sel:
				b.WriteString("  " + d.cs.wrap(styleCode, styleFgReset, "❯ "+line) + "\n")
			default:
				b.WriteString("    " + line + "\n")
			}
			d.drawn++
		}
	}
	io.WriteString(d.w, b.String())
}

// answer replaces the options by the one chosen.
func (d *optionDialog) answer(i int) int {
	fmt.Fprintf(d.w, "\x1b[%dA\r\x1b[J", d.drawn)
	fmt.Fprintf(d.w, "  %s %s\n", d.cs.dim("⎿"), d.options[i].label)
	return i
}

// chooseKey is slash.Env.Choose on a terminal: the picker over items,
// numbered, under the question.
func (s *session) chooseKey(ctx context.Context, question string, items []string) (int, error) {
	list := make([]pickItem, len(items))
	for i, it := range items {
		list[i] = pickItem{label: fmt.Sprintf("%d. %s", i+1, safe(it))}
	}
	pk := &picker{con: s.con, w: s.io.ErrOut, cs: s.cs, title: safe(question), items: list, numbered: len(list) <= 9}
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

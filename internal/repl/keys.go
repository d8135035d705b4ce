package repl

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// keyKind is what a key press means to the REPL, whatever bytes the
// terminal used to say it.
type keyKind int

const (
	keyRune      keyKind = iota // a printable character (key.r)
	keyEnter                    // submit
	keyNewline                  // Shift-Enter, Alt-Enter, Ctrl-J: a newline in the entry
	keyPaste                    // a bracketed paste (key.text), never submitted by its newlines
	keyTab                      //
	keyBackTab                  // Shift-Tab
	keyBackspace                //
	keyDelete                   //
	keyUp                       //
	keyDown                     //
	keyLeft                     //
	keyRight                    //
	keyHome                     //
	keyEnd                      //
	keyWordLeft                 // Alt-b, Ctrl-Left
	keyWordRight                // Alt-f, Ctrl-Right
	keyWordBack                 // Alt-Backspace, Ctrl-W
	keyEsc                      // a lone Escape
	keyCtrl                     // Ctrl + key.r (a lower-case letter)
	keyResize                   // not a key: the terminal was resized, redraw
)

type key struct {
	kind keyKind
	r    rune
	text string // keyPaste
}

func ctrlKey(c rune) key { return key{kind: keyCtrl, r: c} }

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// keyDecoder turns the bytes a terminal sends into keys. It understands
// the legacy encodings (VT100/xterm, Shift-Tab as CSI Z), bracketed
// paste, the kitty keyboard protocol's CSI u and xterm's modifyOtherKeys
// (both of which report Shift-Enter apart from Enter, and Shift-Tab as
// Tab with Shift). Feed it what was read; it keeps an
// incomplete sequence for the next call.
type keyDecoder struct {
	pending []byte
	paste   *strings.Builder // inside a bracketed paste
}

// feed decodes as much of b (after what was pending) as is complete.
func (d *keyDecoder) feed(b []byte, emit func(key)) {
	d.pending = append(d.pending, b...)
	buf := d.pending
	for len(buf) > 0 {
		if d.paste != nil {
			i := strings.Index(string(buf), pasteEnd)
			if i < 0 {
				// keep a tail that could be the start of the end marker
				keep := min(len(buf), len(pasteEnd)-1)
				d.paste.Write(buf[:len(buf)-keep])
				buf = buf[len(buf)-keep:]
				break
			}
			d.paste.Write(buf[:i])
			emit(key{kind: keyPaste, text: normalizePaste(d.paste.String())})
			d.paste = nil
			buf = buf[i+len(pasteEnd):]
			continue
		}
		n, k, ok := decodeOne(buf)
		if n == 0 { // incomplete: wait for more bytes
			break
		}
		buf = buf[n:]
		if k.kind == keyPaste && k.text == pasteStart {
			d.paste = &strings.Builder{}
			continue
		}
		if ok {
			emit(k)
		}
	}
	d.pending = append(d.pending[:0], buf...)
}

// incomplete reports whether bytes are held back waiting for the rest of a
// sequence (outside a paste, only a lone Escape can be).
func (d *keyDecoder) incomplete() bool { return d.paste == nil && len(d.pending) > 0 }

// flush is called when no more bytes came soon after an incomplete
// sequence: a lone ESC was the Escape key, anything else is dropped.
func (d *keyDecoder) flush(emit func(key)) {
	if d.paste != nil || len(d.pending) == 0 {
		return
	}
	buf := d.pending
	d.pending = d.pending[:0]
	if buf[0] == 0x1b {
		emit(key{kind: keyEsc})
		rest := append([]byte(nil), buf[1:]...)
		d.feed(rest, emit)
		if d.incomplete() {
			d.pending = d.pending[:0]
		}
	}
}

// normalizePaste makes a paste's line ends "\n" (terminals send CR).
func normalizePaste(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// decodeOne decodes the key at the start of b: n bytes used (0: need
// more), the key, and whether it is one the REPL knows.
func decodeOne(b []byte) (int, key, bool) {
	c := b[0]
	switch {
	case c == 0x1b:
		return decodeEscape(b)
	case c == '\r':
		return 1, key{kind: keyEnter}, true
	case c == '\n':
		return 1, key{kind: keyNewline}, true
	case c == '\t':
		return 1, key{kind: keyTab}, true
	case c == 0x7f || c == 0x08:
		return 1, key{kind: keyBackspace}, true
	case c == 0x17:
		return 1, key{kind: keyWordBack}, true
	case c < 0x20:
		if c == 0 {
			return 1, key{}, false
		}
		return 1, ctrlKey(rune('a' + c - 1)), true
	}
	if !utf8.FullRune(b) {
		return 0, key{}, false
	}
	r, n := utf8.DecodeRune(b)
	return n, key{kind: keyRune, r: r}, r != utf8.RuneError
}

func decodeEscape(b []byte) (int, key, bool) {
	if len(b) == 1 {
		return 0, key{}, false // maybe the start of a sequence; flush decides
	}
	switch b[1] {
	case '[':
		return decodeCSI(b)
	case 'O': // SS3: application-mode arrows, F1-F4
		if len(b) < 3 {
			return 0, key{}, false
		}
		switch b[2] {
		case 'A':
			return 3, key{kind: keyUp}, true
		case 'B':
			return 3, key{kind: keyDown}, true
		case 'C':
			return 3, key{kind: keyRight}, true
		case 'D':
			return 3, key{kind: keyLeft}, true
		case 'H':
			return 3, key{kind: keyHome}, true
		case 'F':
			return 3, key{kind: keyEnd}, true
		case 'M':
			return 3, key{kind: keyEnter}, true
		}
		return 3, key{}, false
	case '\r', '\n':
		return 2, key{kind: keyNewline}, true // Alt-Enter
	case 0x7f, 0x08:
		return 2, key{kind: keyWordBack}, true
	case 'b':
		return 2, key{kind: keyWordLeft}, true
	case 'f':
		return 2, key{kind: keyWordRight}, true
	case 0x1b:
		return 1, key{kind: keyEsc}, true // Esc pressed twice
	}
	// Alt + some other key: the REPL binds none.
	_, n := utf8.DecodeRune(b[1:])
	return 1 + n, key{}, false
}

// decodeCSI decodes ESC [ params final.
func decodeCSI(b []byte) (int, key, bool) {
	i := 2
	for i < len(b) && (b[i] >= 0x30 && b[i] <= 0x3f || b[i] >= 0x20 && b[i] <= 0x2f) {
		i++
	}
	if i >= len(b) {
		if len(b) > 64 { // not a sequence any terminal sends
			return len(b), key{}, false
		}
		return 0, key{}, false
	}
	final := b[i]
	n := i + 1
	params := string(b[2:i])
	if params == "200" && final == '~' {
		return n, key{kind: keyPaste, text: pasteStart}, true
	}
	fields := strings.Split(params, ";")
	num := func(j int) int {
		if j >= len(fields) {
			return 0
		}
		v, _ := strconv.Atoi(strings.SplitN(fields[j], ":", 2)[0])
		return v
	}
	mods := max(num(1)-1, 0) // bit 0 shift, 1 alt, 2 ctrl
	ctrl := mods&4 != 0
	switch final {
	case 'A':
		return n, key{kind: keyUp}, true
	case 'B':
		return n, key{kind: keyDown}, true
	case 'C':
		if ctrl || mods&2 != 0 {
			return n, key{kind: keyWordRight}, true
		}
		return n, key{kind: keyRight}, true
	case 'D':
		if ctrl || mods&2 != 0 {
			return n, key{kind: keyWordLeft}, true
		}
		return n, key{kind: keyLeft}, true
	case 'H':
		return n, key{kind: keyHome}, true
	case 'F':
		return n, key{kind: keyEnd}, true
	case 'Z': // Shift-Tab (xterm's back tab, CSI Z)
		return n, key{kind: keyBackTab}, true
	case 'u': // kitty keyboard protocol: CSI code ; mods u
		return n, codepointKey(num(0), mods), true
	case '~':
		switch num(0) {
		case 1, 7:
			return n, key{kind: keyHome}, true
		case 4, 8:
			return n, key{kind: keyEnd}, true
		case 3:
			return n, key{kind: keyDelete}, true
		case 27: // xterm modifyOtherKeys: CSI 27 ; mods ; code ~
			return n, codepointKey(num(2), mods), true
		}
	}
	return n, key{}, false
}

// codepointKey is the key for a Unicode code point with modifiers, as the
// kitty protocol and modifyOtherKeys report it.
func codepointKey(code, mods int) key {
	shift, alt, ctrl := mods&1 != 0, mods&2 != 0, mods&4 != 0
	switch code {
	case 13:
		if shift || alt || ctrl {
			return key{kind: keyNewline}
		}
		return key{kind: keyEnter}
	case 27:
		return key{kind: keyEsc}
	case 9:
		if shift {
			return key{kind: keyBackTab}
		}
		return key{kind: keyTab}
	case 127, 8:
		if alt || ctrl {
			return key{kind: keyWordBack}
		}
		return key{kind: keyBackspace}
	}
	if ctrl && code >= 'a' && code <= 'z' {
		if code == 'j' {
			return key{kind: keyNewline}
		}
		if code == 'w' {
			return key{kind: keyWordBack}
		}
		return ctrlKey(rune(code))
	}
	if alt && code == 'b' {
		return key{kind: keyWordLeft}
	}
	if alt && code == 'f' {
		return key{kind: keyWordRight}
	}
	if code >= 0x20 && code != 0x7f {
		r := rune(code)
		if shift && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		return key{kind: keyRune, r: r}
	}
	return key{}
}

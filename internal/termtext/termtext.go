package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe returns s with every character a terminal would obey made visible
// (see the package doc). Newlines and tabs are kept.
func Safe(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	appendSafe(&b, s)
	return b.String()
}

// Stream makes a text safe piece by piece. The zero value is ready to use.
// Next returns what can be shown of the text so far; it holds back at most
// a few bytes (a trailing carriage return, an incomplete UTF-8 character)
// until the next piece or Flush decides what they are. Concatenating every
// Next and the final Flush gives Safe of the whole text.
type Stream struct {
	pending string
}

// Next takes the next piece of the text and returns what is ready to show.
func (st *Stream) Next(piece string) string {
	s := st.pending + piece
	cut := holdBack(s)
	st.pending = s[cut:]
	return Safe(s[:cut])
}

// Flush returns whatever Next held back, made safe, and resets the Stream.
func (st *Stream) Flush() string {
	s := st.pending
	st.pending = ""
	return Safe(s)
}

// holdBack is where the undecided tail of s starts: a trailing CR (which
// may be half of a CRLF) or a trailing incomplete UTF-8 character.
func holdBack(s string) int {
	end := len(s)
	// An incomplete character is at most utf8.UTFMax-1 bytes long and
	// starts at a byte that is not a continuation byte.
	for i := len(s) - 1; i >= 0 && i >= len(s)-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				end = i
			}
			break
		}
	}
	if end > 0 && s[end-1] == '\r' {
		end--
	}
	return end
}

// plain reports whether s has nothing to make visible: printable ASCII,
// newlines and tabs, and non-ASCII that needs a closer look only when
// present.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			continue
		}
		if c >= utf8.RuneSelf {
			return plainUnicode(s[i:])
		}
		return false
	}
	return true
}

func plainUnicode(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || visibleForm(r) != "" {
			return false
		}
		i += size
	}
	return true
}

func appendSafe(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(b, "<0x%02X>", s[i])
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// CRLF: the line ending is kept as a newline.
		default:
			if v := visibleForm(r); v != "" {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+size])
			}
		}
		i += size
	}
}

// visibleForm is how r is shown when a terminal would obey it, or "" when
// r may be printed as it is.
func visibleForm(r rune) string {
	switch {
	case r == '\n' || r == '\t':
		return ""
	case r < 0x20:
		return "^" + string(rune(r+0x40))
	case r == 0x7f:
		return "^?"
	case r >= 0x80 && r <= 0x9f,
		r >= 0x202a && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069:
		return fmt.Sprintf("<U+%04X>", r)
	}
	return ""
}

// Line is Safe for text shown on one line — a cell of a table, a path in
// a list, a name in a heading — where a newline or a tab would start a
// row or a column of its own: they are shown too, as "^J" and "^I".
func Line(s string) string {
	s = Safe(s)
	if strings.ContainsAny(s, "\n\t") {
		s = lineBreaks.Replace(s)
	}
	return s
}

var lineBreaks = strings.NewReplacer("\n", "^J", "\t", "^I")

package termtext

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// FirstLine is the first line of s (its ends trimmed of white space), at
// most max runes (max <= 0: no limit). When anything was cut, a further
// line or runes past max, more is appended: Ellipsis, or "" to cut
// silently. A line ends at "\n" or "\r".
func FirstLine(s string, max int, more string) string {
	s = strings.TrimSpace(s)
	cut := false
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s, cut = s[:i], true
	}
	if max > 0 && utf8.RuneCountInString(s) > max {
		s, cut = string([]rune(s)[:max]), true
	}
	if cut {
		s += more
	}
	return s
}

// Flatten is s on one line: every run of white space (newlines included)
// one space, the ends trimmed, at most max runes (max <= 0: no limit) with
// Ellipsis as the last of them when s was longer. It looks at the first
// few bytes per rune of s only, so a 200 MB tool output costs no more than
// a short one.
func Flatten(s string, max int) string {
	cut := false
	if limit := 8*max + 8; max > 0 && len(s) > limit {
		s, cut = strings.ToValidUTF8(s[:limit], ""), true
	}
	s = strings.Join(strings.Fields(s), " ")
	if max > 0 && utf8.RuneCountInString(s) > max {
		return string([]rune(s)[:max-1]) + Ellipsis
	}
	if cut {
		return s + Ellipsis
	}
	return s
}

// ShortID is the short form of a session id shown in lists and messages:
// its first 8 characters, enough of a random UUID to tell a project's
// sessions apart, and accepted back as a prefix by -r and /switch.
func ShortID(id string) string {
	const n = 8
	if len(id) > n {
		return id[:n]
	}
	return id
}

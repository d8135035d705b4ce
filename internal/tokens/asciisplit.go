package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The o200k pre-tokenizer's pattern, run by regexp2 on runes, is three
// quarters of the time counting takes. For simple text — ASCII, and the
// punctuation and symbols of Unicode (categories P and S: dashes, quotes,
// ellipses, arrows, currency, box drawing, emoji), which is most code,
// logs, English prose and clawdcode's own notes — simplePieces cuts the
// same pieces by hand, on the bytes. Over simple text each of the
// pattern's classes is plain: \p{L} is [A-Za-z] (\p{Lu} the capitals,
// \p{Ll} the small letters, \p{Lt}, \p{Lm}, \p{Lo} and \p{M} are
// empty), \p{N} is [0-9], \s is [\t\n\v\f\r ], and a rune that is not
// ASCII is punctuation, [^\s\p{L}\p{N}], as its every byte is here. The
// alternatives are tried in the pattern's order at each position, with
// the backtracking regexp2 would do; tests hold the two to the same
// pieces, and FuzzEncodeMatchesTiktoken to tiktoken-go's.

func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return isUpper(c) || isLower(c) }
func isSpace(c byte) bool  { return c == ' ' || '\t' <= c && c <= '\r' }

// isPrefix is [^\r\n\p{L}\p{N}]: what may stand before a word (a
// byte that is not ASCII starts a rune of punctuation, see wordMatch).
func isPrefix(c byte) bool { return c != '\r' && c != '\n' && !isLetter(c) && !isDigit(c) }

// isPunct is [^\s\p{L}\p{N}]; in simple text every byte that is not
// ASCII is part of a rune of punctuation.
func isPunct(c byte) bool { return !isSpace(c) && !isLetter(c) && !isDigit(c) }

// simpleRune reports whether the rune r, of size bytes, may be in simple
// text: ASCII, or valid UTF-8 for a rune of category P or S.
func simpleRune(r rune, size int) bool {
	return r < utf8.RuneSelf || size > 1 && unicode.In(r, unicode.P, unicode.S)
}

// A line break followed by an ASCII character that is neither whitespace
// nor '/' always ends a piece of the pattern: a piece holds a line break
// only as part of a run of whitespace (which that character ends) or of
// punctuation's trailing [\r\n/]* (which it ends too). The pieces of a
// text are then those of its parts cut there, so a text that is mostly
// simple is cut by hand but for the lines around what is not, which go
// to the pattern.

// pieceEnds reports whether a piece ends at i in s.
func pieceEnds(s string, i int) bool {
	if i <= 0 || i >= len(s) || s[i-1] != '\n' && s[i-1] != '\r' {
		return false
	}
	c := s[i]
	return c < 0x80 && !isSpace(c) && c != '/'
}

// simpleStretch splits s at the last safe cut before its first rune that
// is not simple (all of s when there is none).
func simpleStretch(s string) (simple, rest string) {
	x := 0
	for x < len(s) {
		if s[x] < utf8.RuneSelf {
			x++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[x:])
		if !simpleRune(r, size) {
			break
		}
		x += size
	}
	if x == len(s) {
		return s, ""
	}
	for c := x; c > 0; c-- {
		if pieceEnds(s, c) {
			return s[:c], s[c:]
		}
	}
	return "", s
}

// otherStretch splits s, which starts with the lines of a rune that is not
// simple, at the first safe cut after its last such rune before a cut.
func otherStretch(s string) (other, rest string) {
	last := -1
	for i := 0; i < len(s); {
		if s[i] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !simpleRune(r, size) {
				last = i
			}
			i += size
			continue
		}
		if last >= 0 && pieceEnds(s, i) {
			return s[:i], s[i:]
		}
		i++
	}
	return s, ""
}

// simplePieces calls fn with each piece of the o200k pattern in s, which
// must be simple text.
func simplePieces(s string, fn func([]byte)) {
	b := []byte(s)
	for i := 0; i < len(b); {
		n := o200kMatch(b, i)
		fn(b[i : i+n])
		i += n
	}
}

// o200kMatch is the length of the pattern's match at i (never 0: every
// byte starts one of its alternatives).
func o200kMatch(b []byte, i int) int {
	if n := wordMatch(b, i); n > 0 {
		return n
	}
	if isDigit(b[i]) { // \p{N}{1,3}
		n := 1
		for n < 3 && i+n < len(b) && isDigit(b[i+n]) {
			n++
		}
		return n
	}
	if n := punctMatch(b, i); n > 0 {
		return n
	}
	return spaceMatch(b, i)
}

// wordMatch tries the two word alternatives:
// [^\r\n\p{L}\p{N}]?\p{Lu}*\p{Ll}+('s|…)? then [^\r\n\p{L}\p{N}]?\p{Lu}+\p{Ll}*('s|…)?,
// the optional prefix taken first. Without it the word would have to
// start at i, which a prefix character cannot; so only one start is
// possible for each.
func wordMatch(b []byte, i int) int {
	start := i
	if b[i] >= utf8.RuneSelf {
		_, size := utf8.DecodeRune(b[i:])
		start = i + size
	} else if isPrefix(b[i]) {
		start = i + 1
	}
	if start >= len(b) || !isLetter(b[start]) {
		return 0
	}
	j := start
	for j < len(b) && isUpper(b[j]) {
		j++
	}
	k := j
	for k < len(b) && isLower(b[k]) {
		k++
	}
	// The first alternative needs a small letter after the capitals; the
	// second matches the capitals alone. Either way the word ends at k.
	return k + contraction(b, k) - i
}

// contraction is the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or 0.
func contraction(b []byte, i int) int {
	if i+1 >= len(b) || b[i] != '\'' {
		return 0
	}
	lower := func(c byte) byte {
		if isUpper(c) {
			return c + 'a' - 'A'
		}
		return c
	}
	c := lower(b[i+1])
	switch c {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 < len(b) {
		two := string([]byte{c, lower(b[i+2])})
		if two == "re" || two == "ve" || two == "ll" {
			return 3
		}
	}
	return 0
}

// punctMatch is ` ?[^\s\p{L}\p{N}]+[\r\n/]*` at i, or 0.
func punctMatch(b []byte, i int) int {
	j := i
	if b[j] == ' ' && j+1 < len(b) && isPunct(b[j+1]) {
		j++
	}
	if !isPunct(b[j]) {
		return 0
	}
	for j < len(b) && isPunct(b[j]) {
		j++
	}
	for j < len(b) && (b[j] == '\r' || b[j] == '\n' || b[j] == '/') {
		j++
	}
	return j - i
}

// spaceMatch is \s*[\r\n]+ | \s+(?!\S) | \s+ at i, where b[i] is
// whitespace: the run up to its last line break; else the run, less its
// last character when a non-space follows and the run is longer than one;
// else the run.
func spaceMatch(b []byte, i int) int {
	j := i
	lastBreak := -1
	for j < len(b) && isSpace(b[j]) {
		if b[j] == '\r' || b[j] == '\n' {
			lastBreak = j
		}
		j++
	}
	if lastBreak >= 0 {
		return lastBreak + 1 - i
	}
	if j < len(b) && j-i > 1 {
		return j - 1 - i
	}
	return j - i
}

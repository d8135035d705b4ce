package tokens

import (
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// MessageUpperBound is a cheap exact upper bound on Message(m), for any
// encoding, that needs no encoder: every BPE token stands for at least one
// byte of the text it encodes, so a string of n bytes is at most n tokens.
// It costs one pass over the bytes and allocates nothing.
func MessageUpperBound(m chat.Message) int {
	n := TokensPerMessage + byteLen(m.Role) + byteLen(m.Content) + byteLen(m.ToolCallID)
	if m.Name != "" {
		n += byteLen(m.Name) + TokensPerName
	}
	for _, tc := range m.ToolCalls {
		n += ToolCallOverhead + byteLen(tc.Name) + byteLen(tc.Arguments)
	}
	return n
}

// byteLen is the length of s as the tokenizer sees it. The tokenizer works
// on runes, so each invalid byte becomes U+FFFD, three bytes long (the JSON
// encoder sending the request does the same); valid text is just len(s).
func byteLen(s string) int {
	if utf8.ValidString(s) {
		return len(s)
	}
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += utf8.RuneLen(utf8.RuneError)
		} else {
			n += size
		}
		i += size
	}
	return n
}

// Estimate is the fast CJK-aware estimate used when no encoder fits: about
// four ASCII bytes per token (English prose and code), one token per
// Chinese, Japanese or Korean character (their BPE merges are short), and
// one per two other non-ASCII characters (accented Latin, Cyrillic, …).
// It is an estimate, not a bound, typically within a factor of two.
func Estimate(s string) int {
	ascii, cjk, other := 0, 0, 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isCJK(r) {
			cjk++
		} else {
			other++
		}
		i += size
	}
	return (ascii+3)/4 + cjk + (other+1)/2
}

// isCJK reports whether r is a Han, Kana or Hangul character or CJK
// punctuation, by code-point range (unicode.Is on tables would be slower).
func isCJK(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x30FF, // CJK punctuation, Hiragana, Katakana
		r >= 0x3400 && r <= 0x4DBF,   // Han extension A
		r >= 0x4E00 && r <= 0x9FFF,   // Han
		r >= 0xAC00 && r <= 0xD7AF,   // Hangul syllables
		r >= 0x1100 && r <= 0x11FF,   // Hangul jamo
		r >= 0xF900 && r <= 0xFAFF,   // Han compatibility
		r >= 0xFF00 && r <= 0xFFEF,   // full-width forms
		r >= 0x20000 && r <= 0x2FFFF: // Han extensions B+
		return true
	}
	return false
}

package search

import (
	"unicode"
	"unicode/utf8"
)

// maxTerm caps a term's length in bytes: longer runs (hashes, base64)
// are cut to it, at index and at query time alike, so they still match.
const maxTerm = 48

// token is one term of a text: the lowercased term and where its
// original spelling lies in the text.
type token struct {
	term       []byte
	start, end int
}

// tokenizer splits text into terms: runs of letters and digits,
// lowercased; every other character separates. A Han, kana or Hangul
// character is a term by itself, so text without spaces between its words
// is still found word by word (a query in those scripts becomes a phrase
// of single characters). This is the only definition of a term: the index,
// the query and the phrase check all use it.
type tokenizer struct {
	text []byte
	pos  int
	buf  []byte
}

func (t *tokenizer) reset(text []byte) {
	t.text = text
	t.pos = 0
}

// next returns the next token; ok is false at the end. tok.term is valid
// until the following call.
func (t *tokenizer) next() (tok token, ok bool) {
	s := t.text
	i := t.pos
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if isWordByte(c) {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if isWordRune(r) {
			break
		}
		i += n
	}
	if i >= len(s) {
		t.pos = i
		return token{}, false
	}
	start := i
	t.buf = t.buf[:0]
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if !isWordByte(c) {
				break
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if len(t.buf) < maxTerm {
				t.buf = append(t.buf, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if !isWordRune(r) {
			break
		}
		if isIdeograph(r) {
			if i == start {
				// A character of its own.
				t.buf = utf8.AppendRune(t.buf, r)
				i += n
			}
			break
		}
		if len(t.buf)+utf8.RuneLen(r) <= maxTerm {
			t.buf = utf8.AppendRune(t.buf, unicode.ToLower(r))
		}
		i += n
	}
	t.pos = i
	return token{term: t.buf, start: start, end: i}, true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func isIdeograph(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// terms returns the terms of text, in order.
func terms(text string) []string {
	var t tokenizer
	t.reset([]byte(text))
	var out []string
	for {
		tok, ok := t.next()
		if !ok {
			return out
		}
		out = append(out, string(tok.term))
	}
}

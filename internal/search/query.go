package search

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// clause is one required part of a query: a single term, or a phrase
// whose terms must appear consecutively.
type clause struct {
	terms []string
}

func (c clause) phrase() bool { return len(c.terms) > 1 }

// parseQuery splits a query into clauses: every word is required, and a
// "quoted phrase" must match as a phrase. A word that the tokenizer cuts
// into several terms (foo.bar, snake_case) is a phrase of them, so it
// matches what it looks like. An unterminated quote runs to the end.
func parseQuery(q string) ([]clause, error) {
	var out []clause
	add := func(text string, quoted bool) {
		if quoted {
			if ts := terms(text); len(ts) > 0 {
				out = append(out, clause{terms: ts})
			}
			return
		}
		for _, w := range strings.FieldsFunc(text, unicode.IsSpace) {
			if ts := terms(w); len(ts) > 0 {
				out = append(out, clause{terms: ts})
			}
		}
	}
	rest := q
	for {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			add(rest, false)
			break
		}
		add(rest[:i], false)
		rest = rest[i+1:]
		j := strings.IndexByte(rest, '"')
		if j < 0 {
			add(rest, true)
			break
		}
		add(rest[:j], true)
		rest = rest[j+1:]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrEmptyQuery, q)
	}
	return out, nil
}

// distinctTerms lists every term the clauses require, once.
func distinctTerms(cs []clause) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		for _, t := range c.terms {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// match checks a record's text against the clauses' phrases and returns
// where the snippet should centre: the first phrase occurrence, else the
// first query term. ok is false when a phrase does not occur. It walks
// the text's terms once, keeping only the last few (as many as the
// longest phrase has), and stops as soon as every clause is found.
func match(text []byte, cs []clause) (start, end int, ok bool) {
	type span struct{ start, end int }
	longest := 1
	for _, c := range cs {
		longest = max(longest, len(c.terms))
	}
	ring := make([]string, longest) // the last terms, by position mod longest
	spans := make([]span, longest)
	found := make([]span, len(cs))
	left := len(cs)
	for i := range found {
		found[i] = span{-1, -1}
	}
	var t tokenizer
	t.reset(text)
	for n := 0; left > 0; n++ {
		tok, more := t.next()
		if !more {
			return 0, 0, false
		}
		k := n % longest
		// Reuse the slot's string when the term is the same (a repeated
		// term costs no allocation).
		if ring[k] != string(tok.term) {
			ring[k] = string(tok.term)
		}
		spans[k] = span{tok.start, tok.end}
		for ci, c := range cs {
			if found[ci].start >= 0 || len(c.terms) > n+1 || !endsWith(ring, n, c.terms) {
				continue
			}
			found[ci] = span{spans[(n-len(c.terms)+1)%longest].start, tok.end}
			left--
		}
	}
	phrase, earliest := span{-1, -1}, span{-1, -1}
	for ci, c := range cs {
		sp := found[ci]
		switch {
		case c.phrase() && phrase.start < 0:
			phrase = sp
		case !c.phrase() && (earliest.start < 0 || sp.start < earliest.start):
			earliest = sp
		}
	}
	if phrase.start >= 0 {
		return phrase.start, phrase.end, true
	}
	return earliest.start, earliest.end, true
}

// endsWith reports whether the terms up to position n of the ring are
// terms.
func endsWith(ring []string, n int, terms []string) bool {
	for j := range terms {
		if ring[(n-len(terms)+1+j)%len(ring)] != terms[j] {
			return false
		}
	}
	return true
}

// snippetWidth is the snippet's length in characters, about one line.
const snippetWidth = 120

// snippet cuts one line of text around text[start:end]: whitespace runs
// become one space, and "…" marks a cut. It reads only the bytes that
// can reach the snippet (a character is at most utf8.UTFMax bytes), so a
// huge record costs no more than a small one.
func snippet(text []byte, start, end int) string {
	const lead = 30
	reach := utf8.UTFMax * (snippetWidth + 1)
	from := max(0, start-utf8.UTFMax*(lead+1))
	for from > 0 && from < start && !utf8.RuneStart(text[from]) {
		from++
	}
	before := []rune(string(text[from:start]))
	hit := []rune(string(text[start:min(end, start+reach)]))
	after := []rune(string(text[end:min(len(text), end+reach)]))
	if len(hit) > snippetWidth-lead {
		hit = hit[:snippetWidth-lead]
		after = nil
	}
	cutBefore := len(before) > lead
	if len(before) > lead {
		before = before[len(before)-lead:]
	}
	room := snippetWidth - len(before) - len(hit)
	cutAfter := len(after) > room
	if cutAfter {
		after = after[:max(room, 0)]
	}
	s := termtext.Flatten(strings.Map(controlToSpace, string(before)+string(hit)+string(after)), 0)
	if cutBefore {
		s = termtext.Ellipsis + s
	}
	if cutAfter {
		s += termtext.Ellipsis
	}
	return s
}

// controlToSpace makes a control character a space: a snippet has none.
func controlToSpace(r rune) rune {
	if unicode.IsControl(r) {
		return ' '
	}
	return r
}

func anyPhrase(cs []clause) bool {
	for _, c := range cs {
		if c.phrase() {
			return true
		}
	}
	return false
}

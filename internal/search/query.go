package search

import (
	"fmt"
	"strings"
	"unicode"

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
// first query term. ok is false when a phrase does not occur.
func match(text []byte, cs []clause) (start, end int, ok bool) {
	var t tokenizer
	t.reset(text)
	type span struct{ start, end int }
	var toks []string
	var spans []span
	for {
		tok, more := t.next()
		if !more {
			break
		}
		toks = append(toks, string(tok.term))
		spans = append(spans, span{tok.start, tok.end})
	}
	phrase, earliest := span{-1, -1}, span{-1, -1}
	for _, c := range cs {
		found := -1
		for i := 0; i+len(c.terms) <= len(toks) && found < 0; i++ {
			j := 0
			for j < len(c.terms) && toks[i+j] == c.terms[j] {
				j++
			}
			if j == len(c.terms) {
				found = i
			}
		}
		if found < 0 {
			return 0, 0, false
		}
		sp := span{spans[found].start, spans[found+len(c.terms)-1].end}
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

// snippetWidth is the snippet's length in characters, about one line.
const snippetWidth = 120

// snippet cuts one line of text around text[start:end]: whitespace runs
// become one space, and "…" marks a cut.
func snippet(text []byte, start, end int) string {
	before := []rune(string(text[:start]))
	hit := []rune(string(text[start:end]))
	after := []rune(string(text[end:]))
	lead := 30
	if len(hit) > snippetWidth-lead {
		hit = hit[:snippetWidth-lead]
		after = nil
	}
	cutBefore := len(before) > lead
	if cutBefore {
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

package recall

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// query is a parsed Recall query: every term must occur in a record's text,
// without regard to case. A term is a word, or a "quoted phrase" kept whole.
type query struct {
	terms []string // lower-cased
	// anchor is the term searched for in the raw file bytes: the longest,
	// as the one most likely to be rare.
	anchor string
	// needles are the JSON-escaped spellings of the anchor that the raw
	// search looks for: as given, lower, upper and title case.
	needles [][]byte
	// escaped are the lower-cased JSON-escaped terms, for the cheap check of
	// a candidate line before it is decoded.
	escaped [][]byte
}

// parseQuery splits q into terms; ok is false when it holds none.
func parseQuery(q string) (*query, bool) {
	var terms, given []string
	for len(q) > 0 {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		if q == "" {
			break
		}
		var t string
		if q[0] == '"' {
			end := strings.IndexByte(q[1:], '"')
			if end < 0 {
				t, q = q[1:], ""
			} else {
				t, q = q[1:1+end], q[2+end:]
			}
			t = strings.Join(strings.Fields(t), " ")
		} else {
			end := strings.IndexFunc(q, unicode.IsSpace)
			if end < 0 {
				end = len(q)
			}
			t, q = q[:end], q[end:]
		}
		if t == "" {
			continue
		}
		given = append(given, t)
		terms = append(terms, strings.ToLower(t))
	}
	if len(terms) == 0 {
		return nil, false
	}
	qq := &query{terms: terms}
	best := 0
	for i, t := range terms {
		if len(t) > len(terms[best]) {
			best = i
		}
		qq.escaped = append(qq.escaped, jsonEscape(t))
	}
	qq.anchor = terms[best]
	seen := map[string]bool{}
	for _, v := range []string{given[best], terms[best], strings.ToUpper(given[best]), titleCase(terms[best])} {
		if !seen[v] {
			seen[v] = true
			qq.needles = append(qq.needles, jsonEscape(v))
		}
	}
	return qq, true
}

// jsonEscape is s as it appears inside a JSON string written by the
// session store (HTML characters not escaped), without the quotes.
func jsonEscape(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := bytes.TrimSpace(b.Bytes())
	return out[1 : len(out)-1]
}

func titleCase(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// lineMayMatch is the cheap check of a raw line before it is decoded:
// every term occurs in it, escaped, without regard to case.
func (q *query) lineMayMatch(line []byte) bool {
	if len(q.escaped) == 1 {
		return true // the anchor hit is the check
	}
	lower := bytes.ToLower(line)
	for _, t := range q.escaped {
		if !bytes.Contains(lower, t) {
			return false
		}
	}
	return true
}

// matches reports whether text holds every term, and where the anchor is
// in the lower-cased text.
func (q *query) matches(text string) (at int, ok bool) {
	lower := strings.ToLower(text)
	at = -1
	for _, t := range q.terms {
		i := strings.Index(lower, t)
		if i < 0 {
			return -1, false
		}
		if t == q.anchor {
			at = i
		}
	}
	// Lower-casing can change byte lengths outside ASCII; map the offset
	// back conservatively.
	if len(lower) != len(text) {
		at = min(at, len(text))
	}
	return at, true
}

// snippetRadius bounds a hit's snippet: this many bytes before the match
// and twice as many after.
const snippetRadius = 120

// snippet is one line of text around byte offset at.
func snippet(text string, at int) string {
	from := max(0, at-snippetRadius)
	to := min(len(text), at+2*snippetRadius)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	s := strings.Join(strings.Fields(text[from:to]), " ")
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return s
}

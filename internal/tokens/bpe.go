package tokens

import (
	"math"
	"strings"

	"github.com/dlclark/regexp2"
)

// The pre-tokenizer patterns and special tokens, exactly as tiktoken-go
// v0.1.8 defines them (encoding.go, o200k_base and cl100k_base); a test
// reads the library's own pattern and compares.
var (
	o200kPattern = strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|")
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

	o200kSpecial  = map[string]int{"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
	cl100kSpecial = map[string]int{
		"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
		"<|fim_suffix|>": 100260, "<|endofprompt|>": 100276,
	}
)

// bpeEncoding is one tiktoken encoding over an embedded rank table: the
// pre-tokenizer (the very regular expression tiktoken-go compiles, with
// the same engine) cuts text into pieces, and each piece is merged by
// tiktoken's byte-pair algorithm. Safe for concurrent use.
type bpeEncoding struct {
	ranks   *bpeTable
	pattern *regexp2.Regexp
	special map[string]int
	// asciiO200k: the pattern is o200k's, whose pieces simplePieces cuts
	// by hand in simple text (ASCII, punctuation and symbols).
	asciiO200k bool
}

func newBPEEncoding(table, pattern string, special map[string]int) (*bpeEncoding, error) {
	t, err := openTable(table)
	if err != nil {
		return nil, err
	}
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, err
	}
	return &bpeEncoding{ranks: t, pattern: re, special: special, asciiO200k: pattern == o200kPattern}, nil
}

// EncodeOrdinary returns the tokens of text, special-token spellings
// counted as the characters they are (tiktoken's encode_ordinary).
func (e *bpeEncoding) EncodeOrdinary(text string) []int {
	var ids []int
	e.pieces(text, func(piece []byte) {
		ids = e.appendPiece(ids, piece)
	})
	return ids
}

// count is len(EncodeOrdinary(text)) without keeping the tokens.
func (e *bpeEncoding) count(text string) int {
	n := 0
	e.pieces(text, func(piece []byte) {
		if e.ranks.rank(piece) >= 0 {
			n++
			return
		}
		n += len(e.merge(piece)) - 1
	})
	return n
}

// Encode is tiktoken's encode with the special tokens in allowed ("all"
// for every one) encoded as such; text between them, and any special
// spelling not allowed, is ordinary text. clawdcode counts ordinary text
// only; this exists so the tests can check the table's special tokens
// against tiktoken's vectors.
func (e *bpeEncoding) Encode(text string, allowed, _ []string) []int {
	allow := map[string]bool{}
	for _, s := range allowed {
		if s == "all" {
			for k := range e.special {
				allow[k] = true
			}
		}
		allow[s] = e.special[s] != 0
	}
	var ids []int
	for text != "" {
		at, tok := len(text), ""
		for s := range allow {
			if i := strings.Index(text, s); i >= 0 && allow[s] && i < at {
				at, tok = i, s
			}
		}
		ids = append(ids, e.EncodeOrdinary(text[:at])...)
		if tok == "" {
			break
		}
		ids = append(ids, e.special[tok])
		text = text[at+len(tok):]
	}
	return ids
}

// pieces calls fn with each piece the pre-tokenizer cuts text into. Like
// tiktoken-go, it matches on the text's runes, so invalid UTF-8 becomes
// U+FFFD before it is encoded.
func (e *bpeEncoding) pieces(text string, fn func([]byte)) {
	if !e.asciiO200k {
		e.patternPieces(text, fn)
		return
	}
	for text != "" {
		simple, rest := simpleStretch(text)
		simplePieces(simple, fn)
		if rest == "" {
			return // all simple: no run of the pattern at all
		}
		other, after := otherStretch(rest)
		e.patternPieces(other, fn)
		text = after
	}
}

// patternPieces is pieces by the pattern itself.
func (e *bpeEncoding) patternPieces(text string, fn func([]byte)) {
	runes := []rune(text)
	var buf []byte
	m, _ := e.pattern.FindRunesMatch(runes)
	for m != nil {
		buf = buf[:0]
		for _, r := range runes[m.Index : m.Index+m.Length] {
			buf = appendRune(buf, r)
		}
		fn(buf)
		m, _ = e.pattern.FindNextMatch(m)
	}
}

func appendRune(b []byte, r rune) []byte {
	if r < 0x80 {
		return append(b, byte(r))
	}
	return append(b, string(r)...)
}

// appendPiece appends the tokens of one piece.
func (e *bpeEncoding) appendPiece(ids []int, piece []byte) []int {
	if r := e.ranks.rank(piece); r >= 0 {
		return append(ids, r)
	}
	cuts := e.merge(piece)
	for i := 0; i+1 < len(cuts); i++ {
		ids = append(ids, e.ranks.rank(piece[cuts[i].start:cuts[i+1].start]))
	}
	return ids
}

// cut is where a token of a piece starts, and the rank of the token that
// merging it with the next would make (math.MaxInt when none).
type cut struct{ start, rank int }

// merge is tiktoken's byte-pair merge (tiktoken-go's bytePairMerge): merge
// the adjacent pair of lowest rank, leftmost first, until no pair is a
// token. It returns the tokens' starts and the piece's end.
func (e *bpeEncoding) merge(piece []byte) []cut {
	cuts := make([]cut, len(piece)+1)
	rankOf := func(i, skip int) int {
		if i+skip+2 < len(cuts) {
			if r := e.ranks.rank(piece[cuts[i].start:cuts[i+skip+2].start]); r >= 0 {
				return r
			}
		}
		return math.MaxInt
	}
	for i := range cuts {
		cuts[i] = cut{i, math.MaxInt}
	}
	for i := 0; i < len(cuts)-2; i++ {
		cuts[i].rank = rankOf(i, 0)
	}
	for len(cuts) > 1 {
		least, at := math.MaxInt, -1
		for i := 0; i < len(cuts)-1; i++ {
			if cuts[i].rank < least {
				least, at = cuts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		cuts[at].rank = rankOf(at, 1)
		if at > 0 {
			cuts[at-1].rank = rankOf(at-1, 1)
		}
		cuts = append(cuts[:at+1], cuts[at+2:]...)
	}
	return cuts
}

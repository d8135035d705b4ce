package tools

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// requiredLiterals is a set of strings at least one of which occurs in
// every text the pattern matches. Looking for them with bytes.Index (which
// is vectorised) rules out most chunks of a code base far faster than Go's
// regexp engine can, whose cost grows with the pattern rather than the
// rarity of a match.
type requiredLiterals struct {
	lits []requiredLiteral
	fold bool // some literal is case-insensitive: chunks need a lowered copy
}

type requiredLiteral struct {
	text []byte // lower-cased when fold
	fold bool
}

// maxRequiredLiterals bounds the alternatives checked per chunk.
const maxRequiredLiterals = 8

// newRequiredLiterals analyses pattern; nil means no useful set exists and
// every chunk must go to the regexp.
func newRequiredLiterals(pattern string) *requiredLiterals {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	lits, ok := literalsOf(re.Simplify())
	if !ok || len(lits) == 0 || len(lits) > maxRequiredLiterals {
		return nil
	}
	r := &requiredLiterals{lits: lits}
	for _, l := range lits {
		r.fold = r.fold || l.fold
	}
	return r
}

// literalsOf returns literals one of which every match of re contains.
func literalsOf(re *syntax.Regexp) ([]requiredLiteral, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return literalNode(re)
	case syntax.OpCapture:
		return literalsOf(re.Sub[0])
	case syntax.OpPlus:
		return literalsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalsOf(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any one child's set will do; the one with the longest shortest
		// literal rules out the most.
		var best []requiredLiteral
		bestLen := 0
		for _, sub := range re.Sub {
			lits, ok := literalsOf(sub)
			if !ok {
				continue
			}
			if n := shortest(lits); n > bestLen {
				best, bestLen = lits, n
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []requiredLiteral
		for _, sub := range re.Sub {
			lits, ok := literalsOf(sub)
			if !ok {
				return nil, false
			}
			all = append(all, lits...)
		}
		return all, len(all) <= maxRequiredLiterals
	}
	return nil, false
}

func literalNode(re *syntax.Regexp) ([]requiredLiteral, bool) {
	fold := re.Flags&syntax.FoldCase != 0
	var b []byte
	for _, r := range re.Rune {
		if fold {
			// Only letters whose whole case orbit is ASCII can be compared
			// on an ASCII-lowered copy ('k' also matches the Kelvin sign).
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f >= utf8.RuneSelf {
					return nil, false
				}
			}
			if r >= utf8.RuneSelf {
				return nil, false
			}
			r = unicode.ToLower(r)
		}
		b = utf8.AppendRune(b, r)
	}
	if len(b) == 0 {
		return nil, false
	}
	return []requiredLiteral{{text: b, fold: fold}}, true
}

func shortest(lits []requiredLiteral) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l.text) < n {
			n = len(l.text)
		}
	}
	return n
}

// mayMatch reports whether data contains one of the literals. lowered is
// scratch space for the ASCII-lowered copy case-insensitive literals need.
func (r *requiredLiterals) mayMatch(data []byte, lowered *[]byte) bool {
	var low []byte
	if r.fold {
		low = asciiLower((*lowered)[:0], data)
		*lowered = low
	}
	for _, l := range r.lits {
		hay := data
		if l.fold {
			hay = low
		}
		if bytes.Contains(hay, l.text) {
			return true
		}
	}
	return false
}

// asciiLower appends src to dst with A-Z lowered, eight bytes at a time:
// it runs on every chunk of a case-insensitive search.
func asciiLower(dst, src []byte) []byte {
	start := len(dst)
	dst = append(dst, src...)
	p := dst[start:]
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(p); i += 8 {
		w := binary.LittleEndian.Uint64(p[i:])
		low7 := w &^ high
		// The high bit of each byte of ge is set where the byte is >= 'A',
		// of gt where it is > 'Z'; ASCII bytes only (high bit of w clear).
		ge := low7 + ones*(0x80-'A')
		gt := low7 + ones*(0x80-'Z'-1)
		upper := (ge &^ gt) &^ w & high
		binary.LittleEndian.PutUint64(p[i:], w|upper>>2)
	}
	for ; i < len(p); i++ {
		if c := p[i]; 'A' <= c && c <= 'Z' {
			p[i] = c + 'a' - 'A'
		}
	}
	return dst
}

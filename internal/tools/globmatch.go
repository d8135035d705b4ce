package tools

import (
	"fmt"
	"path"
	"strings"
)

// globPattern is a compiled glob over slash-separated relative paths:
// `*`, `?` and `[...]` within one path segment (path.Match syntax), `**` as a
// whole segment for any number of segments (zero included), and `{a,b}`
// alternatives. Written here rather than imported: it is a few dozen lines
// and the rules are exactly the ones the tool descriptions promise.
type globPattern struct {
	alts [][]string // one segment list per brace alternative
}

// maxBraceAlternatives bounds brace expansion ({a,b}{c,d}... multiplies).
const maxBraceAlternatives = 256

func compileGlob(pattern string) (*globPattern, error) {
	expanded, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &globPattern{}
	for _, p := range expanded {
		segs := splitGlob(p)
		if len(segs) == 0 {
			return nil, fmt.Errorf("pattern %q matches nothing", pattern)
		}
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("pattern %q: bad segment %q", pattern, s)
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// splitGlob splits a pattern into segments, dropping "." and empty ones and
// collapsing runs of "**" (which match the same as one).
func splitGlob(p string) []string {
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || (s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**") {
			continue
		}
		segs = append(segs, s)
	}
	return segs
}

// match reports whether the slash-separated relative path rel matches.
func (g *globPattern) match(rel string) bool {
	name := strings.Split(rel, "/")
	for _, segs := range g.alts {
		if matchSegments(segs, name) {
			return true
		}
	}
	return false
}

// mayMatchUnder reports whether some path below directory dir (relative,
// slash-separated) could match, so a walk can skip directories that cannot.
func (g *globPattern) mayMatchUnder(dir string) bool {
	if dir == "." || dir == "" {
		return true
	}
	name := strings.Split(dir, "/")
	for _, segs := range g.alts {
		if prefixMatches(segs, name) {
			return true
		}
	}
	return false
}

// matchSegments decides pat against name by dynamic programming over
// (pattern segment, name segment) pairs: backtracking on each "**" would
// be exponential in their number ("**/a/**/a/**/b" on a deep path).
// ok[j] holds whether pat[i:] matches name[j:], built from the last pattern
// segment backwards.
func matchSegments(pat, name []string) bool {
	n := len(name)
	ok := make([]bool, n+1)
	next := make([]bool, n+1)
	ok[n] = true // the empty pattern matches only the empty rest
	for i := len(pat) - 1; i >= 0; i-- {
		ok, next = next, ok // next: pat[i+1:]; ok: being built for pat[i:]
		if pat[i] == "**" {
			last := i == len(pat)-1
			ok[n] = !last && next[n]
			for j := n - 1; j >= 0; j-- {
				// Zero segments (not for a trailing "**", which needs one),
				// or this segment and any number more.
				ok[j] = (!last && next[j]) || ok[j+1] || (last && j < n)
			}
			continue
		}
		ok[n] = false
		for j := n - 1; j >= 0; j-- {
			m, _ := path.Match(pat[i], name[j])
			ok[j] = m && next[j+1]
		}
	}
	return ok[0]
}

func prefixMatches(pat, dir []string) bool {
	for len(dir) > 0 {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[0], dir[0]); !ok {
			return false
		}
		pat, dir = pat[1:], dir[1:]
	}
	return len(pat) > 0
}

// hasGlobMeta reports whether a segment is a pattern rather than a literal name.
func hasGlobMeta(s string) bool {
	return strings.ContainsAny(s, `*?[\{`)
}

// splitLiteralPrefix peels the leading literal directories off a pattern so
// a walk can start there: "internal/**/*.go" → ("internal", "**/*.go"). The
// last segment always stays in the pattern.
func splitLiteralPrefix(pattern string) (dir, rest string) {
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs)-1 && !hasGlobMeta(segs[i]) {
		i++
	}
	dir = strings.Join(segs[:i], "/")
	if dir == "" && i > 0 {
		dir = "/" // the pattern was "/name"
	}
	return dir, strings.Join(segs[i:], "/")
}

// expandBraces turns "a{b,c}d" into ["abd", "acd"], nested braces included.
// An unmatched brace is literal.
func expandBraces(p string) ([]string, error) {
	open := -1
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			var out []string
			for _, alt := range splitTopLevel(p[open+1 : i]) {
				sub, err := expandBraces(p[:open] + alt + p[i+1:])
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
				if len(out) > maxBraceAlternatives {
					return nil, fmt.Errorf("pattern %q expands to more than %d alternatives", p, maxBraceAlternatives)
				}
			}
			return out, nil
		}
	}
	return []string{p}, nil
}

// splitTopLevel splits a brace body on commas outside nested braces.
func splitTopLevel(body string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, body[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, body[start:])
}

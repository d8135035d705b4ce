package repl

import (
	"strings"
)

// ANSI styles used by the terminal renderers. Each style resets only its
// own attribute so that nested styles (a code span inside bold) survive.
const (
	styleBold     = "\x1b[1m"
	styleDim      = "\x1b[2m"
	styleItalic   = "\x1b[3m"
	styleNormal   = "\x1b[22m" // ends bold and dim
	styleNoItalic = "\x1b[23m"
	styleCode     = "\x1b[36m" // cyan
	styleRed      = "\x1b[31m"
	styleYellow   = "\x1b[33m"
	styleGreen    = "\x1b[32m"
	styleFgReset  = "\x1b[39m"
)

// fenceOpen recognises ``` or ~~~ (three or more) with an optional info string.
func fenceOpen(s string) (mark, lang string, ok bool) {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return "", "", false
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return "", "", false
	}
	info := strings.TrimSpace(s[n:])
	if s[0] == '`' && strings.IndexByte(info, '`') >= 0 {
		return "", "", false // an inline code span, not a fence
	}
	if i := strings.IndexAny(info, " \t{"); i >= 0 {
		info = info[:i]
	}
	return s[:n], info, true
}

func isFenceClose(s, mark string) bool {
	if !strings.HasPrefix(s, mark) {
		return false
	}
	return strings.Trim(s, mark[:1]+" \t") == ""
}

func heading(s string) (level int, text string) {
	for level < len(s) && level < 7 && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0, ""
	}
	if level == len(s) {
		return level, ""
	}
	if s[level] != ' ' && s[level] != '\t' {
		return 0, ""
	}
	return level, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[level:]), "#"))
}

func isRule(s string) bool {
	if len(s) < 3 || (s[0] != '-' && s[0] != '*' && s[0] != '_') {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case s[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

func bullet(s string) (rest string, ok bool) {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t') {
		return strings.TrimLeft(s[2:], " \t"), true
	}
	return "", false
}

// renderInline styles `code`, **bold**/__bold__, *italic* and [text](url)
// within one line. Unmatched markers are printed as they are.
func renderInline(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_[]()#+-.!>", s[i+1]) >= 0:
			dst = append(dst, s[i+1])
			i += 2
			continue
		case c == '`':
			n := runLength(s[i:], '`')
			if end := strings.Index(s[i+n:], s[i:i+n]); end >= 0 {
				dst = append(dst, styleCode...)
				dst = append(dst, s[i+n:i+n+end]...)
				dst = append(dst, styleFgReset...)
				i += n + end + n
				continue
			}
			dst = append(dst, s[i:i+n]...)
			i += n
			continue
		case (c == '*' || c == '_') && i+1 < len(s) && s[i+1] == c:
			marker := s[i : i+2]
			if end := strings.Index(s[i+2:], marker); end > 0 && s[i+2] != ' ' {
				dst = append(dst, styleBold...)
				dst = renderInline(dst, s[i+2:i+2+end])
				dst = append(dst, styleNormal...)
				i += 2 + end + 2
				continue
			}
		case c == '*' && i+1 < len(s) && s[i+1] != ' ' && (i == 0 || s[i-1] == ' ' || s[i-1] == '('):
			if end := strings.IndexByte(s[i+1:], '*'); end > 0 && s[i+end] != ' ' {
				dst = append(dst, styleItalic...)
				dst = renderInline(dst, s[i+1:i+1+end])
				dst = append(dst, styleNoItalic...)
				i += 1 + end + 1
				continue
			}
		case c == '[':
			if text, url, n, ok := link(s[i:]); ok {
				dst = renderInline(dst, text)
				if url != text {
					dst = append(dst, " "+styleDim+"("...)
					dst = append(dst, url...)
					dst = append(dst, ")"+styleNormal...)
				}
				i += n
				continue
			}
		}
		dst = append(dst, c)
		i++
	}
	return dst
}

func runLength(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// link parses [text](url) at the start of s.
func link(s string) (text, url string, n int, ok bool) {
	close := strings.Index(s, "](")
	if close < 1 || strings.IndexByte(s[1:close], ']') >= 0 {
		return "", "", 0, false
	}
	end := strings.IndexByte(s[close+2:], ')')
	if end < 0 {
		return "", "", 0, false
	}
	url = s[close+2 : close+2+end]
	if strings.ContainsAny(url, " \t") {
		return "", "", 0, false
	}
	return s[1:close], url, close + 2 + end + 1, true
}

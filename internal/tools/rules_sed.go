package tools

import "strings"

// sedCode judges a GNU sed script for the rules: runs when it may run a
// command (the e command, the e flag of s), files when it names a file
// to write or read (w, W, the w flag of s, r, R). It reads the script's
// grammar as GNU sed's parser does — addresses, commands, the arguments
// of s and y up to their delimiters, the text of a, i and c and the
// names of labels and files up to the end of their line — and what it
// does not know counts as running a command (fail closed). A test holds
// it to `sed --sandbox`, which refuses e, r and w.
func sedCode(text string) (runs, files bool) {
	sc := sedScanner{s: text}
	defer func() {
		if recover() != nil {
			runs = true // a script it misread
		}
	}()
	return sc.script()
}

type sedScanner struct {
	s     string
	i     int
	runs  bool
	files bool
}

func (sc *sedScanner) more() bool { return sc.i < len(sc.s) }
func (sc *sedScanner) peek() byte { return sc.s[sc.i] }

func (sc *sedScanner) skipBlanks() {
	for sc.more() && (sc.peek() == ' ' || sc.peek() == '\t') {
		sc.i++
	}
}

// restOfLine passes the rest of the line (a label, a file name, a.i.c's
// text, a comment).
func (sc *sedScanner) restOfLine() {
	for sc.more() && sc.peek() != '\n' {
		sc.i++
	}
}

// label passes a label of b, t, T or :, which ends at ';', a newline or
// a blank: GNU sed 4.9 reads `b00 e` as a branch to "00" and then the e
// command (found by FuzzSedCode). Where another sed reads the blank as
// part of the label, what follows is read here as commands it is not,
// which can only make a rule ask, never let one through.
func (sc *sedScanner) label() {
	for sc.more() && strings.IndexByte("\n; \t", sc.peek()) < 0 {
		sc.i++
	}
}

func (sc *sedScanner) script() (bool, bool) {
	for {
		for sc.more() && strings.IndexByte(" \t\n;", sc.peek()) >= 0 {
			sc.i++
		}
		if !sc.more() || sc.runs {
			return sc.runs, sc.files
		}
		if !sc.address() {
			return true, sc.files
		}
		sc.command()
	}
}

// address passes an address or a range, and a '!'.
func (sc *sedScanner) address() bool {
	if !sc.one() {
		return false
	}
	sc.skipBlanks()
	if sc.more() && sc.peek() == ',' {
		sc.i++
		sc.skipBlanks()
		if sc.more() && (sc.peek() == '+' || sc.peek() == '~') {
			sc.i++
			sc.digits()
		} else if !sc.one() {
			return false
		}
	}
	sc.skipBlanks()
	for sc.more() && sc.peek() == '!' {
		sc.i++
		sc.skipBlanks()
	}
	return true
}

// one passes one address, if any: a line number (first~step), $, or a
// regular expression between slashes (or \c…c) with its I and M flags.
func (sc *sedScanner) one() bool {
	if !sc.more() {
		return true
	}
	switch c := sc.peek(); {
	case c >= '0' && c <= '9':
		sc.digits()
		if sc.more() && sc.peek() == '~' {
			sc.i++
			sc.digits()
		}
	case c == '$':
		sc.i++
	case c == '/' || c == '\\':
		if c == '\\' {
			sc.i++
			if !sc.more() || sc.peek() == '\n' || sc.peek() == '\\' {
				return false
			}
		}
		delim := sc.peek()
		sc.i++
		if !sc.delimited(delim) {
			return false
		}
		for sc.more() && (sc.peek() == 'I' || sc.peek() == 'M') {
			sc.i++
		}
	}
	return true
}

func (sc *sedScanner) digits() {
	for sc.more() && sc.peek() >= '0' && sc.peek() <= '9' {
		sc.i++
	}
}

// delimited passes text up to an unescaped delim, and the delim.
func (sc *sedScanner) delimited(delim byte) bool {
	for sc.more() {
		c := sc.peek()
		sc.i++
		switch {
		case c == '\\':
			if !sc.more() {
				return false
			}
			sc.i++
		case c == delim:
			return true
		case c == '\n' && delim != '\n':
			return false
		}
	}
	return false
}

// command passes one command and its arguments.
func (sc *sedScanner) command() {
	if !sc.more() {
		sc.runs = true // an address without a command
		return
	}
	c := sc.peek()
	sc.i++
	switch {
	case strings.IndexByte("{}=dDgGhHnNpPxzF", c) >= 0:
	case c == '#':
		sc.restOfLine() // a comment knows no continuation
	case c == 'a', c == 'i', c == 'c':
		sc.text()
	case c == ':', c == 'b', c == 't', c == 'T', c == 'v':
		sc.skipBlanks()
		sc.label()
	case strings.IndexByte("lLqQ", c) >= 0:
		sc.skipBlanks()
		sc.digits()
	case c == 'r', c == 'R', c == 'w', c == 'W':
		sc.files = true
		sc.restOfLine()
	case c == 's':
		sc.substitute()
	case c == 'y':
		sc.transliterate()
	default:
		sc.runs = true // e, or a command it does not know
	}
}

// text passes a, i and c's text (and a comment): to the end of the line,
// and on past lines that end in a backslash.
func (sc *sedScanner) text() {
	for sc.more() {
		c := sc.peek()
		sc.i++
		switch c {
		case '\\':
			if sc.more() {
				sc.i++ // an escaped character, a newline included
			}
		case '\n':
			return
		}
	}
}

// substitute passes s's regular expression, replacement and flags.
func (sc *sedScanner) substitute() {
	delim := sc.delimiter()
	if sc.runs || !sc.delimited(delim) || !sc.replacement(delim) {
		sc.runs = true
		return
	}
	for sc.more() {
		switch c := sc.peek(); {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c >= '0' && c <= '9':
			sc.i++
		case c == 'w':
			sc.files = true
			sc.restOfLine()
			return
		case c == 'e':
			sc.runs = true
			return
		case strings.IndexByte(" \t\n;}#", c) >= 0:
			return
		default:
			sc.runs = true
			return
		}
	}
}

// replacement passes s's replacement: newlines may be escaped in it.
func (sc *sedScanner) replacement(delim byte) bool {
	for sc.more() {
		c := sc.peek()
		sc.i++
		switch c {
		case '\\':
			if !sc.more() {
				return false
			}
			sc.i++
		case delim:
			return true
		}
	}
	return false
}

// transliterate passes y's two lists.
func (sc *sedScanner) transliterate() {
	delim := sc.delimiter()
	if sc.runs || !sc.delimited(delim) || !sc.delimited(delim) {
		sc.runs = true
	}
}

// delimiter reads the delimiter of s or y: any character but a newline or
// a backslash.
func (sc *sedScanner) delimiter() byte {
	if !sc.more() || sc.peek() == '\n' || sc.peek() == '\\' {
		sc.runs = true
		return 0
	}
	d := sc.peek()
	sc.i++
	return d
}

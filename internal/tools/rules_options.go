package tools

import "strings"

// Reading a program's options as its entry in the program table says
// (rules_programs.go): getopt's clusters (-xvf, -ofile), long options
// with = or a separate value, go's and terraform's single-dash long
// options.

// foundOpt is one option read before a program's operands.
type foundOpt struct {
	name     string
	kind     optKind
	value    shellWord
	hasValue bool
}

// readResult is what readOpts read.
type readResult struct {
	first int // the first operand (len(words) when none)
	found []foundOpt
	// ok is false when words[first] may be an option the table does not
	// know: where the operands begin is then unknown.
	ok bool
}

// readOpts reads a program's options from words[i:] as table says, up to
// its first operand ("--" ends them; "-" is an operand).
func readOpts(p *program, table map[string]optKind, words []shellWord, i int) readResult {
	var found []foundOpt
	for i < len(words) {
		w := words[i]
		if !w.literal {
			return readResult{first: i, found: found}
		}
		t := w.text
		switch {
		case t == "--":
			return readResult{first: i + 1, found: found, ok: true}
		case p.assignments && isAssignment(t):
			found = append(found, foundOpt{name: t, kind: optAssign, value: w, hasValue: true})
			i++
			continue
		case t == "-" || !strings.HasPrefix(t, "-") && !(p.kind == shellProg && strings.HasPrefix(t, "+")):
			return readResult{first: i, found: found, ok: true}
		}
		n, ok := readOne(p, table, words, i, &found)
		if !ok {
			return readResult{first: i, found: found}
		}
		i += n
		if last := found[len(found)-1].kind; p.kind == interpreter && (last == optModule || last == optCode) {
			// python -m mod args, python -c code args: the rest are the
			// program's arguments.
			return readResult{first: i, found: found, ok: true}
		}
	}
	return readResult{first: len(words), found: found, ok: true}
}

// readOne reads the option at words[i] (with its value) and returns how
// many words it took; false when the table does not know it.
func readOne(p *program, table map[string]optKind, words []shellWord, i int, found *[]foundOpt) (int, bool) {
	t := words[i].text
	name, val, attached := strings.Cut(t, "=")
	if p.singleDash && strings.HasPrefix(name, "--") {
		name = name[1:]
	}
	if k, ok := table[name]; ok && (attached || name == t || "-"+name == t) {
		f := foundOpt{name: name, kind: k}
		n := 1
		switch {
		case attached:
			f.value, f.hasValue = shellWord{text: val, literal: true}, true
		case k == optNumber:
			if i+1 < len(words) && isNumber(words[i+1].text) {
				f.value, f.hasValue, n = words[i+1], true, 2
			}
		case k.takesValue() && i+1 < len(words):
			f.value, f.hasValue, n = words[i+1], true, 2
		}
		*found = append(*found, f)
		return n, true
	}
	if p.singleDash || strings.HasPrefix(t, "--") {
		return 0, false
	}
	// A cluster of short options (-xvf, bash -lc), up to one that takes a
	// value: the rest of the word, or the next word.
	for j := 1; j < len(t); j++ {
		opt := t[:1] + t[j:j+1]
		k, ok := table[opt]
		if !ok {
			return 0, false
		}
		if !k.takesValue() && k != optNumber {
			*found = append(*found, foundOpt{name: opt, kind: k})
			continue
		}
		f := foundOpt{name: opt, kind: k}
		if rest := t[j+1:]; rest != "" {
			f.value, f.hasValue = shellWord{text: rest, literal: true}, true
			*found = append(*found, f)
			return 1, true
		}
		if i+1 < len(words) && (k != optNumber || isNumber(words[i+1].text)) {
			f.value, f.hasValue = words[i+1], true
			*found = append(*found, f)
			return 2, true
		}
		*found = append(*found, f)
		return 1, true
	}
	return 1, true
}

// isAssignment is a NAME=value word.
func isAssignment(t string) bool {
	name, _, ok := strings.Cut(t, "=")
	return ok && name != "" && strings.TrimLeft(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == "" &&
		(name[0] < '0' || name[0] > '9')
}

// lookupOpt finds the option a word is (or, for clustered short options,
// holds) in table.
func lookupOpt(p *program, table map[string]optKind, word string) (string, optKind, bool) {
	name, _, _ := strings.Cut(word, "=")
	if k, ok := table[name]; ok {
		return name, k, true
	}
	if p.singleDash {
		if long, ok := strings.CutPrefix(name, "--"); ok {
			k, found := table["-"+long]
			return "-" + long, k, found
		}
		return "", 0, false
	}
	if strings.HasPrefix(word, "--") {
		return "", 0, false
	}
	// -xvf: each letter, up to one that takes a value (the rest of the
	// word is its value).
	for j := 1; j < len(word); j++ {
		opt := "-" + word[j:j+1]
		if k, ok := table[opt]; ok {
			return opt, k, true
		}
	}
	return "", 0, false
}

package tools

import (
	"fmt"
	"path"
	"strings"
)

// invocation is one command a simple command runs, as the rules read it
// through the program table (rules_programs.go).
type invocation struct {
	// words are its words from the command word on, as written.
	words []shellWord
	// canon are the words a rule names: the command word, then for a
	// program with subcommands the subcommand and the rest, its global
	// options dropped and an alias given on the command line expanded
	// (`git --no-pager -c alias.p=push p origin` is `git push origin`).
	// nil when the table cannot tell where the subcommand stands (an
	// option it does not know, from ambiguousFrom on): a deny rule then
	// takes every word from there as the subcommand.
	canon         []shellWord
	ambiguousFrom int
	// runs names an option that runs a program or writes a file
	// (`-exec`, `--output`): no prefix rule covers the invocation.
	runs string
}

// cmdRuns is what one simple command runs.
type cmdRuns struct {
	// invs are the command and what it runs: first the command and the
	// commands its wrappers run, in order (main of them), then the
	// others (find's -exec commands, and the guesses past an option the
	// table does not know).
	invs []invocation
	main int
	// strings are the literal command lines it hands a shell (bash -c,
	// eval, flock -c, watch, ssh): a deny rule parses them.
	strings []string
	// undecided says why what it runs is known only when it runs ("" when
	// it is not): the whole line is then undecided.
	undecided string
}

func (r *cmdRuns) undecide(format string, args ...any) {
	if r.undecided == "" {
		r.undecided = fmt.Sprintf(format, args...)
	}
}

// maxAliasDepth bounds the expansion of command-line git aliases that
// name other aliases.
const maxAliasDepth = 8

// analyze reads a simple command's words through the program table: the
// command, the commands its wrappers run, find's -exec commands, and the
// command strings it hands a shell. Where a wrapper's option the table
// does not know hides where its command begins, every later word is read
// as the start of a command too (fail closed).
func analyze(words []shellWord) cmdRuns {
	var r cmdRuns
	type span struct {
		start, end int
		// guess: a start read because an unknown option hides the real
		// one; only its own invocation is read (the later words have
		// spans of their own).
		guess bool
	}
	queue := []span{{0, len(words), false}}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for start := s.start; start >= 0 && start < s.end; {
			next, extra, unknownFrom := r.invocation(words[:s.end], start)
			if s.guess {
				break
			}
			for _, e := range extra {
				queue = append(queue, span{e[0], e[1], false})
			}
			for k := unknownFrom; k >= 0 && k < s.end; k++ {
				queue = append(queue, span{k, s.end, true})
			}
			start = next
		}
		if r.main == 0 {
			r.main = len(r.invs)
		}
	}
	return r
}

// invocation reads the command at words[start] and returns where the
// command it runs begins (a wrapper's), or -1; the spans of further
// commands (find's -exec); and, when an option the table does not know
// hides where a wrapper's command begins, the word from which it could
// (else -1).
func (r *cmdRuns) invocation(words []shellWord, start int) (next int, extra [][2]int, unknownFrom int) {
	w := words[start]
	inv := invocation{words: words[start:], canon: words[start:]}
	if !w.literal {
		r.invs = append(r.invs, inv) // it could be any command
		return -1, nil, -1
	}
	name := path.Base(w.text)
	if why := builtinRunsString(name, words[start+1:]); why != "" {
		r.undecide("%s", why)
	}
	if name == "eval" && len(words) > start+1 {
		r.strings = append(r.strings, joinLiteral(words[start+1:], r, name))
	}
	p := lookupProgram(name)
	if p == nil {
		r.invs = append(r.invs, inv)
		return -1, nil, -1
	}
	switch p.kind {
	case subcommands:
		r.subcommand(p, &inv)
	case wrapper:
		next, unknownFrom = r.wrapped(p, name, words, start)
		return next, nil, unknownFrom
	case shellProg, interpreter:
		r.script(p, name, inv.words)
		return -1, nil, -1
	default:
		inv.runs = scanAnywhere(p, p.anywhere, nil, inv.words[1:], r)
		if p.code != nil {
			r.code(p, name, &inv)
		}
		if name == "find" {
			extra = findCommands(words, start, r)
		}
	}
	r.invs = append(r.invs, inv)
	return -1, extra, -1
}

// subcommand reads a program with subcommands: its global options, then
// its subcommand (a git alias given on the command line expanded), then
// the options that matter wherever they stand.
func (r *cmdRuns) subcommand(p *program, inv *invocation) {
	words := inv.words
	o := readOpts(p, p.opts, words, 1)
	aliases := map[string]string{}
	for _, f := range o.found {
		r.option(p, f, inv, aliases)
	}
	if !o.ok {
		inv.canon, inv.ambiguousFrom = nil, o.first
		inv.runs = firstNonEmpty(inv.runs, scanAnywhere(p, p.anywhere, nil, words[o.first:], r))
		return
	}
	if o.first >= len(words) {
		inv.canon = words[:1]
		return
	}
	rest := words[o.first:]
	expanded, why := expandAliases(rest, aliases)
	if why != "" {
		r.undecide("%s", why)
	}
	inv.canon = append([]shellWord{words[0]}, expanded...)
	var sub map[string]optKind
	if s := inv.canon[1]; s.literal {
		sub = p.sub[s.text]
	}
	inv.runs = firstNonEmpty(inv.runs, scanAnywhere(p, p.anywhere, sub, inv.canon[2:], r))
	if p.assignments {
		for _, w := range inv.canon[1:] {
			if w.literal && isAssignment(w.text) {
				// make's variables may name the programs its recipes run.
				inv.runs = firstNonEmpty(inv.runs, w.text)
			}
		}
	}
}

// option acts on one option read before an operand.
func (r *cmdRuns) option(p *program, f foundOpt, inv *invocation, aliases map[string]string) {
	switch f.kind {
	case optRuns, optRunsFlag, optWrites, optWritesRest, optCode:
		inv.runs = firstNonEmpty(inv.runs, f.name)
		if f.kind == optCode {
			r.undecide("%s %s runs code that no rule can read", path.Base(inv.words[0].text), f.name)
		}
	case optUndecided:
		r.undecide("%s %s: what it runs is known only when it runs", path.Base(inv.words[0].text), f.name)
	case optConfig:
		if why := gitConfig(f.value, aliases); why != "" {
			inv.runs = firstNonEmpty(inv.runs, f.name+" "+why)
			r.undecide("git %s %s: a configuration may name a program git runs", f.name, why)
		}
	case optAssign:
		if p.kind != wrapper {
			// make's variables may name the programs its recipes run.
			inv.runs = firstNonEmpty(inv.runs, f.value.text)
		}
		if name, _, _ := strings.Cut(f.value.text, "="); codeVariable(name) {
			r.undecide("%s sets %s, which names code a program runs", path.Base(inv.words[0].text), name)
		}
	case optShell:
		if !f.value.literal {
			r.undecide("%s %s takes a command string that is not a literal", path.Base(inv.words[0].text), f.name)
		} else {
			r.strings = append(r.strings, f.value.text)
		}
	}
}

// wrapped reads a wrapper's options and fixed operands and returns where
// its command begins (-1: none), or, when an option the table does not
// know hides it, from where it could.
func (r *cmdRuns) wrapped(p *program, name string, words []shellWord, start int) (next, unknownFrom int) {
	inv := invocation{words: words[start:], canon: words[start:]}
	o := readOpts(p, p.opts, inv.words, 1)
	stdinShell, replace := false, ""
	for _, f := range o.found {
		r.option(p, f, &inv, nil)
		switch {
		case f.kind == optStdin:
			stdinShell = true
		case name == "xargs" && (f.name == "-I" || f.name == "--replace" || f.name == "-i"):
			replace = "{}"
			if f.hasValue && f.value.text != "" {
				replace = f.value.text
			}
		}
	}
	r.invs = append(r.invs, inv)
	if !o.ok {
		return -1, start + o.first
	}
	cmd := start + o.first + p.operands
	if name == "flock" && cmd+1 < len(words) && words[cmd].literal && (words[cmd].text == "-c" || words[cmd].text == "--command") {
		// flock FILE -c COMMAND: a command line for a shell.
		r.option(p, foundOpt{name: words[cmd].text, kind: optShell, value: words[cmd+1], hasValue: true}, &inv, nil)
		return -1, -1
	}
	if !r.wrappedOperands(name, words[min(cmd, len(words)):], stdinShell, replace) || cmd >= len(words) {
		return -1, -1
	}
	return cmd, -1
}

// wrappedOperands acts on what a wrapper's command words are to it: one
// command line a shell runs (sudo -s, watch, ssh, parallel), a command
// whose name xargs fills in from its input, a shell su starts reading
// stdin. It reports whether the words are a command of their own.
func (r *cmdRuns) wrappedOperands(name string, operands []shellWord, stdinShell bool, replace string) bool {
	switch {
	case stdinShell || name == "watch" || name == "ssh" || name == "parallel":
		if len(operands) == 0 {
			r.undecide("%s runs a shell that reads its commands from stdin", name)
			return false
		}
		r.strings = append(r.strings, joinLiteral(operands, r, name))
	case len(operands) > 0 && replace != "" && (!operands[0].literal || strings.Contains(operands[0].text, replace)):
		r.undecide("xargs takes the command's name from its input (%s)", replace)
	case len(operands) > 0 && (name == "su" || name == "runuser") && !operands[0].literal:
		r.undecide("%s runs a command that is not a literal", name)
	case len(operands) == 0 && (name == "su" || name == "runuser") && len(r.strings) == 0:
		r.undecide("%s runs a shell that reads its commands from stdin", name)
	}
	return true
}

// script reads a shell or an interpreter: a command string (-c), code in
// an option (-e), a script file, or the program read from stdin.
func (r *cmdRuns) script(p *program, name string, words []shellWord) {
	inv := invocation{words: words, canon: words}
	o := readOpts(p, p.opts, words, 1)
	command, stdin, given := false, false, false
	for _, f := range o.found {
		r.option(p, f, &inv, nil)
		command = command || f.kind == optCommand
		stdin = stdin || f.kind == optStdin
		given = given || f.kind == optModule || f.kind == optCode
	}
	r.invs = append(r.invs, inv)
	operands := words[o.first:]
	switch {
	case !o.ok:
		r.undecide("%s takes an option the permission rules do not know", name)
	case command && len(operands) == 0:
		r.undecide("%s -c takes its command string from elsewhere", name)
	case command && !operands[0].literal:
		r.undecide("%s -c runs a command string that is not a literal", name)
	case command && p.otherGrammar:
		r.undecide("%s -c runs a command string in a grammar other than bash's", name)
	case command:
		r.strings = append(r.strings, operands[0].text)
	case given:
		// python -m mod, or code in an option (python -c: undecided
		// already)
	case stdin || len(operands) == 0 || operands[0].literal && operands[0].text == "-":
		r.undecide("%s reads the program it runs from stdin", name)
	}
}

// code judges the program text of awk or sed: the first operand, or the
// values of -e (and --expression, --source).
func (r *cmdRuns) code(p *program, name string, inv *invocation) {
	var texts []shellWord
	given := false
	words := inv.words[1:]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.literal {
			texts = append(texts, w)
			continue
		}
		switch {
		case w.text == "-e" || w.text == "--expression" || w.text == "--source":
			given = true
			if i+1 < len(words) {
				texts = append(texts, words[i+1])
				i++
			}
		case strings.HasPrefix(w.text, "--expression=") || strings.HasPrefix(w.text, "--source="):
			given = true
			_, v, _ := strings.Cut(w.text, "=")
			texts = append(texts, shellWord{text: v, literal: true})
		case w.text == "-f" || w.text == "--file" || strings.HasPrefix(w.text, "--file="):
			given = true // a script file: no rule can read it
		}
	}
	if !given {
		if first := firstOperand(words); first != nil {
			texts = append(texts, *first)
		}
	}
	for _, t := range texts {
		if !t.literal {
			r.undecide("the %s program is not a literal", name)
			return
		}
		runs, writes := p.code(t.text)
		switch {
		case runs:
			inv.runs = firstNonEmpty(inv.runs, "its program")
			r.undecide("the %s program may run a command", name)
		case writes:
			inv.runs = firstNonEmpty(inv.runs, "its program")
		}
	}
}

// firstOperand is the first word that is not an option (awk's and sed's
// program), skipping the values of the options that take one.
func firstOperand(words []shellWord) *shellWord {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.literal || !strings.HasPrefix(w.text, "-") || w.text == "-" {
			return &words[i]
		}
		if w.text == "--" {
			if i+1 < len(words) {
				return &words[i+1]
			}
			return nil
		}
		switch w.text {
		case "-F", "-v", "-l", "-i", "-E", "-W":
			i++ // awk's and sed's options with a separate value
		}
	}
	return nil
}

// findCommands returns the spans of the commands find's -exec, -execdir,
// -ok and -okdir run, each up to its ; or +.
func findCommands(words []shellWord, start int, r *cmdRuns) [][2]int {
	var spans [][2]int
	for k := start + 1; k < len(words); k++ {
		w := words[k]
		if !w.literal || (w.text != "-exec" && w.text != "-execdir" && w.text != "-ok" && w.text != "-okdir") {
			continue
		}
		end := k + 1
		for end < len(words) && !(words[end].literal && (words[end].text == ";" || words[end].text == "+")) {
			end++
		}
		if k+1 < end {
			if c := words[k+1]; !c.literal || strings.Contains(c.text, "{}") {
				r.undecide("find %s runs a command named by what it finds", w.text)
			}
			spans = append(spans, [2]int{k + 1, end})
		}
		k = end
	}
	return spans
}

// joinLiteral joins words into the command line a shell is given, or
// undecides when one is not a literal.
func joinLiteral(words []shellWord, r *cmdRuns, name string) string {
	texts := make([]string, len(words))
	for i, w := range words {
		if !w.literal {
			r.undecide("%s runs a command line that is not a literal", name)
			return ""
		}
		texts[i] = w.text
	}
	return strings.Join(texts, " ")
}

// scanAnywhere finds, among words, an option of the tables (the
// program's, its subcommand's) that runs a program or writes a file, and
// returns its name ("" when none). Options that hand a shell a string or
// are undecided act on r. Words after "--" are operands.
func scanAnywhere(p *program, anywhere, sub map[string]optKind, words []shellWord, r *cmdRuns) string {
	if len(anywhere) == 0 && len(sub) == 0 {
		return ""
	}
	runs := ""
	for i, w := range words {
		if !w.literal || !strings.HasPrefix(w.text, "-") {
			continue
		}
		if w.text == "--" {
			break
		}
		for _, table := range []map[string]optKind{anywhere, sub} {
			name, kind, ok := lookupOpt(p, table, w.text)
			if !ok {
				continue
			}
			switch kind {
			case optRuns, optRunsFlag, optWrites, optWritesRest, optCode:
				runs = firstNonEmpty(runs, name)
			case optConfig:
				value := shellWord{}
				if _, v, attached := strings.Cut(w.text, "="); attached && strings.HasPrefix(w.text, "--") {
					value = shellWord{text: v, literal: true}
				} else if i+1 < len(words) {
					value = words[i+1]
				}
				if why := gitConfig(value, map[string]string{}); why != "" {
					runs = firstNonEmpty(runs, name+" "+why)
					r.undecide("git %s %s: a configuration may name a program git runs", name, why)
				}
			case optUndecided:
				r.undecide("%s %s: what it runs is known only when it runs", path.Base(name), name)
			}
		}
	}
	return runs
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

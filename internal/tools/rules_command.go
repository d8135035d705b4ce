package tools

import (
	"errors"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// How a Bash rule is held against a command line (parseShell):
//
//   - Each simple command is read through the program table
//     (rules_programs.go, analyze): the commands it runs (itself, what its
//     wrappers run — `sudo -u me timeout 5 make` runs make —, find's
//     -exec commands), each as written and as a rule names it, with the
//     program's global options dropped and an alias given on the command
//     line expanded (`git -C . --no-pager -c alias.p=push p` is
//     `git push`); the options that run a program or write a file
//     (`go test -exec`, `git diff --output`); the command strings it
//     hands a shell. What makes a string run that the line only holds as
//     data, or whose meaning is fixed only when it runs (trap, alias,
//     source, a shell or interpreter fed from stdin, `python -c`,
//     `env -S`, BASH_ENV=…, a git alias running `!…`: rules_strings.go),
//     makes the line undecided.
//
//   - An allow rule covers a line the walk can decide (not opaque) when
//     every simple command in it is covered by a rule. A prefix rule
//     `Bash(git diff:*)` covers a command whose first words, as written or
//     as the rule names them, are those literal words, with no NAME=value
//     prefix (GIT_EXTERNAL_DIFF=… or LD_PRELOAD=… would run something
//     else), no redirection that writes a file (the rule allowed a
//     command, not where its output goes, so `echo hi > out` under
//     `Bash(echo:*)` asks), and no option that runs a program or writes a
//     file. An exact rule `Bash(npm test)` covers the command with exactly
//     those words, prefixes and file writes. Redirections to descriptors
//     or /dev/null and reads do not count. Wrappers are commands of their
//     own: `Bash(echo:*)` does not cover `command echo`, `eval echo` or
//     `sh -c 'echo'`.
//
//   - A deny rule covers a line the walk cannot decide, and any simple
//     command that runs a command whose words could be the rule's: the
//     command word is looked at without its directory (`/bin/rm` is rm),
//     a word that is not a literal could be anything, a program's option
//     the table does not know could hide the subcommand (every later word
//     is taken for it), and the literal command strings of `eval`,
//     `bash -c`, `flock -c`, `ssh`… are parsed and looked into; a string
//     it cannot read is undecidable. What a program does with a script
//     file or its configuration (a Makefile, `python x.py`) no rule can
//     see: the sandbox bounds it.

// maxShellDepth bounds how deep a deny rule looks into wrappers and
// command strings; deeper is undecidable.
const maxShellDepth = 8

// Separators of a Bash rule's canonical form: words, and the parts of an
// exact command (prefixes, words, writes).
const (
	wordSep = "\x00"
	partSep = "\x01"
)

var errBashSpec = errors.New("a Bash rule names one simple command of literal words (quoted as bash would)")

// parseBashSpec parses a Bash rule's command into its canonical words
// and, for an exact rule, the key of the whole command.
func parseBashSpec(spec string, prefix bool) (words, key string, err error) {
	line := parseShell(spec)
	if line.opaque != "" || len(line.cmds) != 1 {
		return "", "", errBashSpec
	}
	cmd := line.cmds[0]
	key, ok := cmdKey(cmd)
	if !ok || cmd.unruled || len(cmd.words) == 0 {
		return "", "", errBashSpec
	}
	if prefix && (len(cmd.assigns) > 0 || len(cmd.writes) > 0) {
		return "", "", errors.New("a Bash prefix rule names plain words, without assignments or redirections")
	}
	return joinWords(cmd.words), key, nil
}

// cmdKey is the canonical form of a command whose every word and
// assignment is a literal.
func cmdKey(c shellCmd) (string, bool) {
	for _, w := range c.words {
		if !w.literal {
			return "", false
		}
	}
	for _, a := range c.assigns {
		if a == "" {
			return "", false
		}
	}
	return strings.Join(c.assigns, wordSep) + partSep + joinWords(c.words) + partSep + strings.Join(c.writes, wordSep), true
}

func joinWords(words []shellWord) string {
	s := make([]string, len(words))
	for i, w := range words {
		s[i] = w.text
	}
	return strings.Join(s, wordSep)
}

// allowsCmd reports whether allow rule r covers one simple command.
func (r Rule) allowsCmd(c shellCmd) bool {
	if c.unruled || len(c.words) == 0 {
		return false
	}
	if !r.prefix {
		key, ok := cmdKey(c)
		return ok && key == r.key
	}
	if len(c.assigns) > 0 || len(c.writes) > 0 {
		return false
	}
	for _, inv := range c.run.invs {
		if inv.runs != "" {
			return false // an option that runs a program or writes a file
		}
	}
	want := strings.Split(r.words, wordSep)
	if prefixOf(want, c.words) {
		return true
	}
	top := c.run.invs[0]
	return top.canon != nil && prefixOf(want, top.canon)
}

// prefixOf reports whether words begin with the literal words want.
func prefixOf(want []string, words []shellWord) bool {
	if len(words) < len(want) {
		return false
	}
	for i, w := range want {
		if !words[i].literal || words[i].text != w {
			return false
		}
	}
	return true
}

// deniesLine reports whether deny rule r covers a line: one it cannot
// decide, or one with a command r could name.
func (r Rule) deniesLine(l shellLine) bool {
	d := denyWalk{rule: r, parses: maxDenyParses}
	return d.line(l, 0)
}

// maxDenyParses bounds the command strings one deny check parses (a line
// of many `bash -c` words); past it the line is undecidable.
const maxDenyParses = 64

// denyWalk is one deny rule's look into a line, with its parse budget.
type denyWalk struct {
	rule   Rule
	parses int
}

func (d *denyWalk) line(l shellLine, depth int) bool {
	if l.opaque != "" || depth > maxShellDepth {
		return true
	}
	for _, c := range l.cmds {
		if d.cmd(c, depth) {
			return true
		}
	}
	return false
}

// cmd reports whether the rule could name a command the simple command
// runs — itself, what its wrappers run, find's -exec commands, each as
// written and as the rule would name it (global options dropped, aliases
// expanded) — or one of the command strings it hands a shell.
func (d *denyWalk) cmd(c shellCmd, depth int) bool {
	for _, inv := range c.run.invs {
		if d.invocation(inv) {
			return true
		}
	}
	for _, s := range c.run.strings {
		if d.parses--; d.parses < 0 {
			return true
		}
		if d.line(parseShell(s), depth+1) {
			return true
		}
	}
	return false
}

func (d *denyWalk) invocation(inv invocation) bool {
	if len(inv.words) == 0 {
		return false
	}
	if !inv.words[0].literal {
		return true // it could be any command
	}
	name := path.Base(inv.words[0].text)
	if d.rule.couldName(name, inv.words) || inv.canon != nil && d.rule.couldName(name, inv.canon) {
		return true
	}
	if inv.canon == nil {
		// An option the table does not know: the subcommand could be any
		// later word.
		for k := max(inv.ambiguousFrom, 1); k < len(inv.words); k++ {
			if d.rule.couldName(name, append([]shellWord{inv.words[0]}, inv.words[k:]...)) {
				return true
			}
		}
	}
	return false
}

// couldName reports whether words (whose command word is name) could be
// the command of deny rule r: every word of the rule matched by a literal
// word, or a word that is not a literal (it could expand to anything) in
// the way.
func (r Rule) couldName(name string, words []shellWord) bool {
	want := strings.Split(r.words, wordSep)
	for i, w := range want {
		if i >= len(words) {
			return false
		}
		if !words[i].literal {
			return true
		}
		text := words[i].text
		if i == 0 {
			text = name
		}
		if text != w {
			return false
		}
	}
	if r.prefix {
		return true
	}
	for _, w := range words[len(want):] {
		if w.literal {
			return false // an exact rule: a word more
		}
	}
	return true // the rest could expand to nothing
}

// proposeBash is the narrowest rule "always" grants for one simple
// command: the program and its subcommand as a prefix, as a rule names
// them (`git --no-pager log -1` gives `Bash(git log:*)`, `go test ./...`
// `Bash(go test:*)`), or for a program the table does not know its
// command word and a second word that reads as a subcommand; and the
// exact command where a prefix would allow more than the user saw — a
// program that runs other programs or whose every use destroys something
// (rules_programs.go: never a bare `Bash(env:*)` or `Bash(git:*)`), an
// option that runs a program or writes a file, an assignment, a
// redirection to a file, a command word that is not a plain word. It is
// the zero Rule when no rule can name the command (a word that is not a
// literal): "always" then adds nothing for it.
func proposeBash(c shellCmd) Rule {
	if c.unruled || len(c.words) == 0 || !c.words[0].literal {
		return Rule{}
	}
	first := c.words[0].text
	top := c.run.invs[0]
	prog := lookupProgram(path.Base(first))
	exact := len(c.writes) > 0 || len(c.assigns) > 0 || !plainWord(first) || top.runs != "" ||
		prog != nil && prog.exact
	var prefix string
	switch {
	case exact:
	case prog != nil && prog.kind == subcommands:
		// Never the bare program: its subcommand, or the exact command.
		if len(top.canon) > 1 && top.canon[1].literal && subcommand(top.canon[1].text) && !prog.exactSub[top.canon[1].text] {
			prefix = first + " " + top.canon[1].text
		}
	default:
		prefix = first
		if len(c.words) > 1 && c.words[1].literal && subcommand(c.words[1].text) {
			prefix += " " + c.words[1].text
		}
	}
	if prefix == "" {
		r, err := ParseRule(NameBash + "(" + cmdSource(c.call, c.redirs) + ")")
		if k, ok := cmdKey(c); err != nil || !ok || r.key != k {
			return Rule{}
		}
		return r
	}
	r, err := ParseRule(NameBash + "(" + prefix + ":*)")
	if err != nil {
		return Rule{}
	}
	return r
}

// cmdSource prints a simple command and its redirections, for an exact
// rule.
func cmdSource(call *syntax.CallExpr, redirs []*syntax.Redirect) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, &syntax.Stmt{Cmd: call, Redirs: redirs}); err != nil {
		return ""
	}
	return strings.TrimSpace(b.String())
}

// plainWord is a command name without quoting, expansion or globbing.
func plainWord(w string) bool {
	return w != "" && !strings.ContainsAny(w, "'\"\\$`*?[]{}~=<>()#;&| \t\n")
}

// subcommand is a second word that names what the command does (`status`
// in `git status`, `run-script`), not an option, a path or a file name.
func subcommand(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

package tools

import (
	"errors"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// How a Bash rule is held against a command line (parseShell):
//
//   - An allow rule covers a line the walk can decide (not opaque) when
//     every simple command in it is covered by a rule. A prefix rule
//     `Bash(git diff:*)` covers a command whose first words are those
//     literal words, with no NAME=value prefix (GIT_EXTERNAL_DIFF=… or
//     LD_PRELOAD=… would run something else) and no redirection that
//     writes a file: the rule allowed a command, not where its output
//     goes, so `echo hi > out` under `Bash(echo:*)` asks. An exact rule
//     `Bash(npm test)` covers the command with exactly those words,
//     prefixes and file writes. Redirections to descriptors or /dev/null
//     and reads do not count. Wrappers are commands of their own:
//     `Bash(echo:*)` does not cover `command echo`, `eval echo` or
//     `sh -c 'echo'`.
//
//   - A deny rule covers a line the walk cannot decide, and any simple
//     command whose words could be the rule's: the command word is looked
//     at without its directory (`/bin/rm` is rm), a word that is not a
//     literal could be anything, and it looks through wrappers (`sudo`,
//     `env`, `command`, `xargs`, `timeout`, `find -exec`…, at every
//     position after them) and into the command strings of `eval`,
//     `sh -c`, `bash -c`, `ssh`…; a string it cannot read is undecidable.
//     What a program does with its own arguments (a Makefile, a script
//     file, `python -c`) no rule can see.

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
	want := strings.Split(r.words, wordSep)
	if len(c.words) < len(want) {
		return false
	}
	for i, w := range want {
		if !c.words[i].literal || c.words[i].text != w {
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
	if l.opaque != "" {
		return true
	}
	for _, c := range l.cmds {
		if d.words(c.words, depth) {
			return true
		}
	}
	return false
}

// wrappers run the command their arguments name: a deny rule looks at
// every position after them (their options are not modelled, so `sudo
// -u rm ls` is looked at as rm too: failing closed).
var wrappers = map[string]bool{
	"sudo": true, "doas": true, "env": true, "command": true, "builtin": true, "exec": true,
	"nohup": true, "nice": true, "time": true, "xargs": true, "timeout": true, "stdbuf": true,
	"setsid": true, "ionice": true, "chrt": true, "taskset": true, "flock": true, "chroot": true,
	"unshare": true, "nsenter": true, "strace": true, "ltrace": true, "runuser": true, "su": true,
	"watch": true, "ssh": true, "script": true, "caffeinate": true, "systemd-run": true,
}

// shellRunners take a command line as a string: a deny rule parses each
// of their arguments, and all of them joined (eval's way).
var shellRunners = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "fish": true,
	"eval": true, "su": true, "runuser": true, "watch": true, "ssh": true, "script": true,
}

// findExec are find's options that run a command.
var findExec = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// words reports whether the rule could name the command words run:
// the command itself, the one at every position after a wrapper or
// find's -exec, and the command strings a shell runner takes.
func (d *denyWalk) words(words []shellWord, depth int) bool {
	if depth > maxShellDepth {
		return true
	}
	wrapped, find := false, false
	for k := range words {
		start := k == 0 || wrapped || find && words[k-1].literal && findExec[words[k-1].text]
		if !start {
			continue
		}
		if !words[k].literal {
			return true // it could be any command
		}
		name := path.Base(words[k].text)
		if d.rule.couldName(name, words[k:]) {
			return true
		}
		wrapped = wrapped || wrappers[name]
		find = find || name == "find"
		if shellRunners[name] && d.strings(words[k+1:], depth) {
			return true
		}
	}
	return false
}

// strings parses the arguments of a shell runner, each and all joined
// (eval's way), as command lines.
func (d *denyWalk) strings(args []shellWord, depth int) bool {
	texts := make([]string, 0, len(args))
	for _, w := range args {
		if !w.literal {
			return true
		}
		texts = append(texts, w.text)
	}
	if len(texts) > 1 {
		texts = append(texts, strings.Join(texts, " "))
	}
	for _, t := range texts {
		if d.parses--; d.parses < 0 {
			return true
		}
		if d.line(parseShell(t), depth+1) {
			return true
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

// runners are commands whose arguments are another command: a prefix rule
// for them would allow anything, so "always" allows such a command exactly,
var runners = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "fish": true, "eval": true, "exec": true,
	"sudo": true, "doas": true, "su": true, "env": true, "xargs": true, "nohup": true, "timeout": true,
	"nice": true, "time": true, "command": true, "builtin": true, "watch": true, "find": true,
	"python": true, "python3": true, "node": true, "perl": true, "ruby": true, "php": true,
	"ssh": true, "source": true, ".": true,
	// and commands whose every use destroys something: "always" for one
	// rm must not allow the next.
	"rm": true, "rmdir": true, "dd": true, "shred": true, "mkfs": true, "chmod": true,
	"chown": true, "kill": true, "pkill": true, "killall": true,
}

// proposeBash is the rule "always" grants for one simple command: the
// command word and its subcommand as a prefix (`git status:*`,
// `go test:*`, `ls:*`), or the exact command when a prefix would allow
// more than the user saw — a command that runs other commands, an
// assignment, a redirection to a file, a command word that is not a plain
// word. It is the zero Rule when no rule can name the command (a word
// that is not a literal): "always" then adds nothing for it.
func proposeBash(c shellCmd) Rule {
	if c.unruled || len(c.words) == 0 || !c.words[0].literal {
		return Rule{}
	}
	first := c.words[0].text
	if len(c.writes) > 0 || len(c.assigns) > 0 || !plainWord(first) || runners[path.Base(first)] {
		r, err := ParseRule(NameBash + "(" + cmdSource(c.call, c.redirs) + ")")
		if k, ok := cmdKey(c); err != nil || !ok || r.key != k {
			return Rule{}
		}
		return r
	}
	prefix := first
	if len(c.words) > 1 && c.words[1].literal && subcommand(c.words[1].text) {
		prefix += " " + c.words[1].text
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

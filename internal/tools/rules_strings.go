package tools

import (
	"strings"
)

// What makes bash, or a program, run a string the rules only see as data:
// a command line whose meaning is fixed only when it runs. Such a line is
// undecided (a deny rule denies it, an allow rule does not cover it) —
// the walker asks builtinRunsString of every command it could run, and
// codeVariable of every assignment.

// builtinRunsString says why a bash builtin called with args runs a
// string, changes what a later word of the line runs, or evaluates a
// name's subscript (which runs its command substitutions); "" when it
// does none of these.
func builtinRunsString(name string, args []shellWord) string {
	for _, a := range args {
		if !a.literal && stringBuiltins[name] {
			return name + " with an argument that is not a literal"
		}
	}
	if check := builtinChecks[name]; check != nil {
		return check(name, args)
	}
	return ""
}

// option reports whether one of args is an option holding a letter of
// letters (-C, -tC, -x).
func option(args []shellWord, letters string) bool {
	return anyWord(args, func(t string) bool { return strings.HasPrefix(t, "-") && strings.ContainsAny(t[1:], letters) })
}

// when gives why when the condition holds.
func when(cond bool, why string) string {
	if cond {
		return why
	}
	return ""
}

// builtinChecks judge the builtins that can run a string or change what
// a later word runs, by name.
var builtinChecks = map[string]func(name string, args []shellWord) string{
	"trap": func(_ string, args []shellWord) string {
		return when(hasOperand(args, "-l", "-p", "-P"), "trap sets a command that runs later")
	},
	"alias": func(_ string, args []shellWord) string {
		return when(anyWord(args, func(t string) bool { return strings.Contains(t, "=") }),
			"alias defines a command that runs in place of another")
	},
	"source": sourceFile, ".": sourceFile,
	"mapfile": callback, "readarray": callback,
	"complete": completion, "compgen": completion,
	"bind": func(_ string, args []shellWord) string {
		return when(option(args, "x"), "bind -x binds a command to a key")
	},
	"enable": func(_ string, args []shellWord) string {
		return when(len(args) > 0, "enable changes which commands the shell runs")
	},
	"fc": func(string, []shellWord) string { return "fc runs commands of the history" },
	"hash": func(_ string, args []shellWord) string {
		return when(option(args, "p"), "hash -p makes a name run another program")
	},
	"jobs": func(_ string, args []shellWord) string {
		return when(anyWord(args, func(t string) bool { return t == "-x" }), "jobs -x runs a command")
	},
	"set":   func(_ string, args []shellWord) string { return setOptions(args) },
	"shopt": func(_ string, args []shellWord) string { return shoptOptions(args) },
	// printf -v, test -v and wait -p name a variable; read's, unset's and
	// getopts' operands are variable names (read's options' values aside).
	"printf": namedByOption, "test": namedByOption, "[": namedByOption, "wait": namedByOption,
	"read": namedByOperand, "unset": namedByOperand, "getopts": namedByOperand,
}

func sourceFile(name string, args []shellWord) string {
	return when(len(args) > 0, name+" runs the commands of a file, which may change what later commands run")
}

func callback(name string, args []shellWord) string {
	return when(option(args, "C"), name+" -C runs a callback")
}

func completion(name string, args []shellWord) string {
	return when(option(args, "CFW"), name+" runs or expands a string it is given")
}

func namedByOption(name string, args []shellWord) string {
	return when(badName(optionValues(args, "-v", "-p")), name+" is given a variable it evaluates or that names code")
}

func namedByOperand(name string, args []shellWord) string {
	return when(badName(readNames(args)), name+" is given a variable it evaluates or that names code")
}

// stringBuiltins take strings they run or evaluate: an argument that is
// not a literal could be anything.
var stringBuiltins = map[string]bool{
	"trap": true, "alias": true, "source": true, ".": true, "eval": true, "mapfile": true, "readarray": true,
	"complete": true, "compgen": true, "bind": true, "enable": true, "hash": true, "set": true, "shopt": true,
	"fc": true, "jobs": true,
}

// hasOperand reports whether args hold a word other than the given
// options.
func hasOperand(args []shellWord, options ...string) bool {
	for _, a := range args {
		known := false
		for _, o := range options {
			known = known || a.text == o
		}
		if !known {
			return true
		}
	}
	return false
}

// optionValues are the words that follow one of the options.
func optionValues(args []shellWord, options ...string) []shellWord {
	var out []shellWord
	for i := 0; i+1 < len(args); i++ {
		for _, o := range options {
			if args[i].text == o {
				out = append(out, args[i+1])
			}
		}
	}
	return out
}

// readNames are the variable names read, unset and getopts are given:
// their operands and read's -a, not the values of read's other options.
func readNames(args []shellWord) []shellWord {
	var out []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case !args[i].literal || !strings.HasPrefix(t, "-"):
			out = append(out, args[i])
		case t == "-a":
			if i+1 < len(args) {
				out = append(out, args[i+1])
			}
			i++
		case t == "-p" || t == "-d" || t == "-t" || t == "-n" || t == "-N" || t == "-u" || t == "-i":
			i++
		}
	}
	return out
}

// badName reports whether a variable name is not a literal, has a
// subscript (evaluated as arithmetic, which runs its command
// substitutions: 'a[$(cmd)]') or names code (codeVariable).
func badName(names []shellWord) bool {
	for _, w := range names {
		n, _, _ := strings.Cut(w.text, "=")
		if !w.literal || strings.Contains(n, "[") || codeVariable(n) {
			return true
		}
	}
	return false
}

func anyWord(args []shellWord, f func(string) bool) bool {
	for _, a := range args {
		if f(a.text) {
			return true
		}
	}
	return false
}

// harmlessSet are the options of set that change nothing a rule relies
// on: exit on error, unset variables, tracing, globbing off, no clobber,
// no execution.
const harmlessSet = "euxvfCnB"

var harmlessSetLong = map[string]bool{
	"errexit": true, "nounset": true, "xtrace": true, "verbose": true, "noglob": true, "noclobber": true,
	"noexec": true, "pipefail": true, "braceexpand": true,
}

// setOptions judges `set`: its harmless options, or its positional
// parameters (after --), change nothing the rules rely on; others (set -k
// makes words assignments, -T passes traps into functions, -o posix
// changes parsing) are not modelled.
func setOptions(args []shellWord) string {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--" || t == "-":
			return ""
		case t == "-o" || t == "+o":
			if i+1 < len(args) && !harmlessSetLong[args[i+1].text] {
				return "set -o " + args[i+1].text + " is not modelled"
			}
			i++
		case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
			letters, long := strings.CutSuffix(t[1:], "o") // set -euo pipefail
			if strings.Trim(letters, harmlessSet) != "" {
				return "set " + t + " is not modelled"
			}
			if long {
				if i+1 < len(args) && !harmlessSetLong[args[i+1].text] {
					return "set -o " + args[i+1].text + " is not modelled"
				}
				i++
			}
		default:
			return "" // positional parameters
		}
	}
	return ""
}

// harmlessShopt are the shell options that change globbing and matching
// only; the rules read a word with a glob character as not a literal
// already.
var harmlessShopt = map[string]bool{
	"nullglob": true, "dotglob": true, "globstar": true, "failglob": true, "nocaseglob": true, "nocasematch": true,
	"extglob": true, "globasciiranges": true,
}

// shoptOptions judges `shopt`: queries and the globbing options change
// nothing the rules rely on; others (expand_aliases) are not modelled.
func shoptOptions(args []shellWord) string {
	setting := false
	for _, a := range args {
		switch t := a.text; {
		case t == "-s" || t == "-u":
			setting = true
		case t == "-p" || t == "-q" || t == "-o":
		case strings.HasPrefix(t, "-"):
			return "shopt " + t + " is not modelled"
		case setting && !harmlessShopt[t]:
			return "shopt " + t + " is not modelled"
		}
	}
	return ""
}

// codeVariable reports whether a variable's value is code that a shell or
// a program runs, or changes which program runs: the shell's startup and
// prompt commands, exported functions, the dynamic loader's libraries,
// git's configuration from the environment and the programs it runs,
// pagers and editors, interpreters' options. Setting one makes the line
// undecided.
func codeVariable(name string) bool {
	if codeVariables[name] {
		return true
	}
	for _, prefix := range []string{"BASH_FUNC_", "LD_", "DYLD_", "GIT_CONFIG"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return strings.HasSuffix(name, "_ASKPASS")
}

var codeVariables = map[string]bool{
	"BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true, "PS0": true, "PS1": true, "PS2": true, "PS3": true,
	"PS4": true, "SHELLOPTS": true, "BASHOPTS": true, "BASH_XTRACEFD": true,
	"GIT_EXEC_PATH": true, "GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true,
	"GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "GIT_PROXY_COMMAND": true, "GIT_TEMPLATE_DIR": true,
	"GIT_DIR": true, "GIT_WORK_TREE": true, "ASKPASS": true,
	"PAGER": true, "EDITOR": true, "VISUAL": true, "MANPAGER": true, "LESSOPEN": true, "LESSCLOSE": true,
	"PERL5OPT": true, "PERL5LIB": true, "NODE_OPTIONS": true, "RUBYOPT": true, "PYTHONSTARTUP": true,
	"PYTHONPATH": true, "GOFLAGS": true, "CARGO_BUILD_RUSTC_WRAPPER": true, "RUSTC_WRAPPER": true,
	"SHELL": true, "MAKEFLAGS": true,
}

// harmlessGitConfig are configuration keys (as prefixes) that run
// nothing: colours, identity, advice, output.
var harmlessGitConfig = []string{"color.", "user.name", "user.email", "advice.", "core.quotepath", "init.defaultbranch",
	"column.", "i18n."}

// gitConfig reads git's -c key=value: an alias is recorded in aliases
// for the subcommand to be expanded; it returns why any other key but
// the harmless ones makes the command run what the key names ("" when
// it does not).
func gitConfig(value shellWord, aliases map[string]string) string {
	if !value.literal {
		return "(a configuration that is not a literal)"
	}
	key, v, _ := strings.Cut(value.text, "=")
	key = strings.ToLower(key)
	if name, ok := strings.CutPrefix(key, "alias."); ok && aliases != nil {
		aliases[name] = v
		return ""
	}
	for _, h := range harmlessGitConfig {
		if strings.HasPrefix(key, h) {
			return ""
		}
	}
	return key
}

// expandAliases replaces a subcommand that a command-line alias names
// with the alias's words, as git does; why is set when an alias runs a
// shell command (!…) or cannot be read as plain words.
func expandAliases(rest []shellWord, aliases map[string]string) (out []shellWord, why string) {
	out = rest
	for depth := 0; depth < maxAliasDepth; depth++ {
		if len(out) == 0 || !out[0].literal {
			return out, ""
		}
		value, ok := aliases[strings.ToLower(out[0].text)]
		if !ok {
			return out, ""
		}
		if strings.HasPrefix(value, "!") {
			return out, "the git alias " + out[0].text + " runs a shell command"
		}
		if strings.ContainsAny(value, "'\"\\$`") || strings.TrimSpace(value) == "" {
			return out, "the git alias " + out[0].text + " is not plain words"
		}
		var words []shellWord
		for _, f := range strings.Fields(value) {
			words = append(words, shellWord{text: f, literal: true})
		}
		delete(aliases, strings.ToLower(out[0].text)) // git does not expand an alias within itself
		out = append(words, out[1:]...)
	}
	return out, "git aliases nest too deep"
}

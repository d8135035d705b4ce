package tools

import (
	"path/filepath"
	"strings"
)

// Commands lists the commands a shell command line runs, as the
// permission rules see them: split at the shell's separators, each with
// its leading keywords, assignments and wrappers dropped ("cd x && FOO=1
// go test ./..." runs "cd x" and "go test ./..."). The memory suggestions
// classify a session's Bash calls through it.
func Commands(cmd string) []string {
	parts := splitCommand(cmd)
	for i, p := range parts {
		parts[i] = commandWords(p)
	}
	return parts
}

// CommandParts splits a shell command line as Commands does, leaving each
// part as written (its wrappers and the command's directory kept): for a
// reader that wants the paths a command names.
func CommandParts(cmd string) []string { return splitCommand(cmd) }

// splitCommand splits a shell command into the parts that run as commands
// of their own: at `;`, `&&`, `||`, `|`, `&`, a newline, `(`, `)`, and
// around command substitutions (a backtick, `$(`, `<(`, `>(`), which run
// even inside double quotes. Quoting is honoured otherwise ('…' and "…" and
// backslash escapes), so `git commit -m "a; b"` is one part. Parts are
// trimmed; empty ones are dropped. The split errs on the side of more
// parts: an allow rule then has more to cover, never less.
func splitCommand(cmd string) []string {
	var (
		parts []string
		cur   strings.Builder
	)
	cut := func() {
		if p := strings.TrimSpace(cur.String()); p != "" {
			parts = append(parts, p)
		}
		cur.Reset()
	}
	inSingle, inDouble := false, false
	for i := 0; i < len(cmd); i++ {
		ch := cmd[i]
		next := byte(0)
		if i+1 < len(cmd) {
			next = cmd[i+1]
		}
		switch {
		case inSingle:
			cur.WriteByte(ch)
			if ch == '\'' {
				inSingle = false
			}
			continue
		case ch == '\\' && next != 0:
			cur.WriteByte(ch)
			cur.WriteByte(next)
			i++
			continue
		case ch == '`' || (ch == '$' && next == '('):
			// Command substitution: its inside is a command of its own,
			// quoted or not.
			cut()
			if ch == '$' {
				i++
			}
			continue
		case inDouble && ch == ')':
			// Most likely the end of a $( inside the quotes: what follows
			// is a part of its own either way.
			cut()
			continue
		case inDouble:
			cur.WriteByte(ch)
			if ch == '"' {
				inDouble = false
			}
			continue
		}
		switch ch {
		case '\'':
			inSingle = true
			cur.WriteByte(ch)
		case '"':
			inDouble = true
			cur.WriteByte(ch)
		case ';', '\n', '\r', '(', ')':
			cut()
		case '|':
			cut()
			if next == '|' || next == '&' {
				i++
			}
		case '&':
			switch {
			case next == '>':
				cur.WriteByte(ch) // &> is a redirection
			case i > 0 && (cmd[i-1] == '>' || cmd[i-1] == '<'):
				cur.WriteByte(ch) // >&2, <&0
			default:
				cut()
				if next == '&' {
					i++
				}
			}
		case '<', '>':
			if next == '(' {
				cut() // process substitution
				i++
				continue
			}
			cur.WriteByte(ch)
		default:
			cur.WriteByte(ch)
		}
	}
	cut()
	return parts
}

// writesFile reports whether a command part redirects output to a file
// (anything but /dev/null, /dev/stdout, /dev/stderr or another descriptor).
func writesFile(part string) bool {
	inSingle, inDouble := false, false
	for i := 0; i < len(part); i++ {
		ch := part[i]
		switch {
		case inSingle:
			inSingle = ch != '\''
			continue
		case ch == '\\':
			i++
			continue
		case inDouble:
			inDouble = ch != '"'
			continue
		case ch == '\'':
			inSingle = true
			continue
		case ch == '"':
			inDouble = true
			continue
		case ch != '>':
			continue
		}
		j := i + 1
		if j < len(part) && (part[j] == '>' || part[j] == '|') {
			j++
		}
		if j < len(part) && part[j] == '&' {
			// >&2, >&- : a descriptor, not a file (>&word with a name is
			// bash's synonym for &>word).
			k := j + 1
			for k < len(part) && part[k] >= '0' && part[k] <= '9' {
				k++
			}
			if k < len(part) && part[k] == '-' {
				k++
			}
			if k > j+1 && (k == len(part) || part[k] == ' ' || part[k] == '\t') {
				i = k - 1
				continue
			}
			j++
		}
		for j < len(part) && (part[j] == ' ' || part[j] == '\t') {
			j++
		}
		end := j
		for end < len(part) && part[end] != ' ' && part[end] != '\t' {
			end++
		}
		switch part[j:end] {
		case "/dev/null", "/dev/stdout", "/dev/stderr":
			i = end - 1
			continue
		}
		return true
	}
	return false
}

// shellKeywords may start a part without being the command it runs.
var shellKeywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "do": true, "while": true,
	"until": true, "!": true, "{": true, "}": true, "time": true,
}

// wrappers run the command that follows them (after their own options):
// a deny rule looks past them.
var wrappers = map[string]bool{
	"sudo": true, "doas": true, "env": true, "command": true, "builtin": true, "exec": true,
	"nohup": true, "nice": true, "time": true, "xargs": true, "timeout": true, "stdbuf": true,
}

// commandWords returns the command a part runs, as a deny rule should see
// it: leading shell keywords, variable assignments and wrappers (`if`,
// `do`, `FOO=1`, `sudo -u x`, `xargs -0`, `timeout 5`) dropped, and the
// command word without its directory or a leading backslash (`/bin/rm`,
// `\rm` are rm).
func commandWords(part string) string {
	for {
		part = strings.TrimLeft(part, " \t")
		word, rest, _ := strings.Cut(part, " ")
		base := filepath.Base(strings.TrimPrefix(word, "\\"))
		switch {
		case word == "":
			return part
		case shellKeywords[word] || isAssignment(word):
			part = rest
		case wrappers[base]:
			part = rest
			// The wrapper's options, and timeout's duration.
			for {
				part = strings.TrimLeft(part, " \t")
				w, r, _ := strings.Cut(part, " ")
				if !strings.HasPrefix(w, "-") && !(base == "timeout" && w != "" && strings.Trim(w, "0123456789.smhd") == "") {
					break
				}
				part = r
				if (base == "sudo" || base == "doas") && len(w) == 2 && strings.Contains("ugCDprtUh", w[1:]) {
					_, part, _ = strings.Cut(strings.TrimLeft(part, " \t"), " ") // the option's value
				}
			}
		case base != word:
			return base + strings.TrimPrefix(part, word)
		default:
			return part
		}
	}
}

func isAssignment(word string) bool {
	name, _, ok := strings.Cut(word, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
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

// proposeBash is the rule "always" grants for one part of a command: the
// command word and its subcommand as a prefix (`git status:*`, `go test:*`,
// `ls:*`), or the exact part when a prefix would allow more than the user
// saw — a command that runs other commands, an assignment, a redirection to
// a file, or a part that does not start with a plain word.
func proposeBash(part string) Rule {
	exact := Rule{tool: NameBash, command: part}
	if writesFile(part) {
		return exact
	}
	fields := strings.Fields(part)
	if len(fields) == 0 || !plainWord(fields[0]) || runners[filepath.Base(fields[0])] || isAssignment(fields[0]) {
		return exact
	}
	prefix := fields[0]
	if len(fields) > 1 && subcommand(fields[1]) {
		prefix += " " + fields[1]
	}
	return Rule{tool: NameBash, command: prefix, prefix: true}
}

// plainWord is a command name without quoting, expansion or globbing.
func plainWord(w string) bool {
	return w != "" && !strings.ContainsAny(w, "'\"\\$`*?[]{}~=<>()")
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

package tools

import (
	"path/filepath"
	"strings"
)

// Commands lists the commands a shell command line runs, as the
// permission rules see them: each simple command of the line as bash
// parses it (parseShell), its words joined by spaces, without its
// NAME=value prefixes and with the wrappers that only run their arguments
// dropped, with their options ("cd x && FOO=1 sudo -u me go test ./..."
// runs "cd x" and "go test ./..."). A word that is not a literal stands as
// written. The memory suggestions classify a session's Bash calls through
// it; a line the parser cannot read gives nothing.
func Commands(cmd string) []string {
	line := parseShell(cmd)
	if line.opaque != "" {
		return nil
	}
	var out []string
	for _, c := range line.cmds {
		if words := unwrapped(c.words); len(words) > 0 {
			out = append(out, strings.Join(words, " "))
		}
	}
	return out
}

// CommandParts lists the simple commands of a line as Commands does, each
// as written (its wrappers, assignments and redirections kept): for a
// reader that wants the paths a command names.
func CommandParts(cmd string) []string {
	line := parseShell(cmd)
	if line.opaque != "" {
		return nil
	}
	var out []string
	for _, c := range line.cmds {
		if c.call != nil {
			out = append(out, cmdSource(c.call, c.redirs))
		}
	}
	return out
}

// unwrapped is a command's words from the command the wrappers run: a
// wrapper's options (and timeout's duration, sudo's option values) are
// skipped, and the command word loses its directory (/usr/bin/go is go).
func unwrapped(ws []shellWord) []string {
	words := make([]string, len(ws))
	for i, w := range ws {
		words[i] = w.text
		if !w.literal {
			words[i] = "?"
		}
	}
	for len(words) > 0 && wrappers[filepath.Base(words[0])] {
		base := filepath.Base(words[0])
		words = words[1:]
		for len(words) > 0 && (strings.HasPrefix(words[0], "-") ||
			base == "timeout" && strings.Trim(words[0], "0123456789.smhd") == "" ||
			base == "env" && strings.Contains(words[0], "=")) {
			opt := words[0]
			words = words[1:]
			if (base == "sudo" || base == "doas") && len(opt) == 2 && strings.Contains("ugCDprtUh", opt[1:]) && len(words) > 0 {
				words = words[1:] // the option's value
			}
		}
	}
	if len(words) > 0 {
		words[0] = filepath.Base(words[0])
	}
	return words
}

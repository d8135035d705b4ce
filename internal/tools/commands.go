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
		if words := unwrapped(c); len(words) > 0 {
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

// unwrapped is the words of the command a simple command's wrappers run
// (the last command the program table reads in it), as a rule names them:
// global options dropped, the command word without its directory
// (/usr/bin/go is go). A word that is not a literal stands as "?".
func unwrapped(c shellCmd) []string {
	if c.run.main == 0 {
		return nil
	}
	inv := c.run.invs[c.run.main-1]
	ws := inv.canon
	if ws == nil {
		ws = inv.words
	}
	words := make([]string, len(ws))
	for i, w := range ws {
		words[i] = w.text
		if !w.literal {
			words[i] = "?"
		}
	}
	if len(words) > 0 {
		words[0] = filepath.Base(words[0])
	}
	return words
}

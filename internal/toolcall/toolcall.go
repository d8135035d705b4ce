// Package toolcall is the one reader of what a tool call did: which
// built-in tool it named, whether it read, changed or searched a file and
// which path, or which command it ran. Every part that looks back at the
// calls of a conversation asks it — the files a summary carries
// (fileanalyzer), the evidence ledger (ledger), the context ladder's
// superseded reads and the re-orientation packet (contextmgr), the memory
// suggestions (memory), the files a resumed session has seen (agent) — so
// that they agree on every call, however the model spelt its name.
//
// It also holds the built-in tools' names (CONTRACT.md §3): the tools
// package offers its tools under them.
//
// Guarantees: a name is matched as tools.Lookup matches it, exactly first
// and then without regard to case ("edit" is Edit); a call's input that
// does not parse names no path and no command, never an error. It reads
// nothing from disk and has no dependencies beyond the standard library.
package toolcall

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// The built-in tools' names, as offered to the model.
const (
	Read       = "Read"
	Write      = "Write"
	Edit       = "Edit"
	Bash       = "Bash"
	Glob       = "Glob"
	Grep       = "Grep"
	BashOutput = "BashOutput"
	KillShell  = "KillShell"
	WebFetch   = "WebFetch"
	Recall     = "Recall"
	Task       = "Task"
	TodoWrite  = "TodoWrite"
	Skill      = "Skill"
	// ExitPlanMode hands the plan made in plan mode to the user for
	// approval (Claude Code's name, offered in plan mode only).
	ExitPlanMode = "ExitPlanMode"
	// MultiEdit is not offered by clawdcode; it is Claude Code's, and its
	// calls come with the sessions clawdcode imports. It changes the file
	// it names like Edit.
	MultiEdit = "MultiEdit"
)

// Effect is what a call did to the file it names.
type Effect int

const (
	// None: the call names no file (Bash, Task, Recall, an unknown tool).
	None Effect = iota
	// Reads: the call read the file (Read).
	Reads
	// Changes: the call wrote or edited the file (Write, Edit, MultiEdit).
	Changes
	// Searches: the call searched under the path (Glob, Grep); the path
	// may be a directory, or empty for the whole project.
	Searches
)

// known are the names Name recognises, with the effect of each.
var known = []struct {
	name   string
	effect Effect
}{
	{Read, Reads}, {Write, Changes}, {Edit, Changes}, {MultiEdit, Changes},
	{Glob, Searches}, {Grep, Searches},
	{Bash, None}, {BashOutput, None}, {KillShell, None}, {WebFetch, None},
	{Recall, None}, {Task, None}, {TodoWrite, None}, {Skill, None},
}

// Name is the built-in tool that a call's name stands for ("edit" is
// Edit); ok is false for any other name (an MCP tool's, a made-up one),
// which is returned unchanged.
func Name(called string) (name string, ok bool) {
	for _, k := range known {
		if k.name == called {
			return k.name, true
		}
	}
	for _, k := range known {
		if strings.EqualFold(k.name, called) {
			return k.name, true
		}
	}
	return called, false
}

// Is reports whether a call's name stands for the built-in tool name.
func Is(called, name string) bool {
	got, ok := Name(called)
	return ok && got == name
}

// Call is what one tool call did, as its name and input tell.
type Call struct {
	// Tool is the built-in tool's own name ("Edit" for a call of "edit"),
	// or the name as called when it is no built-in's (Known false).
	Tool  string
	Known bool
	// Effect is what the call did to the file at Path.
	Effect Effect
	// Path is the file_path of Read, Write, Edit and MultiEdit, or the
	// path of Glob and Grep, as the call wrote it ("" = none given).
	Path string
	// Command is Bash's command, as the call wrote it.
	Command string
}

// ReadsOrChanges reports whether the call read or changed the file at Path.
func (c Call) ReadsOrChanges() bool {
	return (c.Effect == Reads || c.Effect == Changes) && c.Path != ""
}

// Classify reads one call: its tool's name and its JSON input. The input
// is decoded only for a tool that names a file or runs a command.
func Classify(called string, input json.RawMessage) Call {
	c := Call{}
	c.Tool, c.Known = Name(called)
	if !c.Known {
		return c
	}
	for _, k := range known {
		if k.name == c.Tool {
			c.Effect = k.effect
			break
		}
	}
	if c.Effect == None && c.Tool != Bash {
		return c
	}
	var in struct {
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
		Command  string `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil {
		return c
	}
	switch c.Effect {
	case Reads, Changes:
		c.Path = in.FilePath
	case Searches:
		c.Path = in.Path
	default:
		c.Command = in.Command
	}
	return c
}

// Rel is a call's path as the summaries and suggestions show it: relative
// to root when it is an absolute path inside root, else as written.
func Rel(root, p string) string {
	if p == "" || !filepath.IsAbs(p) || root == "" {
		return p
	}
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

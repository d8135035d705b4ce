package tools

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// A tool has two forms of its definition: the full one (Definition), and
// a brief one for small context windows, where the full definitions of
// the twelve built-in tools (about 1.9k tokens) would take most of what a
// 4k window leaves the conversation. The brief form keeps the name, the
// parameters' names, types, limits and required ones, and one or two
// sentences of what the tool does and must be given; the parameters'
// descriptions are left out. Which form a session sends is the context
// manager's choice, made once when the session starts (contextmgr's
// brief.go), so a session's tools never change under it.

// briefs are the built-in tools' brief descriptions, by name. Task's is
// built with its subagent types (NewTask).
var briefs = map[string]string{
	NameRead:       "Read a text file; lines come numbered (number, tab, line). For long files give offset (1-based line) and limit. Read a file before you Edit or Write it.",
	NameWrite:      "Write a whole file (new, or a complete rewrite of one you have Read). Prefer Edit to change part of a file.",
	NameEdit:       "Replace old_string with new_string in a file you have Read. old_string must match exactly (no line-number prefix) and be unique, or set replace_all.",
	NameBash:       "Run a bash command in the project root; returns stdout and stderr. Each call is a fresh shell. timeout in ms (default 120000). run_in_background for servers and watchers.",
	NameGlob:       "Find files by glob pattern, e.g. \"**/*.go\"; newest first.",
	NameGrep:       "Search file contents with a Go RE2 regular expression; prints path:line:text. glob filters file names.",
	NameBashOutput: "New output of a background Bash command, and whether it still runs.",
	NameKillShell:  "End a background Bash command.",
	NameWebFetch:   "Fetch an http(s) URL as Markdown.",
	NameRecall:     "Search this conversation's whole history, including what was cleared or compacted out of your context: query lists matching records with their refs; ref reads one (offset reads on). scope: session, project or all.",
	NameTodoWrite:  "Replace your task list: every item with status pending, in_progress or completed.",
}

// BriefDefinition is t's brief definition, or its full one when it has no
// brief form (an MCP server's tool).
func BriefDefinition(t Tool) chat.ToolDef {
	if b, ok := t.(interface{ Brief() chat.ToolDef }); ok {
		return b.Brief()
	}
	return t.Definition()
}

// Brief is t's brief definition.
func (t *tool) Brief() chat.ToolDef {
	d := t.Definition()
	if t.brief != "" {
		d.Description = t.brief
	}
	if t.briefSchema != "" {
		d.Parameters = json.RawMessage(t.briefSchema)
	}
	return d
}

// withoutDescriptions is s with every description left out (those of
// its properties, and of a list's items and their properties).
func withoutDescriptions(s *jsonschema.Schema) *jsonschema.Schema {
	c := *s
	c.Description = ""
	if s.Items != nil {
		c.Items = withoutDescriptions(s.Items)
	}
	if s.Properties != nil {
		c.Properties = make(map[string]*jsonschema.Schema, len(s.Properties))
		for name, p := range s.Properties {
			c.Properties[name] = withoutDescriptions(p)
		}
	}
	return &c
}

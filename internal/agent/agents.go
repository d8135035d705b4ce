package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/clawdcode/clawdcode/internal/deffile"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// Custom subagent types (CONTRACT.md §12) are Markdown files: front matter
// description:, tools: (a subset of the parent's tools, a YAML list or
// comma-separated) and model:, the body being the subagent's system
// prompt. A project's files come with the repository, like its custom
// commands: they are read only through deffile (a regular file directly
// in its directory, never a link), and they cannot widen anything — tools
// only ever narrows the parent's set, a file whose front matter does not
// parse is skipped (a tools: it meant to set is never lost), and every
// call still goes through the parent's permissions.

// agentFileLimit bounds an agent file: a system prompt, not a document.
const agentFileLimit = 64 << 10

// agentDirs are the directories agent files are read from, the project's
// first (it wins over the user's).
func agentDirs(p *storage.Project) []string {
	return []string{
		filepath.Join(p.Root, ".clawdcode", "agents"),
		filepath.Join(p.Store().Home(), "agents"),
	}
}

// loadAgentTypes returns the built-in types and the custom ones of dirs
// (earlier dirs win; a built-in's name cannot be taken). A file that
// cannot be used is skipped with a warning to warn (nil drops it).
func loadAgentTypes(dirs []string, warn func(string)) []SubagentType {
	if warn == nil {
		warn = func(string) {}
	}
	types := []SubagentType{generalAgent, exploreAgent}
	builtin := func(name string) bool {
		return strings.EqualFold(name, generalAgent.Name) || strings.EqualFold(name, exploreAgent.Name)
	}
	deffile.Walk(dirs, "subagent types", warn, func(dir, file, name string) bool {
		if builtin(name) {
			return false
		}
		path := filepath.Join(dir, file)
		t, err := readAgentFile(dir, file, name)
		if err != nil {
			warn(fmt.Sprintf("subagent type %s ignored: %v", path, err))
			return false
		}
		t.Source = path
		types = append(types, t)
		return true
	})
	return types
}

// readAgentFile parses one agent file (name is its name without .md).
func readAgentFile(dir, file, name string) (SubagentType, error) {
	if name == "" || strings.IndexFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	}) >= 0 {
		return SubagentType{}, errors.New("a subagent type's name is letters, digits, '-' and '_'")
	}
	meta, body, err := deffile.ReadDefinition(dir, file, agentFileLimit)
	if errors.Is(err, deffile.ErrEmptyBody) {
		return SubagentType{}, errors.New("the file has no system prompt")
	}
	if err != nil {
		return SubagentType{}, err
	}
	t := SubagentType{Name: name, prompt: body}
	if t.Description, err = meta.Text("description"); err != nil {
		return SubagentType{}, err
	}
	if t.Model, err = meta.Text("model"); err != nil {
		return SubagentType{}, err
	}
	if t.Description == "" {
		t.Description, _, _ = strings.Cut(body, "\n")
	}
	// A tools: that is set but cannot be read is an error, never the
	// parent's tools (nil).
	tools, set, err := meta.Names("tools")
	if err != nil {
		return SubagentType{}, err
	}
	if set {
		t.Tools = tools
	}
	return t, nil
}

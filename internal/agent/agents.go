package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/clawdcode/clawdcode/internal/deffile"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
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

// refresh reads the subagent types again when a file of their folders
// changed since the last read (a new agent file needs no restart) and
// reports whether they changed. Each problem is warned about once.
func (t *Tasks) refresh(warn func(string)) bool {
	stamp := dirStamp(t.dirs, ".md")
	if stamp == t.stamp && t.types != nil {
		return false
	}
	t.stamp = stamp
	if t.warned == nil {
		t.warned = map[string]bool{}
	}
	next := loadAgentTypes(t.dirs, func(msg string) {
		if !t.warned[msg] && warn != nil {
			warn(msg)
		}
		t.warned[msg] = true
	})
	changed := fmt.Sprint(next) != fmt.Sprint(t.types)
	t.types = next
	return changed
}

// dirStamp sums the names, sizes and times of the files of dirs that end
// in suffix: what a change to one of them changes.
func dirStamp(dirs []string, suffix string) string {
	h := sha256.New()
	for _, dir := range dirs {
		fmt.Fprintln(h, dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), suffix) {
				continue
			}
			if fi, err := e.Info(); err == nil {
				fmt.Fprintf(h, "%s %d %d\n", e.Name(), fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
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
	if err := checkAgentName(name); err != nil {
		return SubagentType{}, err
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

// NewAgent is a subagent type to write a file for (/agents new).
type NewAgent struct {
	Name, Description string
	// Tools are the tools it may use (nil: the session's tools but Task).
	Tools  []string
	Prompt string
	// User puts the file in $CLAWDCODE_HOME/agents, for every project;
	// otherwise it goes in the project's .clawdcode/agents.
	User bool
}

// Create writes the file of a new subagent type and returns its path; Task
// offers the type from the next turn on. It refuses a name a built-in type
// or a file there has, a tool the session does not have, and an empty
// description or prompt; an existing file is never overwritten.
func (t *Tasks) Create(a NewAgent) (string, error) {
	a.Name, a.Description, a.Prompt = strings.TrimSpace(a.Name), strings.TrimSpace(a.Description), strings.TrimSpace(a.Prompt)
	if err := checkAgentName(a.Name); err != nil {
		return "", err
	}
	if _, taken := t.lookup(a.Name); taken {
		return "", fmt.Errorf("a subagent type %q exists already", a.Name)
	}
	switch {
	case a.Description == "" || strings.ContainsAny(a.Description, "\r\n"):
		return "", errors.New("the description is one line that says when to use it")
	case a.Prompt == "":
		return "", errors.New("the system prompt is empty")
	}
	var names []string
	for _, want := range a.Tools {
		tool, ok := tools.Lookup(t.e.builtin, strings.TrimSpace(want))
		if !ok || tool.Name() == tools.NameTask {
			return "", fmt.Errorf("no tool %q to give it (the session's: %s)", want, strings.Join(t.toolNames(), ", "))
		}
		names = append(names, tool.Name())
	}
	dir := agentDirs(t.e.cfg.Project)[0]
	if a.User {
		dir = agentDirs(t.e.cfg.Project)[1]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\ndescription: %s\n", strconv.Quote(a.Description))
	if a.Tools != nil {
		fmt.Fprintf(&b, "tools: %s\n", strings.Join(names, ", "))
	}
	fmt.Fprintf(&b, "---\n%s\n", a.Prompt)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, a.Name+".md")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	t.refresh(t.e.cfg.Warn)
	return path, nil
}

// toolNames are the tools a subagent may be given: the session's but Task.
func (t *Tasks) toolNames() []string {
	var out []string
	for _, tool := range t.e.builtin {
		if tool.Name() != tools.NameTask {
			out = append(out, tool.Name())
		}
	}
	return out
}

// checkAgentName holds a subagent type's name to what its file name can be.
func checkAgentName(name string) error {
	if name == "" || strings.IndexFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	}) >= 0 {
		return errors.New("a subagent type's name is letters, digits, '-' and '_'")
	}
	return nil
}

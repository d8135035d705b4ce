package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Bounds of the list in the tool's description: a skill's description is
// cut at describeRunes, and past listBudget bytes the skills are named
// without one.
const (
	describeRunes = 300
	listBudget    = 12000
	// filesShown bounds the files beside SKILL.md that a use lists.
	filesShown = 50
)

// Grant is called when the model uses a skill that names allowed-tools:
// the engine lets them run without asking while the turn lasts, and says
// what it granted (or why not) in a line for the model.
type Grant func(ctx context.Context, sk Skill) string

// Tool is the Skill tool over set: it lists the skills in its description
// and gives a skill's instructions, or a file beside them, when called.
type Tool struct {
	set   *Set
	grant Grant
}

var _ tools.Tool = (*Tool)(nil)

// NewTool returns the Skill tool over set; grant (nil: none) hears of each
// use of a skill with allowed-tools.
func NewTool(set *Set, grant Grant) *Tool { return &Tool{set: set, grant: grant} }

func (t *Tool) Name() string          { return tools.NameSkill }
func (t *Tool) NeedsPermission() bool { return false }

type skillArgs struct {
	Name string `json:"name"`
	File string `json:"file"`
}

func (t *Tool) Describe(input json.RawMessage) string {
	var a skillArgs
	_ = json.Unmarshal(input, &a)
	if a.File != "" {
		return tools.NameSkill + "(" + a.Name + ": " + a.File + ")"
	}
	return tools.NameSkill + "(" + a.Name + ")"
}

func (t *Tool) Definition() chat.ToolDef {
	var b strings.Builder
	b.WriteString("Use a skill: instructions, and sometimes files and scripts, for a kind of task. " +
		"When a request matches a skill's description, call Skill with its name before doing the task, then follow what it says. " +
		"A skill's instructions may name files beside them: read one with Skill {name, file}. Skills available:\n")
	list := t.set.List()
	for i, sk := range list {
		line := "- " + sk.Name + ": " + clipRunes(strings.Join(strings.Fields(sk.Description), " "), describeRunes) + "\n"
		if b.Len()+len(line) > listBudget {
			var names []string
			for _, rest := range list[i:] {
				names = append(names, rest.Name)
			}
			b.WriteString("- (described when used) " + strings.Join(names, ", ") + "\n")
			break
		}
		b.WriteString(line)
	}
	return chat.ToolDef{
		Name:        tools.NameSkill,
		Description: strings.TrimRight(b.String(), "\n"),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"name":{"type":"string","description":"the skill's name, as listed"},` +
			`"file":{"type":"string","description":"a file in the skill's folder, relative to it, e.g. reference.md (omit for the instructions)"}},` +
			`"required":["name"]}`),
	}
}

func (t *Tool) Run(ctx context.Context, input json.RawMessage) tools.Result {
	var a skillArgs
	if err := json.Unmarshal(input, &a); err != nil || strings.TrimSpace(a.Name) == "" {
		return tools.Result{Error: "name is required: one of the skills listed in Skill's description"}
	}
	sk, ok := t.set.Lookup(a.Name)
	if !ok {
		var names []string
		for _, s := range t.set.List() {
			names = append(names, s.Name)
		}
		return tools.Result{Error: fmt.Sprintf("no skill %q; the skills are: %s", a.Name, strings.Join(names, ", "))}
	}
	if a.File != "" {
		text, err := readBeside(sk, a.File)
		if err != nil {
			return tools.Result{Error: err.Error()}
		}
		return tools.Result{Output: text}
	}
	body, err := Body(sk)
	if err != nil {
		return tools.Result{Error: err.Error()}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %q (its folder: %s)\n\n%s\n", sk.Name, sk.Folder, body)
	if files := beside(sk.Folder); len(files) > 0 {
		fmt.Fprintf(&b, "\nFiles in the skill's folder (read one with Skill {\"name\": %q, \"file\": <path>}; run a script from the folder):\n", sk.Name)
		for _, f := range files {
			b.WriteString("- " + f + "\n")
		}
	}
	if len(sk.AllowedTools) > 0 && t.grant != nil {
		if note := t.grant(ctx, sk); note != "" {
			b.WriteString("\n" + note + "\n")
		}
	}
	return tools.Result{Output: strings.TrimRight(b.String(), "\n")}
}

// readBeside reads the file name of sk's folder: inside the folder (no
// name, link or .. reaches out of it: os.Root), a regular text file,
// bounded.
func readBeside(sk Skill, name string) (string, error) {
	root, err := os.OpenRoot(sk.Folder)
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	defer root.Close()
	rel := filepath.Clean(filepath.FromSlash(name))
	f, err := root.Open(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("skill %s has no file %s", sk.Name, name)
		}
		return "", fmt.Errorf("skill %s: %s is not a file of its folder: %v", sk.Name, name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("skill %s: %s is not a regular file", sk.Name, name)
	}
	data, err := io.ReadAll(io.LimitReader(f, fileLimit+1))
	if err != nil {
		return "", fmt.Errorf("skill %s: read %s: %w", sk.Name, name, err)
	}
	if len(data) > fileLimit {
		return "", fmt.Errorf("skill %s: %s is larger than %d KiB; read it with Read or run it", sk.Name, name, fileLimit>>10)
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return "", fmt.Errorf("skill %s: %s is not text; use it from the folder %s", sk.Name, name, sk.Folder)
	}
	return string(data), nil
}

// beside lists the files of folder but SKILL.md (relative, slash
// separated, hidden ones left out), at most filesShown of them.
func beside(folder string) []string {
	var out []string
	_ = filepath.WalkDir(folder, func(path string, d fs.DirEntry, err error) error {
		if err != nil || len(out) > filesShown {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(folder, path)
		if rel != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && rel != FileName {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	if len(out) > filesShown {
		out = append(out[:filesShown], "…")
	}
	return out
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

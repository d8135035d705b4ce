// Package skills reads Agent Skills — the folders with a SKILL.md that
// Claude Code, Codex and others share — and offers them to the model
// through one tool, Skill.
//
// A skill is a folder <dir>/<name>/ holding SKILL.md: YAML front matter
// (name, description, optional allowed-tools) and Markdown instructions,
// maybe with more files beside it (references, scripts). Skills are read
// from the project's .clawdcode/skills and .claude/skills, then the user's
// $CLAWDCODE_HOME/skills; an earlier folder's skill wins a name.
//
// What the model gets, and when:
//   - the names and descriptions, in the Skill tool's description,
//     bounded (each description and the whole list): enough to choose;
//   - a skill's instructions only when it calls Skill {name}, and a file
//     beside them only when it asks for it (Skill {name, file}), read
//     then from disk, never before.
//
// A project's skills come with the repository. They are read through
// deffile (SKILL.md a regular file directly in its folder, never a link)
// and a project skill's folder must not be a link either; a file beside
// SKILL.md is opened inside the folder (os.Root), so no name reaches out
// of it. Whether a project's skills are offered at all is the front end's
// decision (they follow the project's trust): NewSet gets only the
// folders to offer.
//
// A Set is safe for concurrent use.
package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/clawdcode/clawdcode/internal/deffile"
	"go.yaml.in/yaml/v3"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// fileLimit bounds SKILL.md and each file beside it that the model reads.
const fileLimit = 256 << 10

// Skill is one skill as listed: what the model chooses by.
type Skill struct {
	Name        string
	Description string
	// AllowedTools are the tools or permission rules the skill lets run
	// without asking while it is in use (allowed-tools), as written.
	AllowedTools []string
	// Folder is the skill's folder; Path its SKILL.md.
	Folder, Path string
	// Project is set for a skill that came with the repository.
	Project bool
}

// Dir is a folder of skills.
type Dir struct {
	Path string
	// Project is set for the project's folders (they follow its trust).
	Project bool
}

// Dirs are the folders skills are read from, in precedence order: the
// project's .clawdcode/skills and .claude/skills, then home's skills.
func Dirs(root, home string) []Dir {
	return []Dir{
		{Path: filepath.Join(root, ".clawdcode", "skills"), Project: true},
		{Path: filepath.Join(root, ".claude", "skills"), Project: true},
		{Path: filepath.Join(home, "skills")},
	}
}

// Load reads the skills of dirs (earlier dirs win a name, compared without
// regard to case). A skill that cannot be used is left out with a line to
// warn (nil drops it); a missing folder is no problem.
func Load(dirs []Dir, warn func(string)) []Skill {
	if warn == nil {
		warn = func(string) {}
	}
	var out []Skill
	seen := map[string]bool{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d.Path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warn(fmt.Sprintf("skills in %s: %v", d.Path, err))
			}
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			sk, err := read(d, e.Name())
			if errors.Is(err, errNoSkill) {
				continue
			}
			if err != nil {
				warn(fmt.Sprintf("skill %s ignored: %v", filepath.Join(d.Path, e.Name(), FileName), err))
				continue
			}
			if key := strings.ToLower(sk.Name); !seen[key] {
				seen[key] = true
				out = append(out, sk)
			}
		}
	}
	return out
}

// errNoSkill: a folder entry that is no skill (a file, a folder without
// SKILL.md), passed over in silence.
var errNoSkill = errors.New("not a skill")

// read reads the skill in folder name of d.
func read(d Dir, name string) (Skill, error) {
	folder := filepath.Join(d.Path, name)
	fi, err := os.Lstat(folder)
	if err != nil {
		return Skill{}, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if d.Project {
			// A repository's link could point the model at any folder.
			return Skill{}, errors.New("a project skill's folder is a symbolic link")
		}
		if fi, err = os.Stat(folder); err != nil {
			return Skill{}, err
		}
	}
	if !fi.IsDir() {
		return Skill{}, errNoSkill
	}
	if _, err := os.Lstat(filepath.Join(folder, FileName)); errors.Is(err, fs.ErrNotExist) {
		return Skill{}, errNoSkill
	}
	data, err := deffile.Read(folder, FileName, fileLimit)
	if err != nil {
		return Skill{}, err
	}
	meta, _, err := frontMatter(string(data))
	if err != nil {
		return Skill{}, err
	}
	sk := Skill{Name: strings.TrimSpace(meta.Name), Description: strings.TrimSpace(meta.Description),
		AllowedTools: meta.AllowedTools, Folder: folder, Path: filepath.Join(folder, FileName), Project: d.Project}
	if sk.Name == "" {
		sk.Name = name
	}
	if err := checkName(sk.Name); err != nil {
		return Skill{}, err
	}
	if sk.Description == "" {
		return Skill{}, errors.New("no description in its front matter: the model could not know when to use it")
	}
	return sk, nil
}

// checkName holds a name to what a tool call can carry plainly.
func checkName(name string) error {
	if len(name) > 64 || strings.IndexFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	}) >= 0 {
		return fmt.Errorf("name %q: a skill's name is at most 64 letters, digits, '-' and '_'", name)
	}
	return nil
}

// Body reads sk's instructions: SKILL.md after its front matter, read now
// (it may have changed since the list was made).
func Body(sk Skill) (string, error) {
	data, err := deffile.Read(sk.Folder, FileName, fileLimit)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", sk.Path, err)
	}
	_, body, err := frontMatter(string(data))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", sk.Path, err)
	}
	return strings.TrimSpace(body), nil
}

// meta is SKILL.md's front matter.
type meta struct {
	Name         string   `yaml:"name"`
	Description  string   `yaml:"description"`
	AllowedTools toolList `yaml:"allowed-tools"`
}

// toolList is allowed-tools: a YAML list, or one comma-separated string
// (Claude Code's usual spelling), each entry a tool or a rule.
type toolList []string

func (l *toolList) UnmarshalYAML(n *yaml.Node) error {
	var list []string
	if n.Kind == yaml.SequenceNode {
		if err := n.Decode(&list); err != nil {
			return err
		}
	} else {
		var s string
		if err := n.Decode(&s); err != nil {
			return err
		}
		list = splitTools(s)
	}
	for _, t := range list {
		if t = strings.TrimSpace(t); t != "" {
			*l = append(*l, t)
		}
	}
	return nil
}

// splitTools splits "Read, Bash(git diff:*)" at the commas outside
// parentheses.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// frontMatter reads SKILL.md: its leading "---" YAML block, parsed by the
// YAML library, and the text after it. A file without the block has no
// front matter; a block that does not parse is an error naming its line.
func frontMatter(text string) (meta, string, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var m meta
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return m, text, nil
	}
	block, body, found := strings.Cut("\n"+rest, "\n---")
	if !found {
		return m, text, errors.New("its front matter has no closing ---")
	}
	if err := yaml.Unmarshal([]byte(block), &m); err != nil {
		return m, "", fmt.Errorf("front matter: %w", err)
	}
	_, body, _ = strings.Cut(body, "\n") // the rest of the closing line
	return m, body, nil
}

// Set is the skills offered in a run, read again when their folders
// change (Refresh).
type Set struct {
	dirs []Dir
	warn func(string)
	// Ignored are the project's skills not offered (an untrusted
	// project's), for /skills to name.
	Ignored []Skill

	mu     sync.Mutex
	skills []Skill
	stamp  string
	warned map[string]bool
}

// NewSet reads the skills of dirs now; warn hears of each skill left out,
// once.
func NewSet(dirs []Dir, warn func(string)) *Set {
	s := &Set{dirs: dirs, warn: warn, warned: map[string]bool{}}
	s.Refresh()
	return s
}

// Refresh reads the skills again when a folder or a SKILL.md changed since
// the last read, and reports whether the list changed.
func (s *Set) Refresh() bool {
	if s == nil {
		return false
	}
	stamp := s.fingerprint()
	s.mu.Lock()
	defer s.mu.Unlock()
	if stamp == s.stamp && s.stamp != "" {
		return false
	}
	s.stamp = stamp
	next := Load(s.dirs, s.warnOnce)
	changed := fmt.Sprint(next) != fmt.Sprint(s.skills)
	s.skills = next
	return changed
}

func (s *Set) warnOnce(msg string) {
	if !s.warned[msg] && s.warn != nil {
		s.warn(msg)
	}
	s.warned[msg] = true
}

// fingerprint sums what a change of the skills changes: each folder's
// entries and each SKILL.md's size and time.
func (s *Set) fingerprint() string {
	h := sha256.New()
	for _, d := range s.dirs {
		fmt.Fprintf(h, "%s\n", d.Path)
		entries, err := os.ReadDir(d.Path)
		if err != nil {
			continue
		}
		for _, e := range entries {
			fmt.Fprintf(h, " %s", e.Name())
			if fi, err := os.Stat(filepath.Join(d.Path, e.Name(), FileName)); err == nil {
				fmt.Fprintf(h, " %d %d", fi.Size(), fi.ModTime().UnixNano())
			}
			fmt.Fprintln(h)
		}
	}
	return "s" + hex.EncodeToString(h.Sum(nil))
}

// List is the skills offered now.
func (s *Set) List() []Skill {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skills
}

// Lookup finds an offered skill by name, without regard to case.
func (s *Set) Lookup(name string) (Skill, bool) {
	for _, sk := range s.List() {
		if strings.EqualFold(sk.Name, strings.TrimSpace(name)) {
			return sk, true
		}
	}
	return Skill{}, false
}

// Asks are the lines a trust question lists for the project's skills of
// list: each skill, with the tools it would let run without asking.
func Asks(list []Skill) []string {
	var out []string
	for _, sk := range list {
		line := fmt.Sprintf("offer the skill %q to the model (%s)", sk.Name, sk.Path)
		if len(sk.AllowedTools) > 0 {
			line += ", which lets run without asking: " + strings.Join(sk.AllowedTools, ", ")
		}
		out = append(out, line)
	}
	return out
}

// Sum is the hex SHA-256 of what a trust decision about list covers: the
// skills' names, folders and allowed tools (their instructions may change
// without asking again, as AGENTS.md does).
func Sum(list []Skill) string {
	h := sha256.New()
	for _, sk := range list {
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", sk.Name, sk.Path, strings.Join(sk.AllowedTools, "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

package slash

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/clawdcode/clawdcode/internal/deffile"
)

// Custom commands (CONTRACT §9) are Markdown files whose body becomes the
// prompt: <project>/.clawdcode/commands/<name>.md and
// $CLAWDCODE_HOME/commands/<name>.md, the project's winning over the
// user's. "/name args" sends the body with $ARGUMENTS replaced by args and
// $1…$9 by its words; a body that uses neither gets the arguments appended,
// so that nothing the user typed is dropped silently.

// customFileLimit bounds a command file; a prompt template larger than
// this is a mistake (a log or a binary saved with .md).
const customFileLimit = 256 << 10

// CustomDirs are the directories custom commands are read from, in order
// of precedence.
func CustomDirs(projectDir, home string) []string {
	return []string{
		filepath.Join(projectDir, ".clawdcode", "commands"),
		filepath.Join(home, "commands"),
	}
}

// LoadCustom registers the custom commands found in dirs (earlier dirs
// win). A file that cannot be read, or whose name is not a command name,
// or that would shadow a built-in command, is skipped with a warning.
func (r *Registry) LoadCustom(dirs []string) (warnings []string) {
	warn := func(msg string) { warnings = append(warnings, msg) }
	deffile.Walk(dirs, "custom commands", warn, func(dir, file, name string) bool {
		path := filepath.Join(dir, file)
		if name == "" || strings.IndexFunc(name, func(r rune) bool { return !isNameRune(r) }) >= 0 {
			warn(fmt.Sprintf("custom command %s ignored: a command name is letters, digits, '-' and '_'", path))
			return false
		}
		if c, builtin := r.Lookup(name); builtin && !c.custom {
			warn(fmt.Sprintf("custom command %s ignored: /%s is a built-in command", path, c.Name))
			return false
		}
		cmd, err := readCustom(dir, file, name)
		if err != nil {
			warn(fmt.Sprintf("custom command %s ignored: %v", path, err))
			return false
		}
		r.Register(cmd)
		return true
	})
	return warnings
}

// readCustom parses one command file (a regular file directly in dir:
// deffile.Read): optional YAML front matter between "---" lines
// (description:, argument-hint:), then the body. A front matter that does
// not parse is an error: the file is skipped.
func readCustom(dir, file, name string) (Command, error) {
	meta, body, err := deffile.ReadDefinition(dir, file, customFileLimit)
	if errors.Is(err, deffile.ErrEmptyBody) {
		return Command{}, errors.New("the file has no prompt text")
	}
	if err != nil {
		return Command{}, err
	}
	summary, err := meta.Text("description")
	if err != nil {
		return Command{}, err
	}
	hint, err := meta.Text("argument-hint")
	if err != nil {
		return Command{}, err
	}
	if summary == "" {
		summary = firstLine(body)
	}
	tmpl := body
	return Command{
		Name:    name,
		Args:    hint,
		Summary: summary + " (custom)",
		Prompt:  func(args string) string { return expandCustom(tmpl, args) },
		custom:  true,
	}, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	line = strings.TrimSpace(strings.TrimLeft(line, "# "))
	if r := []rune(line); len(r) > 60 {
		line = string(r[:59]) + "…"
	}
	return line
}

// expandCustom fills a template: $ARGUMENTS is the whole argument text,
// $1…$9 its words (quotes group words: "a b" is one); a template that uses
// neither gets the arguments appended.
func expandCustom(tmpl, args string) string {
	words := splitWords(args)
	used := false
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '$' {
			b.WriteByte(tmpl[i])
			continue
		}
		rest := tmpl[i+1:]
		switch {
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(args)
			i += len("ARGUMENTS")
			used = true
		case len(rest) > 0 && rest[0] >= '1' && rest[0] <= '9' && (len(rest) == 1 || !unicode.IsDigit(rune(rest[1]))):
			if n := int(rest[0] - '0'); n <= len(words) {
				b.WriteString(words[n-1])
			}
			i++
			used = true
		default:
			b.WriteByte('$')
		}
	}
	out := b.String()
	if !used && strings.TrimSpace(args) != "" {
		out += "\n\nArguments: " + args
	}
	return out
}

// splitWords splits on spaces, keeping "double" or 'single' quoted groups
// together.
func splitWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, inWord = r, true
		case quote == 0 && unicode.IsSpace(r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// Expand returns the prompt a custom command line stands for; ok is false
// for any other line (a built-in command, an unknown one, or a prompt).
func (r *Registry) Expand(line string) (prompt string, ok bool) {
	name, args, isCmd := Parse(line)
	if !isCmd {
		return "", false
	}
	c, found := r.Lookup(name)
	if !found || c.Prompt == nil {
		return "", false
	}
	return c.Prompt(args), true
}

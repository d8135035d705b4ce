package repl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxCompletions bounds the candidates offered for one Tab.
const maxCompletions = 40

// completer completes, on Tab, a slash command's name at the start of the
// entry and an @path anywhere in it (a file or directory of the project).
func (s *session) completer() func(text string, pos int) (int, []string) {
	var names []string
	return func(text string, _ int) (int, []string) {
		if strings.HasPrefix(text, "/") && !strings.ContainsAny(text, " \t\n") {
			if names == nil {
				for _, c := range s.opts.Commands.Commands() {
					names = append(names, "/"+c.Name)
				}
			}
			var out []string
			for _, n := range names {
				if strings.HasPrefix(n, text) {
					out = append(out, n)
				}
			}
			if len(out) == 1 {
				out[0] += " "
			}
			return 0, out
		}
		start := strings.LastIndexAny(text, " \t\n") + 1
		word := text[start:]
		if !strings.HasPrefix(word, "@") {
			return 0, nil
		}
		items := completePath(s.projectRoot(), word[1:])
		for i := range items {
			items[i] = "@" + items[i]
		}
		return len([]rune(text[:start])), items
	}
}

// completePath lists the project entries whose path starts with prefix
// (relative to root); directories end with a slash. Hidden entries are
// offered only when the prefix names them.
func completePath(root, prefix string) []string {
	if root == "" {
		return nil
	}
	dir, base := filepath.Split(prefix)
	full := filepath.Join(root, filepath.FromSlash(dir))
	if rel, err := filepath.Rel(root, full); err != nil || strings.HasPrefix(rel, "..") {
		return nil // completion stays inside the project
	}
	entries, err := os.ReadDir(full)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		p := dir + name
		if e.IsDir() {
			p += "/"
		} else if len(entries) > 0 {
			p += ""
		}
		out = append(out, p)
		if len(out) == maxCompletions {
			break
		}
	}
	slices.Sort(out)
	if len(out) == 1 && !strings.HasSuffix(out[0], "/") {
		out[0] += " "
	}
	return out
}

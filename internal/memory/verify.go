package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Check says what text names that the project at root no longer has ("" =
// nothing found missing). It is deliberately narrow, so that a memory is
// withheld only on evidence:
//   - a relative path: a word that starts with "./" or "../", ends with
//     "/", or whose first element exists in the project (so "and/or" is
//     not taken for one), or a file name with a known extension
//     ("go.mod", "README.md"); a "/..." suffix (Go's pattern) is dropped;
//     in backquotes, relative to where a "cd" before it moved;
//   - a command in backquotes (`make test`, `npm run lint`; each command
//     of a compound one): "make X" when the project's Makefile
//     (GNUmakefile, makefile, Makefile) has no target X, or there is no
//     Makefile; "npm run X", "npm test", "yarn run X", "pnpm run X" when
//     package.json has no script X. Outside backquotes only "npm run X"
//     is read as a command: "make sure…" is English;
//   - a function call in backquotes (`parseConfig()`, `cfg.Resolve()`)
//     whose name no file of the project has as a whole word (the search
//     is bounded: past 5000 files or 32 MiB the memory stays).
//
// Words are separated by spaces and stripped of the quotes and
// punctuation around them (`make test`, "go.mod",).
func Check(root, text string) string {
	return newProjectView(root).check(text)
}

// projectView is the project at root as the checks of one pass read it:
// a file (a Makefile, package.json) is read once and a symbol looked for
// once, however many memories name them — a session's start checks every
// memory, and forty that name `make test` read one Makefile.
type projectView struct {
	root    string
	files   map[string]fileRead // by path
	symbols map[string]string   // by the span looked for: what checkSymbol said
}

func newProjectView(root string) *projectView {
	return &projectView{root: root, files: map[string]fileRead{}, symbols: map[string]string{}}
}

// fileRead is a file as read: its bytes, and whether it is a regular
// file that could be read.
type fileRead struct {
	data []byte
	ok   bool
}

// read is storage.ReadRegular of path, once per view.
func (v *projectView) read(path string) ([]byte, bool) {
	f, seen := v.files[path]
	if !seen {
		data, err := storage.ReadRegular(path)
		f = fileRead{data: data, ok: err == nil}
		v.files[path] = f
	}
	return f.data, f.ok
}

// symbol is checkSymbol of span, once per view.
func (v *projectView) symbol(span string) string {
	reason, seen := v.symbols[span]
	if !seen {
		reason = checkSymbol(v.root, span)
		v.symbols[span] = reason
	}
	return reason
}

// check is Check of text against v.
func (v *projectView) check(text string) string {
	root := v.root
	spans := strings.Split(text, "`")
	for i := 1; i < len(spans); i += 2 {
		if reason := v.checkCommands(spans[i]); reason != "" {
			return reason
		}
		if reason := v.symbol(spans[i]); reason != "" {
			return reason
		}
	}
	var plain []string
	for i := 0; i < len(spans); i += 2 {
		plain = append(plain, spans[i])
	}
	words := splitWords(strings.Join(plain, " "))
	for i, w := range words {
		if w == "npm" && i+1 < len(words) && words[i+1] == "run" {
			if reason := v.checkCommand(root, words[i:]); reason != "" {
				return reason
			}
		}
	}
	for _, w := range words {
		if reason := checkPath(root, root, w); reason != "" {
			return reason
		}
	}
	return ""
}

// splitWords splits text at spaces and trims each word of the quoting and
// punctuation around it.
func splitWords(text string) []string {
	fields := strings.Fields(text)
	words := fields[:0]
	for _, f := range fields {
		f = strings.Trim(f, "`'\"()[]{}<>,;:!?")
		f = strings.TrimRight(f, ".")
		if f != "" {
			words = append(words, f)
		}
	}
	return words
}

// knownExt are the extensions that make a bare word a file name.
var knownExt = map[string]bool{
	"go": true, "mod": true, "sum": true, "md": true, "txt": true, "json": true, "yaml": true, "yml": true,
	"toml": true, "js": true, "mjs": true, "cjs": true, "ts": true, "tsx": true, "jsx": true, "py": true,
	"rs": true, "c": true, "h": true, "cc": true, "cpp": true, "hpp": true, "java": true, "kt": true,
	"rb": true, "sh": true, "lock": true, "cfg": true, "ini": true, "html": true, "css": true, "sql": true,
	"proto": true, "xml": true, "gradle": true, "swift": true, "mk": true, "txtar": true, "env": true,
}

var fileName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*\.([a-z0-9]+)$`)

// pathIn says whether w names a relative path in the project, and which.
func pathIn(root, w string) (string, bool) {
	if strings.Contains(w, "://") || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~") || strings.HasPrefix(w, "-") || strings.HasPrefix(w, "$") {
		return "", false
	}
	p := strings.TrimSuffix(w, "/...")
	if p == "." || p == "./" || p == "" {
		return "", false
	}
	if strings.ContainsAny(p, "*?") {
		return "", false
	}
	if strings.Contains(p, "/") {
		first, _, _ := strings.Cut(strings.TrimPrefix(p, "./"), "/")
		if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || strings.HasSuffix(p, "/") || exists(filepath.Join(root, first)) || hasKnownExt(p) {
			return filepath.Clean(p), true
		}
		return "", false
	}
	if hasKnownExt(p) {
		return p, true
	}
	return "", false
}

func hasKnownExt(p string) bool {
	m := fileName.FindStringSubmatch(filepath.Base(p))
	return m != nil && knownExt[m[1]]
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// checkCommands checks each command of a shell line, in the directory a
// "cd" before it moved to.
func (v *projectView) checkCommands(line string) string {
	root := v.root
	dir := root
	for _, part := range tools.CommandParts(line) {
		words := splitWords(part)
		if cw := tools.Commands(part); len(cw) == 1 {
			words = splitWords(cw[0]) // wrappers and assignments dropped
		}
		if len(words) == 2 && words[0] == "cd" {
			if strings.ContainsAny(words[1], "$~") || filepath.IsAbs(words[1]) {
				return "" // somewhere the project does not say
			}
			dir = filepath.Join(dir, words[1])
			if !exists(dir) {
				rel, _ := filepath.Rel(root, dir)
				return fmt.Sprintf("%s does not exist", rel)
			}
			continue
		}
		if reason := v.checkCommand(dir, words); reason != "" {
			return reason
		}
		for _, w := range splitWords(part) {
			if reason := checkPath(root, dir, w); reason != "" {
				return reason
			}
		}
	}
	return ""
}

// checkPath says "<path> does not exist" when w names a path that dir (in
// the project at root) does not have.
func checkPath(root, dir, w string) string {
	p, ok := pathIn(dir, w)
	if !ok || exists(filepath.Join(dir, p)) {
		return ""
	}
	rel, err := filepath.Rel(root, filepath.Join(dir, p))
	if err != nil {
		rel = p
	}
	return fmt.Sprintf("%s does not exist", rel)
}

// checkCommand looks at the command words starts with, if any.
func (v *projectView) checkCommand(root string, words []string) string {
	if len(words) == 0 {
		return ""
	}
	switch words[0] {
	case "make":
		target := ""
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				target = w
				break
			}
		}
		return v.checkMakeTarget(root, target)
	case "npm", "pnpm", "yarn":
		return v.checkScript(root, words)
	}
	return ""
}

var makefiles = []string{"GNUmakefile", "makefile", "Makefile"}

// checkMakeTarget: the Makefile exists and, when target is set and looks
// like one, has a rule for it.
func (v *projectView) checkMakeTarget(root, target string) string {
	for _, name := range makefiles {
		data, ok := v.read(filepath.Join(root, name))
		if !ok {
			continue
		}
		if target == "" || !isTargetName(target) || hasTarget(data, target) {
			return ""
		}
		return fmt.Sprintf("%s has no target %q", name, target)
	}
	return "the project has no Makefile"
}

var targetName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./-]*$`)

func isTargetName(s string) bool { return targetName.MatchString(s) }

// hasTarget reports whether a rule line ("a b: deps", "x::") of the
// Makefile names target. Recipe lines (a tab first) and variable
// assignments (":=") are not rules.
func hasTarget(makefile []byte, target string) bool {
	for raw := range bytes.Lines(makefile) {
		line := string(bytes.TrimRight(raw, "\r\n"))
		if strings.HasPrefix(line, "\t") {
			continue
		}
		head, _, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line[len(head):], ":=") || strings.ContainsAny(head, "=") {
			continue
		}
		for _, t := range strings.Fields(head) {
			if t == target {
				return true
			}
		}
	}
	return false
}

// checkScript checks "npm run X", "npm test" and the like against the
// scripts of package.json.
func (v *projectView) checkScript(root string, words []string) string {
	script := ""
	switch {
	case len(words) >= 3 && (words[1] == "run" || words[1] == "run-script"):
		script = words[2]
	case len(words) >= 2 && (words[1] == "test" || words[1] == "start" || words[1] == "build"):
		script = words[1]
	default:
		return ""
	}
	data, ok := v.read(filepath.Join(root, "package.json"))
	if !ok {
		return "the project has no package.json"
	}
	var pkg struct {
		Scripts map[string]json.RawMessage `json:"scripts"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "" // not ours to judge: the memory stays
	}
	if _, ok := pkg.Scripts[script]; !ok {
		return fmt.Sprintf("package.json has no script %q", script)
	}
	return ""
}

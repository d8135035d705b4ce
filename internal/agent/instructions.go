package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// InstructionFiles are the instruction files read from each directory
// into the system prompt, in this order: the agents' common AGENTS.md,
// then Claude Code's CLAUDE.md, each also under the tool's own directory.
var InstructionFiles = []string{
	"AGENTS.md",
	filepath.Join(".clawdcode", "AGENTS.md"),
	"CLAUDE.md",
	filepath.Join(".claude", "CLAUDE.md"),
}

const (
	// maxInstructionBytes caps each instruction file, and
	// maxInstructionsBytes all of them: the instructions must not crowd
	// out the conversation in a small context window.
	maxInstructionBytes  = 16 << 10
	maxInstructionsBytes = 48 << 10
)

// instructionFile is one file ProjectInstructions gives.
type instructionFile struct {
	rel       string // its path from the repository's root (or the directory's)
	text      string
	truncated bool
	// left says why it was left out ("" = it is given).
	left bool
}

// ProjectInstructions is the project's instruction files as the system
// prompt holds them ("" = none): the InstructionFiles of dir and of every
// directory above it up to the root of its repository (storage.RepoRoot;
// dir alone outside a repository), the root's first, so that the
// instructions nearest the working directory come last and, where they
// differ, are the ones read last. A file with the same text as one
// before it (CLAUDE.md linked to AGENTS.md) is given once. The context
// manager restates them after a compaction's summary.
func ProjectInstructions(dir string) string {
	files := instructionFiles(dir)
	var b strings.Builder
	for _, f := range files {
		if f.left {
			fmt.Fprintf(&b, "\n[%s is left out: the instructions above reached %d KiB. Read it if you need it.]\n", f.rel, maxInstructionsBytes>>10)
			continue
		}
		fmt.Fprintf(&b, "\nThe project's instructions from %s (follow them):\n<%s>\n%s\n", f.rel, f.rel, strings.TrimRight(f.text, "\n"))
		if f.truncated {
			fmt.Fprintf(&b, "[%s is longer; the rest was left out. Read it if you need it.]\n", f.rel)
		}
		fmt.Fprintf(&b, "</%s>\n", f.rel)
	}
	return b.String()
}

// instructionFiles reads the instruction files of dir and the directories
// above it (instructionDirs), in the order given; within the overall cap
// the nearest are kept, the farthest left out.
func instructionFiles(dir string) []instructionFile {
	dirs := instructionDirs(dir)
	top := dirs[0]
	var files []instructionFile
	seen := map[string]bool{}
	for _, d := range dirs {
		for _, name := range InstructionFiles {
			path := filepath.Join(d, name)
			text, truncated, ok := readInstructionFile(path)
			if !ok || seen[text] {
				continue
			}
			seen[text] = true
			rel, err := filepath.Rel(top, path)
			if err != nil {
				rel = path
			}
			files = append(files, instructionFile{rel: filepath.ToSlash(rel), text: text, truncated: truncated})
		}
	}
	total := 0
	for i := len(files) - 1; i >= 0; i-- {
		total += len(files[i].text)
		if total > maxInstructionsBytes && i < len(files)-1 {
			files[i].left, files[i].text = true, ""
		}
	}
	return files
}

// instructionDirs are the directories whose instruction files apply in
// dir: the root of its repository, each directory below it, and dir; dir
// alone when it is the root or in no repository.
func instructionDirs(dir string) []string {
	root := storage.RepoRoot(dir)
	if root == "" || root == dir {
		return []string{dir}
	}
	var dirs []string
	for d := dir; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(dirs)
	return dirs
}

// readInstructionFile reads at most maxInstructionBytes of path (ok=false
// when it is missing, unreadable, not a regular file, or empty).
func readInstructionFile(path string) (text string, truncated, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false, false
	}
	buf, err := io.ReadAll(io.LimitReader(f, maxInstructionBytes+1))
	if err != nil || len(strings.TrimSpace(string(buf))) == 0 {
		return "", false, false
	}
	if len(buf) > maxInstructionBytes {
		buf = buf[:maxInstructionBytes]
		// Cut at the last line end so no half line (or half rune) is shown.
		if i := strings.LastIndexByte(string(buf), '\n'); i > 0 {
			buf = buf[:i+1]
		}
		for len(buf) > 0 && !utf8.Valid(buf) {
			buf = buf[:len(buf)-1]
		}
		truncated = true
	}
	return string(buf), truncated, true
}

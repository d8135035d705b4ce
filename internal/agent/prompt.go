package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// MemoryFiles are the project instruction files read from the project root
// into the system prompt, in this order.
var MemoryFiles = []string{"AGENTS.md", "CLAUDE.md"}

// maxMemoryBytes caps each memory file: the instructions must not crowd
// out the conversation in a small context window.
const maxMemoryBytes = 16 << 10

// PromptInfo is what the system prompt is built from.
type PromptInfo struct {
	Root  string    // the project root, the tools' working directory
	Now   time.Time // today's date is taken from it
	Tools []chat.ToolDef
	// Platform is "GOOS/GOARCH"; empty = the running one.
	Platform string
	// Memories is the memories' section (memory.Book.Prompt), given
	// after the rest of the prompt; "" = none.
	Memories string
	// Brief asks for the brief form of the prompt, for a small window: the
	// same rules in fewer words, and no list of the tools (the request's
	// tools name them).
	Brief bool
	// Dirs are more directories the user gave the tools (--add-dir).
	Dirs []string
	// Append is the user's text after everything else
	// (--append-system-prompt); "" = none.
	Append string
}

// howToWork is the prompt's opening: who the agent is and how it works.
const howToWork = `You are clawdcode, a coding agent working inside the user's software project from their terminal. You read and change the project's files and run commands with the tools below, on the user's behalf, until the task they gave you is done.

How to work:
- Find out before you act: look at the code involved (Glob to find files, Grep to search them, Read to open them) before proposing or making a change. Never guess what a file contains.
- Read a file before you Edit or overwrite it; an edit based on stale content is refused.
- Prefer Edit for changes to existing files: old_string must match the file exactly (indentation included) and be unique, or set replace_all. Use Write for new files or complete rewrites.
- Use Bash to build, run the tests, and inspect the environment (git status, go test ./..., ls). Check your change with the project's own tests when it has them, and fix what you broke.
- Keep changes focused on what was asked; follow the style and conventions already in the code.
- A tool result marked as an error (a missing file, a denied permission, a bad argument) is information: adjust and carry on, or ask the user when you cannot.
- If the user denies a tool call, do not retry the same call; explain what you wanted to do instead.
- Answer concisely. When you are done, say what you changed and how you checked it. Quote file paths so the user can find them.
`

// howToWorkBrief is howToWork for a small window.
const howToWorkBrief = `You are clawdcode, a coding agent in the user's project. Use the tools to read and change files and run commands until the user's task is done.
- Look before you act (Glob, Grep, Read); never guess what a file contains.
- Read a file before you Edit or Write it. Check changes with the project's tests (Bash).
- A tool error is information: adjust. Do not retry a call the user denied.
- Answer concisely: what you changed and how you checked it.
`

// SystemPrompt is the system message of every request of a session: who the
// agent is, how to use its tools, where it works, and the project's own
// instructions (AGENTS.md, CLAUDE.md in the root) when present.
func SystemPrompt(p PromptInfo) string {
	platform := p.Platform
	if platform == "" {
		platform = runtime.GOOS + "/" + runtime.GOARCH
	}
	var b strings.Builder
	if p.Brief {
		b.WriteString(howToWorkBrief)
	} else {
		b.WriteString(howToWork)
	}
	if len(p.Tools) > 0 && !p.Brief {
		b.WriteString("\nTools: ")
		for i, t := range p.Tools {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.Name)
		}
		b.WriteString(". Paths may be absolute or relative to the working directory.\n")
	}
	fmt.Fprintf(&b, "\nEnvironment:\n- Working directory (project root): %s\n- Platform: %s\n", p.Root, platform)
	if !p.Now.IsZero() {
		fmt.Fprintf(&b, "- Today's date: %s\n", p.Now.Format("2006-01-02"))
	}
	if len(p.Dirs) > 0 {
		fmt.Fprintf(&b, "- More directories you may read and change, as the project: %s\n", strings.Join(p.Dirs, ", "))
	}
	b.WriteString(ProjectInstructions(p.Root))
	if p.Memories != "" {
		b.WriteString("\n" + p.Memories)
	}
	if p.Append != "" {
		b.WriteString("\n" + strings.TrimRight(p.Append, "\n") + "\n")
	}
	return b.String()
}

// ProjectInstructions is the project's instruction files (AGENTS.md,
// CLAUDE.md in root) as the system prompt holds them ("" = none): the
// context manager restates them after a compaction's summary.
func ProjectInstructions(root string) string {
	var b strings.Builder
	for _, name := range MemoryFiles {
		text, truncated, ok := readMemoryFile(filepath.Join(root, name))
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "\nThe project's instructions from %s (follow them):\n<%s>\n%s\n", name, name, strings.TrimRight(text, "\n"))
		if truncated {
			fmt.Fprintf(&b, "[%s is longer; the rest was left out. Read it if you need it.]\n", name)
		}
		fmt.Fprintf(&b, "</%s>\n", name)
	}
	return b.String()
}

// readMemoryFile reads at most maxMemoryBytes of path (ok=false when it is
// missing, unreadable, not a regular file, or empty).
func readMemoryFile(path string) (text string, truncated, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false, false
	}
	buf, err := io.ReadAll(io.LimitReader(f, maxMemoryBytes+1))
	if err != nil || len(strings.TrimSpace(string(buf))) == 0 {
		return "", false, false
	}
	if len(buf) > maxMemoryBytes {
		buf = buf[:maxMemoryBytes]
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

package agent

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// PromptInfo is what the system prompt is built from.
type PromptInfo struct {
	Root  string    // the working directory, the tools' (the project)
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
// instructions (ProjectInstructions) when present.
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
	if repo := storage.RepoRoot(p.Root); repo != "" && repo != p.Root {
		fmt.Fprintf(&b, "\nEnvironment:\n- Working directory: %s (inside the repository %s)\n- Platform: %s\n", p.Root, repo, platform)
	} else {
		fmt.Fprintf(&b, "\nEnvironment:\n- Working directory (project root): %s\n- Platform: %s\n", p.Root, platform)
	}
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

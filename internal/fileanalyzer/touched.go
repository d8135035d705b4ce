package fileanalyzer

import (
	"encoding/json"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// Touched lists what msgs name, each once in first-seen order: the file
// paths (the file_path/path arguments of Read, Write, Edit, Glob and Grep,
// and the plausible file paths in what the user and the assistant wrote),
// shown relative to root when inside it, and the commands of Bash calls. It
// reads nothing from disk; tool output is data and is not scanned. It is
// what a compaction's receipt lists.
func Touched(root string, msgs []chat.Message) (paths, commands []string) {
	r, err := newResolver(root)
	if err != nil {
		r = &resolver{root: root}
	}
	seenPath := map[string]bool{}
	seenCmd := map[string]bool{}
	addPath := func(raw string) {
		key := r.key(raw)
		if key == "" {
			return
		}
		if d := r.display(key); !seenPath[d] {
			seenPath[d] = true
			paths = append(paths, d)
		}
	}
	var scratch []string
	for _, m := range msgs {
		if m.Role == chat.RoleUser || m.Role == chat.RoleAssistant {
			scratch = appendMentions(scratch[:0], m.Content)
			for _, p := range scratch {
				addPath(p)
			}
		}
		for _, tc := range m.ToolCalls {
			var args toolArgs
			if json.Unmarshal([]byte(tc.Arguments), &args) != nil {
				continue
			}
			switch tc.Name {
			case "Write", "Edit", "Read":
				addPath(args.FilePath)
			case "Glob", "Grep":
				addPath(args.Path)
			case "Bash":
				if c := strings.TrimSpace(args.Command); c != "" && !seenCmd[c] {
					seenCmd[c] = true
					commands = append(commands, c)
				}
			}
		}
	}
	return paths, commands
}

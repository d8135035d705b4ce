package fileanalyzer

import (
	"encoding/json"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// Touched lists what msgs' tool calls name, each once in first-seen order:
// the file paths (the file_path arguments of Read, Write and Edit, the path
// of Glob and Grep, however the model spelt the tool: toolcall.Classify), shown relative to root when inside it, and the commands
// of Bash calls. Only tool arguments count: words of the conversation that
// look like paths (self.items, fmt.Println) are not paths, and root itself
// (a search of the whole project) names no file. It reads nothing from
// disk. It is what a compaction's receipt lists.
func Touched(root string, msgs []chat.Message) (paths, commands []string) {
	r, err := newResolver(root)
	if err != nil {
		r = &resolver{root: root}
	}
	seenPath := map[string]bool{}
	seenCmd := map[string]bool{}
	addPath := func(raw string) {
		key := r.key(raw)
		if key == "" || key == r.root || key == r.real {
			return
		}
		if d := r.display(key); !seenPath[d] {
			seenPath[d] = true
			paths = append(paths, d)
		}
	}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			c := toolcall.Classify(tc.Name, json.RawMessage(tc.Arguments))
			switch {
			case c.Effect != toolcall.None:
				addPath(c.Path)
			case c.Tool == toolcall.Bash:
				if cmd := strings.TrimSpace(c.Command); cmd != "" && !seenCmd[cmd] {
					seenCmd[cmd] = true
					commands = append(commands, cmd)
				}
			}
		}
	}
	return paths, commands
}

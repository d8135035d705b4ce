package fileanalyzer

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
)

func TestTouchedListsPathsAndCommandsOnce(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	msgs := []chat.Message{
		{Role: chat.RoleUser, Content: "fix internal/app/server.go please, see docs/notes.md; why does self.items grow?"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
			{Name: "Read", Arguments: `{"file_path":"internal/app/server.go"}`},
			{Name: "Bash", Arguments: `{"command":"go test ./internal/app/ -run TestServe"}`},
			{Name: "Edit", Arguments: `{"file_path":"` + filepath.Join(root, "internal/app/handler.go") + `"}`},
			{Name: "Grep", Arguments: `{"pattern":"x","path":"/etc/hosts"}`},
			{Name: "Glob", Arguments: `{"pattern":"*.go","path":"` + root + `"}`},
			{Name: "Grep", Arguments: `{"pattern":"x","path":"."}`},
			{Name: "Bash", Arguments: `{"command":"go test ./internal/app/ -run TestServe"}`},
		}},
		{Role: chat.RoleTool, Content: "output naming unrelated/file.go is data"},
	}
	paths, cmds := Touched(root, msgs)
	// Tool arguments only: not the words of the messages, nor the root.
	want := []string{"internal/app/server.go", "internal/app/handler.go", "/etc/hosts"}
	if !slices.Equal(paths, want) {
		t.Fatalf("paths %q, want %q", paths, want)
	}
	if !slices.Equal(cmds, []string{"go test ./internal/app/ -run TestServe"}) {
		t.Fatalf("commands %q", cmds)
	}
}

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
		{Role: chat.RoleUser, Content: "fix internal/app/server.go please, see docs/notes.md"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
			{Name: "Read", Arguments: `{"file_path":"internal/app/server.go"}`},
			{Name: "Bash", Arguments: `{"command":"go test ./internal/app/ -run TestServe"}`},
			{Name: "Edit", Arguments: `{"file_path":"` + filepath.Join(root, "internal/app/handler.go") + `"}`},
			{Name: "Grep", Arguments: `{"pattern":"x","path":"/etc/hosts"}`},
			{Name: "Bash", Arguments: `{"command":"go test ./internal/app/ -run TestServe"}`},
		}},
		{Role: chat.RoleTool, Content: "output naming unrelated/file.go is data"},
	}
	paths, cmds := Touched(root, msgs)
	want := []string{"internal/app/server.go", "docs/notes.md", "internal/app/handler.go", "/etc/hosts"}
	if !slices.Equal(paths, want) {
		t.Fatalf("paths %q, want %q", paths, want)
	}
	if !slices.Equal(cmds, []string{"go test ./internal/app/ -run TestServe"}) {
		t.Fatalf("commands %q", cmds)
	}
}

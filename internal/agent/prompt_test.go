package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/chat"
)

func TestSystemPrompt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Run make test before committing.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := SystemPrompt(PromptInfo{
		Root:     root,
		Now:      time.Date(2026, 3, 14, 23, 59, 0, 0, time.UTC),
		Tools:    []chat.ToolDef{{Name: "Read"}, {Name: "Edit"}, {Name: "Bash"}},
		Platform: "linux/amd64",
	})
	for _, want := range []string{
		"clawdcode",
		"Working directory (project root): " + root,
		"2026-03-14",
		"linux/amd64",
		"Tools: Read, Edit, Bash.",
		"Run make test before committing.",
		"<AGENTS.md>",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "CLAUDE.md>") {
		t.Error("system prompt names a CLAUDE.md the project does not have")
	}
}

func TestSystemPromptCapsMemoryFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	line := strings.Repeat("é", 99) + "\n"
	big := strings.Repeat(line, 3*maxMemoryBytes/len(line))
	if err := os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	// A directory named like a memory file is not one.
	if err := os.Mkdir(filepath.Join(root, "AGENTS.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := SystemPrompt(PromptInfo{Root: root})
	if len(p) > maxMemoryBytes+4096 {
		t.Fatalf("prompt is %d bytes; the memory file was not capped", len(p))
	}
	if !utf8.ValidString(p) || !strings.Contains(p, "CLAUDE.md is longer") {
		t.Fatal("capped memory file not cut cleanly or not marked")
	}
	if strings.Contains(p, "<AGENTS.md>") {
		t.Fatal("a directory was read as a memory file")
	}
}

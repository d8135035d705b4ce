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
	big := strings.Repeat(line, 3*maxInstructionBytes/len(line))
	if err := os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	// A directory named like a memory file is not one.
	if err := os.Mkdir(filepath.Join(root, "AGENTS.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := SystemPrompt(PromptInfo{Root: root})
	if len(p) > maxInstructionBytes+4096 {
		t.Fatalf("prompt is %d bytes; the memory file was not capped", len(p))
	}
	if !utf8.ValidString(p) || !strings.Contains(p, "CLAUDE.md is longer") {
		t.Fatal("capped memory file not cut cleanly or not marked")
	}
	if strings.Contains(p, "<AGENTS.md>") {
		t.Fatal("a directory was read as a memory file")
	}
}

// In a subdirectory of a repository the instruction files of every
// directory from the root down are given, the root's first, each once,
// and within the overall cap the nearest are the ones kept.
func TestInstructionsFromTheRepositoryRootDown(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	write("AGENTS.md", "root rule\n")
	write("CLAUDE.md", "root rule\n")
	write("a/.claude/CLAUDE.md", "a rule\n")
	write("a/b/AGENTS.md", "b rule\n")
	dir := filepath.Join(root, "a", "b")
	got := ProjectInstructions(dir)
	iRoot, iA, iB := strings.Index(got, "root rule"), strings.Index(got, "a rule"), strings.Index(got, "b rule")
	if iRoot < 0 || iA < iRoot || iB < iA {
		t.Fatalf("instructions not given root first:\n%s", got)
	}
	if strings.Count(got, "root rule") != 1 || !strings.Contains(got, "from a/.claude/CLAUDE.md") {
		t.Fatalf("instructions:\n%s", got)
	}
	if p := SystemPrompt(PromptInfo{Root: dir}); !strings.Contains(p, "Working directory: "+dir+" (inside the repository "+root+")") {
		t.Fatalf("the prompt does not say where the repository is:\n%s", p)
	}

	// Past the overall cap the farthest file is left out, and named.
	big := strings.Repeat("x", maxInstructionBytes-10) + "\n"
	write("AGENTS.md", "root "+big)
	write("a/.claude/CLAUDE.md", "a "+big)
	write("a/b/AGENTS.md", "b "+big)
	write("a/b/CLAUDE.md", "b2 "+big)
	got = ProjectInstructions(dir)
	if !strings.Contains(got, "[AGENTS.md is left out") || !strings.Contains(got, "b2 xxx") {
		t.Fatalf("the cap did not leave the root's file out:\n%.400s", got)
	}
}

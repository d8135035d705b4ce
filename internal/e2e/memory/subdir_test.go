package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSubdirectoryHasTheRepositorysInstructionsAndMemories (issue 36,
// item 1): started in a subdirectory of a repository, clawdcode gives the
// model the instruction files of every directory from the repository's
// root down to the working directory (AGENTS.md, CLAUDE.md and their
// .clawdcode/ and .claude/ forms), the root's first, and the project's
// memories, kept for the root; a memory added in the subdirectory is the
// root's too. Sessions stay the working directory's: -c and -r in a
// subdirectory without any say where the project's are and how to
// continue one there.
func TestSubdirectoryHasTheRepositorysInstructionsAndMemories(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	root := w.Project
	for name, text := range map[string]string{
		".git/HEAD":                 "ref: refs/heads/main\n",
		"AGENTS.md":                 "ROOT-AGENTS: use tabs.\n",
		".claude/CLAUDE.md":         "ROOT-CLAUDE-DIR: no emojis.\n",
		"CLAUDE.md":                 "ROOT-AGENTS: use tabs.\n", // the same text: given once
		"svc/.clawdcode/AGENTS.md":  "SVC-CLAWDCODE: the service's rules.\n",
		"svc/api/AGENTS.md":         "API-AGENTS: handlers are thin.\n",
		"svc/api/CLAUDE.md":         "API-CLAUDE: run the api tests.\n",
		"elsewhere/keep":            "",
		"svc/api/handlers/keep.txt": "",
	} {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.MustRun("-p", "/memory add ROOT-MEMORY: answer tersely")
	rootSession := w.runJSON("-p", "hello from the root").SessionID

	api := filepath.Join(root, "svc", "api", "handlers")
	if r := w.RunIn(api, "-p", "/memory add API-MEMORY: mind the handlers"); r.Code != 0 {
		t.Fatalf("/memory add in a subdirectory: %s", r)
	}
	if r := w.RunIn(api, "-p", "hello from a subdirectory"); r.Code != 0 {
		t.Fatalf("-p in a subdirectory: %s", r)
	}
	sys := w.systemOfLast()
	order := []string{"ROOT-AGENTS", "ROOT-CLAUDE-DIR", "SVC-CLAWDCODE", "API-AGENTS", "API-CLAUDE"}
	at := -1
	for _, want := range order {
		i := strings.Index(sys, want)
		if i < 0 {
			t.Fatalf("the subdirectory's system prompt lacks %s:\n%s", want, sys)
		}
		if i < at {
			t.Errorf("%s comes before the instructions of a directory above it:\n%s", want, sys)
		}
		at = i
	}
	if strings.Count(sys, "ROOT-AGENTS") != 1 {
		t.Errorf("CLAUDE.md with AGENTS.md's text was given twice:\n%s", sys)
	}
	for _, want := range []string{"from svc/api/AGENTS.md", "from .claude/CLAUDE.md", "ROOT-MEMORY: answer tersely", "API-MEMORY: mind the handlers"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the subdirectory's system prompt lacks %q:\n%s", want, sys)
		}
	}
	// The memory added below is the project's: the root's session gets it.
	w.MustRun("-p", "hello again")
	if sys := w.systemOfLast(); !strings.Contains(sys, "API-MEMORY: mind the handlers") {
		t.Errorf("a memory added in a subdirectory did not reach the root:\n%s", sys)
	}

	// Sessions are the working directory's: elsewhere/ has none.
	elsewhere := filepath.Join(root, "elsewhere")
	r := w.RunIn(elsewhere, "-c", "-p", "go on")
	if r.Code == 0 {
		t.Fatalf("-c in a subdirectory without sessions continued one:\n%s", r)
	}
	for _, want := range []string{"no session to continue", "the project's are in " + root, "cd " + root + " && clawdcode -c"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("-c in a subdirectory: stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
	r = w.RunIn(elsewhere, "-r", rootSession[:8], "-p", "go on")
	if r.Code != 2 || !strings.Contains(r.Stderr, "cd "+root+" && clawdcode -r "+rootSession) {
		t.Errorf("-r of the root's session in a subdirectory does not say how to continue it:\n%s", r)
	}
}

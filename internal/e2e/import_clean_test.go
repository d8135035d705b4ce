package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestCleanImportOfTheFixturesPassesSessionsCheck: every recorded Claude
// Code and Codex session of testdata/fixtures, imported once, leaves a
// store that `sessions check --all` finds nothing wrong with — the index
// agreeing with the files, a long imported summary giving no title
// (issue 32).
func TestCleanImportOfTheFixturesPassesSessionsCheck(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	claude := filepath.Join(w.Root, "claude", "projects", "-p")
	codex := filepath.Join(w.Root, "codex")
	for _, dir := range []string{claude, codex} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range fixtures.Glob(t, "claude-code", "*.jsonl") {
		copyFile(t, p, filepath.Join(claude, filepath.Base(p)))
	}
	for _, p := range fixtures.Glob(t, "codex", "rollout-*.jsonl") {
		copyFile(t, p, filepath.Join(codex, filepath.Base(p)))
	}
	w.MustRun("import", "claude-code", filepath.Dir(claude))
	w.MustRun("import", "codex", codex)
	if r := w.Run("sessions", "check", "--all"); r.Code != 0 || !strings.Contains(r.Stderr, "No problems") {
		t.Errorf("sessions check after a clean import:\n%s", r)
	}
}

// TestImportFromAFolderWithoutSessionsSaysSo: `import claude-code` (and
// codex) pointed at a folder of unrelated .jsonl files, or at an empty
// one, says there is no session of that tool there, in one line, and
// exits 2 — where it said "Nothing new to import" with 0 (issue 32).
func TestImportFromAFolderWithoutSessionsSaysSo(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	unrelated := filepath.Join(w.Root, "logs")
	for name, content := range map[string]string{
		"app/events.jsonl":        "{\"event\":\"start\",\"level\":\"info\"}\n{\"event\":\"stop\"}\n",
		"rollout-notes.jsonl":     "{\"note\":\"not a rollout\"}\n",
		"deep/er/rollout-x.jsonl": "{\"a\":1}\n",
	} {
		p := filepath.Join(unrelated, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	empty := filepath.Join(w.Root, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, dir string }{
		{"claude-code", unrelated}, {"codex", unrelated}, {"claude-code", empty}, {"codex", empty},
	} {
		r := w.Run("import", c.tool, c.dir)
		first := strings.SplitN(r.Stderr, "\n", 2)[0]
		if r.Code != 2 || !strings.HasPrefix(first, "clawdcode: no "+c.tool+" sessions in "+c.dir) {
			t.Errorf("import %s %s: want exit 2 and one line saying there is no session\n%s", c.tool, c.dir, r)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

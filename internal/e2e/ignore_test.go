package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// Glob and Grep skipped only hard-coded directories: a build output or a
// vendored tree that .gitignore names flooded the model's results. They
// now skip what git ignores (nested files, negations), and still search an
// ignored directory the model names as the path.
func TestGlobAndGrepHonourGitignore(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	files := map[string]string{
		".gitignore":           "build/\n*.log\n!keep.log\n",
		"src/.gitignore":       "generated.go\n",
		"src/main.go":          "needle in main\n",
		"src/generated.go":     "needle generated\n",
		"build/out.go":         "needle in build\n",
		"debug.log":            "needle in a log\n",
		"keep.log":             "needle kept\n",
		"docs/notes/readme.go": "needle in docs\n",
	}
	for name, content := range files {
		p := filepath.Join(w.Project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.Server.Enqueue(
		llmtest.ToolCalls(
			llmtest.Call("Grep", `{"pattern":"needle"}`),
			llmtest.Call("Glob", `{"pattern":"**/*.go"}`),
			llmtest.Call("Grep", `{"pattern":"needle","path":"build"}`),
		),
		llmtest.Text("done"))
	w.MustRun("-p", "find the needles")
	var results []string
	for _, m := range w.Server.LastRequest().Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 3 {
		t.Fatalf("tool results %q", results)
	}
	grep, glob, named := results[0], results[1], results[2]
	for _, want := range []string{"src/main.go", "keep.log", "docs/notes/readme.go"} {
		if !strings.Contains(grep, want) {
			t.Errorf("Grep misses %s:\n%s", want, grep)
		}
	}
	for _, ignored := range []string{"build/out.go", "debug.log", "generated.go"} {
		if strings.Contains(grep, ignored) {
			t.Errorf("Grep reports %s, which .gitignore ignores:\n%s", ignored, grep)
		}
		if strings.Contains(glob, ignored) {
			t.Errorf("Glob reports %s, which .gitignore ignores:\n%s", ignored, glob)
		}
	}
	if !strings.Contains(glob, "src/main.go") || !strings.Contains(glob, "docs/notes/readme.go") {
		t.Errorf("Glob misses files:\n%s", glob)
	}
	if !strings.Contains(named, "needle in build") {
		t.Errorf("Grep in the ignored directory the model named found nothing:\n%s", named)
	}
}

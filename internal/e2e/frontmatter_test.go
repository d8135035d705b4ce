package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// A custom subagent's tools: written as a YAML list, in the flow form or
// the block form, gives it exactly those tools; a file whose front matter
// does not parse is skipped with one warning naming it, and never gets
// the parent's tools (issue 39: a block list read as an empty value gave
// the subagent every tool, and "[Read, Grep]" the names "[Read" and
// "Grep]").
func TestCustomSubagentToolsAsYAMLList(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	dir := filepath.Join(w.Project, ".clawdcode", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"flow.md":  "---\ndescription: FLOWDESC\ntools: [Read, Grep]\n---\nYou are FLOWBODY.\n",
		"block.md": "---\ndescription: BLOCKDESC\ntools:\n  - Glob\n  - Read\n---\nYou are BLOCKBODY.\n",
		// The model: line is indented under the list: not YAML.
		"broken.md": "---\ndescription: BROKENDESC\ntools:\n  - Read\n model: gpt-4o-mini\n---\nYou are BROKENBODY.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	r := w.MustRun("-p", "/agents")
	if !strings.Contains(r.Stdout, "FLOWDESC") || !strings.Contains(r.Stdout, "BLOCKDESC") || strings.Contains(r.Stdout, "BROKENDESC") {
		t.Errorf("/agents lists (want flow and block, not broken):\n%s", r.Stdout)
	}
	brokenPath := filepath.Join(dir, "broken.md")
	if n := strings.Count(r.Stderr, "warning: subagent type "+brokenPath+" ignored: front matter"); n != 1 {
		t.Errorf("%d warnings naming %s, want 1:\n%s", n, brokenPath, r.Stderr)
	}

	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		switch {
		case isSubagent(r):
			return llmtest.Text("done")
		case !answered(r):
			var calls []llmtest.ToolCall
			for _, typ := range []string{"flow", "block", "broken"} {
				calls = append(calls, llmtest.Call("Task", jsonArgs(map[string]string{
					"description": typ, "prompt": "look around", "subagent_type": typ})))
			}
			return llmtest.ToolCalls(calls...)
		default:
			return llmtest.Text("parent done")
		}
	})
	w.MustRun("-p", "delegate")
	offered := map[string][]string{}
	for _, r := range w.Server.Requests() {
		if !isSubagent(r) {
			continue
		}
		var names []string
		for _, tool := range r.Tools {
			names = append(names, tool.Name)
		}
		for _, body := range []string{"FLOWBODY", "BLOCKBODY", "BROKENBODY"} {
			if strings.Contains(r.Messages[0].Content, body) {
				offered[body] = names
			}
		}
	}
	for body, want := range map[string][]string{"FLOWBODY": {"Read", "Grep"}, "BLOCKBODY": {"Glob", "Read"}} {
		got, ok := offered[body]
		slices.Sort(got)
		slices.Sort(want)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("the subagent of %s was offered %q (asked: %v), want exactly %q", body, got, ok, want)
		}
	}
	if got, ok := offered["BROKENBODY"]; ok {
		t.Errorf("the subagent of a file that does not parse ran, offered %q", got)
	}
}

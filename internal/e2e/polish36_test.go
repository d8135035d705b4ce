package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestImportedCommandMarkupReadsAsCommands (issue 36 item 10): a Claude
// Code session's slash commands, imported, read as "/name args" and their
// output as its text — no <command-name> markup — in sessions show, the
// markdown export and the title.
func TestImportedCommandMarkupReadsAsCommands(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "claude", "projects")
	id := "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
	installSource(t, []string{"claude-code", "spotter_real_tool_heavy.jsonl"}, src, "-project/"+id+".jsonl", w.Project)
	w.MustRun("import", "claude-code", src)
	show := w.MustRun("sessions", "show", id).Stdout
	md := w.MustRun("sessions", "export", id).Stdout
	for what, out := range map[string]string{"sessions show": show, "sessions export": md} {
		for _, markup := range []string{"<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-caveat>"} {
			if strings.Contains(out, markup) {
				t.Errorf("%s shows the markup %s", what, markup)
			}
		}
	}
	if !strings.Contains(show, "\n> /mcp\n") || !strings.Contains(show, "\n> Reconnected to tidewave.\n") {
		t.Errorf("sessions show does not say the command as the user saw it:\n%s", show)
	}
	if list := w.MustRun("sessions", "list").Stdout; strings.Contains(list, "<command") {
		t.Errorf("a title shows the markup:\n%s", list)
	}
}

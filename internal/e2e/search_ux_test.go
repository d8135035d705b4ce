package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestSearchHighlightsOnATerminalOnly: issue 25 item 10. On a terminal
// the words searched for are bold in each snippet, and the text from the
// record around them stays inert; redirected, the output is plain text.
func TestSearchHighlightsOnATerminalOnly(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	w.MustRun("-p", "where did the Kumquat go"+sgrColour)
	screen := w.runTTY(w.Project, "search", "kumquat")
	if !strings.Contains(screen, "where did the \x1b[1mKumquat\x1b[22m go") {
		t.Errorf("the matched word is not bold on a terminal:\n%q", screen)
	}
	checkEscapes(t, "search on a terminal", screen, "Open a hit's session with: clawdcode -r ")
	plain := w.MustRun("search", "kumquat").Stdout
	if strings.Contains(plain, "\x1b[1m") || !strings.Contains(plain, "    where did the Kumquat go") {
		t.Errorf("redirected search output is not plain:\n%q", plain)
	}
}

// TestImportedInterruptIsNotGluedToTheNextPrompt: issue 25 item 11. A
// Claude Code session that ends with its "[Request interrupted by user]"
// marker resumes with the next prompt sent as typed, not joined to the
// marker in one user message.
func TestImportedInterruptIsNotGluedToTheNextPrompt(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	dir := filepath.Join(w.Root, "claude", "projects", "-project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const sid = "7a7a7a7a-0000-4000-8000-000000000001"
	line := func(uuid, parent, typ, content string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"parentUuid":` + p + `,"isSidechain":false,"type":"` + typ + `","message":{"role":"` + typ + `","content":` + content +
			`},"uuid":"` + uuid + `","timestamp":"2026-02-10T21:00:00.000Z","cwd":"` + w.Project + `","sessionId":"` + sid + `"}` + "\n"
	}
	src := line("u1", "", "user", `"rename the parser"`) +
		line("a1", "u1", "assistant", `[{"type":"text","text":"Renaming it now."}]`) +
		line("u2", "a1", "user", `[{"type":"text","text":"[Request interrupted by user]"}]`)
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w.MustRun("import", "claude-code", filepath.Dir(dir))
	w.Server.Enqueue(llmtest.Text("ok"))
	w.MustRun("-r", sid, "-p", "use the name lexer instead")
	msgs := w.Server.LastRequest().Messages
	last := msgs[len(msgs)-1]
	// A resume adds the re-orientation packet after the user's words
	// (issue 21); the words themselves come first, with no marker glued on.
	words, _, _ := strings.Cut(last.Content, "\n\nRe-orientation (read from")
	if last.Role != "user" || words != "use the name lexer instead" || strings.Contains(last.Content, "[Request interrupted") {
		t.Errorf("the prompt after an imported interrupt is sent as %s %q, want it as typed:\n%s", last.Role, last.Content, requestText(w.Server.LastRequest()))
	}
}

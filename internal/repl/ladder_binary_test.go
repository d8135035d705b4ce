//go:build unix

package repl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestClawdcodeSaysTheContextCannotBeFreed (issue 22): with instructions
// that leave little of a 7k window, reads fill it faster than clearing and
// a summary can free it. The session says so once, offering /handoff,
// goes on answering, and does not compact again and again.
func TestClawdcodeSaysTheContextCannotBeFreed(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{Tokens: llmtest.OpenAITokens})
	agent := llmtest.Agent()
	srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if llmtest.IsSummaryRequest(r) {
			return llmtest.Text("## Current work\nreading the files")
		}
		return agent(r)
	})
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, lines int) {
		var b strings.Builder
		for i := range lines {
			fmt.Fprintf(&b, "%s %04d: the parser reads the buffer until a newline then returns a value\n", name, i)
		}
		if err := os.WriteFile(filepath.Join(project, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("CLAUDE.md", 900) // cut to 16 KB in the system prompt
	for i := range 6 {
		write(fmt.Sprintf("g%d.txt", i), 150)
	}
	term := startClawdcodeIn(t, srv, project, clawdcodeEnv(tmp, srv), "--context-window", "7000")
	term.expectPrompt()
	for i := range 6 {
		if strings.Contains(term.output(), "cannot be freed enough") {
			break
		}
		term.send(fmt.Sprintf("read g%d.txt\r", i))
		term.expect("Tool results:")
		term.expectPrompt()
	}
	out := term.output()
	if !strings.Contains(out, "the context cannot be freed enough") || !strings.Contains(out, "/handoff") {
		t.Fatalf("the session did not say the context cannot be freed enough, with /handoff offered:\n%s", out)
	}
	if n := strings.Count(out, "cannot be freed enough"); n != 1 {
		t.Errorf("the session said it %d times, want once", n)
	}
	// main compacted twice a turn here; the ladder does not loop.
	if n := strings.Count(out, "compacting the conversation"); n > 2 {
		t.Errorf("%d compactions in six turns: the ladder compacts again and again", n)
	}
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

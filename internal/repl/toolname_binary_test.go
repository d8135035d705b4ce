//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestClawdcodeLowercaseEditShowsItsDiff: a model that spells the tools
// "read" and "edit" gets them run as Read and Edit, and the screen shows
// them as such — the Edit with the diff it made, as for "Edit".
func TestClawdcodeLowercaseEditShowsItsDiff(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("read", `{"file_path":"a.txt"}`)),
		llmtest.ToolCalls(llmtest.Call("edit", `{"file_path":"a.txt","old_string":"two","new_string":"deux"}`)),
		llmtest.Text("Edited a.txt."),
	)
	term := startClawdcode(t, srv, "--dangerously-skip-permissions")
	file := filepath.Join(term.cmd.Dir, "a.txt")
	if err := os.WriteFile(file, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	term.expectPrompt()
	term.send("change two to deux in a.txt\r")
	term.expect("⏺ Read(a.txt)")
	term.expect("⏺ Edit(a.txt)")
	term.expect("2 - two") // the diff it made
	term.expect("2 + deux")
	term.expect("Edited a.txt.")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if data, err := os.ReadFile(file); err != nil || string(data) != "one\ndeux\nthree\n" {
		t.Fatalf("a.txt = %q, %v", data, err)
	}
}

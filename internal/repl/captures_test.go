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

// TestScreenCaptures writes what the screen shows in four situations to
// the file CLAWDCODE_SCREEN_CAPTURES names (for the closing
// note); without it the test is skipped.
func TestScreenCaptures(t *testing.T) {
	file := os.Getenv("CLAWDCODE_SCREEN_CAPTURES")
	if file == "" {
		t.Skip("set CLAWDCODE_SCREEN_CAPTURES=<file> to write the screen captures")
	}
	var out strings.Builder
	capture := func(title string, s *tmuxScreen, w, h int) {
		rows := s.tmux("capture-pane", "-p", "-S", "-200", "-t", s.target)
		lines := strings.Split(strings.TrimRight(rows, "\n "), "\n")
		for i := range lines {
			lines[i] = strings.TrimRight(lines[i], " ")
		}
		for len(lines) > 0 && lines[0] == "" {
			lines = lines[1:]
		}
		fmt.Fprintf(&out, "==== %s (%d×%d, tmux capture-pane of the real binary against llmtest) ====\n%s\n\n", title, w, h, strings.Join(lines, "\n"))
	}

	// 1. A tool-heavy turn.
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Glob", `{"pattern":"**/*.go"}`)),
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"main.go"}`)),
		llmtest.ToolCalls(llmtest.Call("Grep", `{"pattern":"func "}`)),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"go vet ./... && for i in $(seq 1 12); do echo checked pkg$i; done"}`)),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"echo building; echo 'main.go:3: undefined: y' >&2; exit 2"}`)),
		llmtest.Text("The build fails in **main.go**: `y` is never declared.\n\n| file | problem |\n|---|---|\n| main.go | undefined `y` at line 3 |\n\nDeclare it before use:\n\n```go\ny := 2\n```\n"),
	)
	s := startScreen(t, srv, 100, 50, "--dangerously-skip-permissions")
	os.WriteFile(filepath.Join(s.dir, "main.go"), []byte("package main\n\nfunc main() { x := y }\n"), 0o644)
	os.WriteFile(filepath.Join(s.dir, "util.go"), []byte("package main\n\nfunc helper() {}\n"), 0o644)
	s.waitPrompt()
	s.keys("why does the build fail?")
	s.sendKeys("Enter")
	s.waitFor("Declare it before use")
	s.waitPrompt()
	capture("a tool-heavy turn", s, 100, 50)

	// 2. An auto-approved Edit.
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path":"main.go","old_string":"func main() { x := y }","new_string":"func main() {\n\ty := 2\n\tx := y\n\t_ = x\n}"}`)),
		llmtest.Text("Declared `y`; the build passes now."),
	)
	s.keys("fix it")
	s.sendKeys("Enter")
	s.waitFor("the build passes now")
	s.waitPrompt()
	s.tmux("clear-history", "-t", s.target)
	s.sendKeys("C-l")
	s.keys("/expand")
	s.sendKeys("Enter")
	s.waitFor("end of Edit")
	s.waitPrompt()
	capture("an auto-approved Edit (--dangerously-skip-permissions), then /expand", s, 100, 50)

	// 3. A resume.
	s.sendKeys("C-d")
	s.waitFor("[exited 0]")
	s = s.again(100, 40, "-c")
	s.waitPrompt()
	capture("a resume (clawdcode -c)", s, 100, 40)

	// 4. A narrow terminal.
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"ls -la | head -n 3"}`)),
		llmtest.Text("Three entries are listed; the project holds **main.go** and util.go, both in package `main`, and nothing else."),
	)
	s = s.again(36, 30, "--dangerously-skip-permissions")
	s.waitPrompt()
	s.keys("what is here?")
	s.sendKeys("Enter")
	s.waitFor("else.")
	s.waitPrompt()
	capture("a narrow terminal", s, 36, 30)

	appendCaptures(t, file, out.String())
}

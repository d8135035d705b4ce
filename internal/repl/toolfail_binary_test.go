//go:build unix

package repl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// firstResultLine is the line after the header that names call on scr: the
// first line of its result, the one the collapsed view always shows.
func firstResultLine(t *testing.T, scr, call string) string {
	t.Helper()
	lines := strings.Split(scr, "\n")
	for i, l := range lines {
		if strings.Contains(l, "⏺ "+call) && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	t.Fatalf("no header %q on the screen:\n%s", call, scr)
	return ""
}

// failedCommandTurn runs a turn whose Bash command prints six lines and
// fails (exit 2, an error on stderr), at 100×height, and returns the
// screen at the prompt after it.
func failedCommandTurn(t *testing.T, height int) (*tmuxScreen, string) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Options{})
	cmd := `printf 'step 1\nstep 2\nstep 3\nstep 4\nstep 5\nstep 6\n'; echo 'boom: no such target' >&2; exit 2`
	args, _ := json.Marshal(map[string]string{"command": cmd})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Bash", string(args))), llmtest.Text("it failed."))
	s := startScreen(t, srv, 100, height, "--allowed-tools", "Bash")
	s.waitPrompt()
	s.keys("build it")
	s.sendKeys("Enter")
	s.waitFor("it failed.")
	return s, s.waitPrompt()
}

// TestScreenFailedCommandSaysSoOnItsFirstLine (issue 25 item 5): a command
// that fails after printing more than the collapsed view shows has its
// exit status and its last words on the result's first line, not hidden
// in "… +N lines".
func TestScreenFailedCommandSaysSoOnItsFirstLine(t *testing.T) {
	t.Parallel()
	_, scr := failedCommandTurn(t, 30)
	t.Logf("\n%s", scr)
	first := firstResultLine(t, scr, "Bash(")
	if !strings.Contains(first, "exit 2 · boom: no such target") {
		t.Fatalf("the failure is not on the result's first line %q:\n%s", first, scr)
	}
	if !strings.Contains(scr, "(ctrl+o to expand)") {
		t.Fatalf("the output is not collapsed:\n%s", scr)
	}
}

// TestScreenRefusedCallHasAHeader: a call refused before it ran (a tool
// the user disallowed; an Edit of a file never read) is shown under a
// header naming it, like a call that ran.
func TestScreenRefusedCallHasAHeader(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.ToolCalls(
		llmtest.Call("Bash", `{"command":"rm -rf build"}`),
		llmtest.Call("Edit", `{"file_path":"main.go","old_string":"a","new_string":"b"}`),
	), llmtest.Text("both refused."))
	s := startScreen(t, srv, 100, 30, "--disallowed-tools", "Bash")
	s.waitPrompt()
	s.keys("clean up")
	s.sendKeys("Enter")
	s.waitFor("both refused.")
	scr := s.waitPrompt()
	t.Logf("\n%s", scr)
	if first := firstResultLine(t, scr, "Bash(rm -rf build)"); !strings.Contains(first, "⎿") {
		t.Fatalf("the denied call's header is not over its result %q:\n%s", first, scr)
	}
	if first := firstResultLine(t, scr, "Edit(main.go)"); !strings.Contains(first, "⎿") {
		t.Fatalf("the refused Edit's header is not over its result %q:\n%s", first, scr)
	}
}

//go:build unix

package repl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// rawOutput is every byte the process wrote to the terminal, escapes and
// carriage returns included: what the terminal would obey.
func (term *terminal) rawOutput() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.raw.String()
}

// TestClawdcodePermissionPromptShowsWholeCommand: issue 13 items 6 and 7.
// The prompt cut a Bash command at 80 characters or at a carriage return,
// so "; touch HIDDEN" ran on "y" unseen, and escape codes in the command
// could erase and redraw the prompt line. Now the whole command is shown,
// wrapped, with every control character visible and none obeyed.
func TestClawdcodePermissionPromptShowsWholeCommand(t *testing.T) {
	t.Parallel()
	command := "echo " + strings.Repeat("x", 90) + " && ls\r; touch HIDDEN #\x1b[2K\x1b[1A"
	input, _ := json.Marshal(map[string]string{"command": command})
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Bash", string(input))), llmtest.Text("not run"))
	term := startClawdcode(t, srv)
	term.expectPrompt()
	term.send("list the files\r")
	term.expect("❯ 1. Yes")
	raw := term.rawOutput()
	prompt := raw[strings.LastIndex(raw, "list the files"):]
	if !strings.Contains(prompt, "^M; touch HIDDEN #^[[2K^[[1A") {
		t.Errorf("the prompt does not show the command's tail with its controls visible:\n%q", prompt)
	}
	if strings.Contains(prompt, "\x1b[1A") || strings.Contains(prompt, "ls\r") {
		t.Errorf("the command's control characters reached the terminal:\n%q", prompt)
	}
	term.send("n\r") // no, and an empty note: a plain no
	term.expect("not run")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(term.cmd.Dir, "HIDDEN")); err == nil {
		t.Fatal("the denied command ran")
	}
}

// TestClawdcodeModelTextEscapesShown: issue 13 item 8. Model text reached
// the terminal with escape sequences intact (OSC 52 writes the clipboard,
// SGR 8 conceals text); now they are shown as text, split across stream
// deltas or not, and only clawdcode's own styling reaches the terminal.
func TestClawdcodeModelTextEscapesShown(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("copied \x1b]52;c;cm0gLXJmIH4=\x07 and \x1b[8mconcealed\x1b[0m done"))
	term := startClawdcode(t, srv)
	term.expectPrompt()
	term.send("hello\r")
	term.expect("done")
	term.expectPrompt()
	raw := term.rawOutput()
	for _, bad := range []string{"\x1b]52", "\x1b[8m"} {
		if strings.Contains(raw, bad) {
			t.Errorf("model text reached the terminal with %q intact:\n%q", bad, raw)
		}
	}
	if !strings.Contains(raw, "^[]52;c;cm0gLXJmIH4=^G") || !strings.Contains(raw, "^[[8mconcealed") {
		t.Errorf("the escape sequences are not shown as text:\n%q", raw)
	}
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestDiffViewShowsEscapesAsText: a Write's or Edit's content in the
// permission dialog's diff is the model's text: it must not drive the
// terminal, so a hidden line cannot be drawn over the one shown (issue 13
// item 7).
func TestDiffViewShowsEscapesAsText(t *testing.T) {
	t.Parallel()
	v := newDiffView("safe line\n", "safe line\nrm -rf ~ \x1b[1A\x1b[2Kharmless line\n", false, colorScheme{})
	joined := strings.Join(v.lines, "\n")
	if strings.Contains(joined, "\x1b") {
		t.Errorf("the diff passes escape sequences through:\n%q", joined)
	}
	if !strings.Contains(joined, "rm -rf ~ ^[[1A^[[2Kharmless line") {
		t.Errorf("the diff does not show the line as it is:\n%q", joined)
	}
}

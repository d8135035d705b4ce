package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// What a hostile record, path or description carries: a clipboard write
// (OSC 52), a colour, and a newline that would forge a row of its own.
const (
	oscClipboard = "\x1b]52;c;cm0gLXJmIH4=\x07"
	sgrColour    = "\x1b[38;5;201m"
	forged       = "FORGED"
	hostileText  = oscClipboard + sgrColour + "\n" + forged + " ROW"
)

// runTTY runs the binary in dir with stdout and stderr on a
// pseudo-terminal and returns what the terminal received.
func (w *world) runTTY(dir string, args ...string) string {
	w.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), w.Timeout)
	defer cancel()
	cmd := w.Command(ctx, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "TERM=dumb")
	ptmx, tty, err := pty.Open()
	if err != nil {
		w.T.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	cmd.Stdout, cmd.Stderr = tty, tty
	if err := cmd.Start(); err != nil {
		w.T.Fatal(err)
	}
	tty.Close()
	out, err := io.ReadAll(ptmx) // ends with EIO once the child has gone
	var pathErr *os.PathError
	if err != nil && !errors.As(err, &pathErr) {
		w.T.Fatalf("read the terminal: %v", err)
	}
	_ = cmd.Wait()
	return string(out)
}

// checkTerminal fails when the terminal received the hostile sequences
// intact or a row the hostile newline forged.
func checkTerminal(t *testing.T, where, screen, want string) {
	t.Helper()
	checkEscapes(t, where, screen, want)
	for _, line := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, "\r "), forged) {
			t.Errorf("%s: a newline in foreign text forged a row:\n%q", where, screen)
			break
		}
	}
}

// checkEscapes is checkTerminal for text whose lines are its own (an
// answer): only the escape sequences must not reach the terminal.
func checkEscapes(t *testing.T, where, screen, want string) {
	t.Helper()
	if !strings.Contains(screen, want) {
		t.Errorf("%s: the terminal does not show %q:\n%q", where, want, screen)
	}
	if strings.Contains(screen, "\x1b]52") || strings.Contains(screen, sgrColour) || strings.Contains(screen, "\a") {
		t.Errorf("%s: escape sequences reach the terminal raw:\n%q", where, screen)
	}
}

// TestForeignTextIsShownNotObeyed: issue 17 item 5. An imported project
// path and title, a custom command's description, a hook's stderr, an
// MCP server's name and a model's answer reach a terminal shown, not
// obeyed, and cannot forge a row; redirected, the data keeps its bytes.
func TestForeignTextIsShownNotObeyed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	project := filepath.Join(w.Root, "evil"+hostileText)
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	cwd, _ := json.Marshal(project)
	title, _ := json.Marshal("needle " + hostileText)
	src := filepath.Join(w.Root, "claude", "projects", "-evil")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":` + string(title) +
		`},"uuid":"9a0f1c2e-1111-4aaa-8bbb-000000000001","timestamp":"2026-02-10T21:20:00.000Z","cwd":` + string(cwd) +
		`,"sessionId":"e7e7e7e7-0000-4000-8000-000000000001"}` + "\n"
	if err := os.WriteFile(filepath.Join(src, "e7e7e7e7-0000-4000-8000-000000000001.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	w.ExtraEnv = []string{"CLAUDE_CONFIG_DIR=" + filepath.Dir(filepath.Dir(src))}

	checkTerminal(t, "import", w.runTTY(w.Project, "import", "claude-code"), "Imported 1 session")
	checkTerminal(t, "sessions list --all", w.runTTY(w.Project, "sessions", "list", "--all"), "needle")
	checkTerminal(t, "search --all", w.runTTY(w.Project, "search", "--all", "needle"), "e7e7e7e7")
	checkTerminal(t, "sessions show", w.runTTY(project, "sessions", "show", "e7e7e7e7"), "needle")

	desc, _ := json.Marshal(hostileText)
	w.writeUserConfig(`
[[hooks.SessionStart]]
command = '''printf 'hook failed \033]52;c;cm0gLXJmIH4=\007\033[38;5;201m\nFORGED ROW' >&2; exit 1'''

[[hooks.SessionStart]]
command = '''printf 'hook blocked \033]52;c;cm0gLXJmIH4=\007\033[38;5;201m\nFORGED ROW' >&2; exit 2'''

[mcp_servers.evil]
command = ` + string(desc) + `
`)
	if err := os.MkdirAll(filepath.Join(w.Home, "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	// YAML's double-quoted escapes (JSON's are a subset) carry the
	// control characters: front matter is read by a YAML parser, which
	// refuses them raw.
	cmdDesc, _ := json.Marshal("a command " + hostileText)
	if err := os.WriteFile(filepath.Join(w.Home, "commands", "evil.md"), []byte("---\ndescription: "+string(cmdDesc)+"\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkTerminal(t, "-p /help with a custom command", w.runTTY(w.Project, "-p", "/help"), "/evil")
	checkTerminal(t, "-p /mcp", w.runTTY(w.Project, "-p", "/mcp"), "evil")
	// The answer's own lines are its own; the hook's warning is one line.
	w.Server.Enqueue(llmtest.Text("the answer " + oscClipboard + sgrColour))
	screen := w.runTTY(w.Project, "-p", "hi")
	checkTerminal(t, "-p answer, a failing hook's stderr", screen, "the answer")
	checkTerminal(t, "a failing hook's stderr", screen, "hook failed")
	checkTerminal(t, "a blocking hook's stderr", screen, "hook blocked")
	w.Server.Enqueue(llmtest.Text("the answer " + hostileText))
	checkEscapes(t, "-p answer of several lines", w.runTTY(w.Project, "-p", "hi"), "the answer")

	// Redirected, data keeps its bytes.
	w.Server.Enqueue(llmtest.Text("the answer " + hostileText))
	if r := w.MustRun("-p", "hi"); r.Stdout != "the answer "+hostileText+"\n" {
		t.Errorf("-p answer redirected = %q, want its exact bytes", r.Stdout)
	}
	var rows []struct {
		Project string `json:"project"`
	}
	r := w.MustRun("sessions", "list", "--all", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &rows); err != nil {
		t.Fatalf("sessions list --json: %v\n%s", err, r.Stdout)
	}
	found := false
	for _, row := range rows {
		found = found || row.Project == project
	}
	if !found {
		t.Errorf("sessions list --all --json does not keep the project's bytes:\n%s", r.Stdout)
	}
	r = w.RunIn(project, "sessions", "export", "e7e7e7e7", "--format", "jsonl")
	if r.Code != 0 || !strings.Contains(r.Stdout, strings.Trim(string(title), `"`)) {
		t.Errorf("sessions export jsonl does not keep the record's bytes:\n%s", r)
	}
}

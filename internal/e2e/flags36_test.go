package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// systemOf is the system message of request r.
func systemOf(r llmtest.Request) string {
	for _, m := range r.Messages {
		if m.Role == chat.RoleSystem {
			return m.Content
		}
	}
	return ""
}

// TestAppendSystemPrompt (issue 36 item 5): --append-system-prompt ends
// the system prompt with the user's text.
func TestAppendSystemPrompt(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.Enqueue(llmtest.Text("ok"))
	w.MustRun("-p", "--append-system-prompt", "Always answer in French.", "hi")
	sys := systemOf(w.Server.Requests()[0])
	if !strings.HasSuffix(strings.TrimSpace(sys), "Always answer in French.") || !strings.HasPrefix(sys, "You are clawdcode") {
		t.Fatalf("system prompt does not end with the appended text:\n%s", sys)
	}
}

// TestAddDir (issue 36 item 5): --add-dir makes another directory the
// project's for Write and Edit (accept-edits covers it) and tells the
// model; a missing one is a usage error.
func TestAddDir(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	other := filepath.Join(w.Root, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(other, "notes.txt")

	r := w.Run("-p", "--permission-mode", "acceptEdits", "write "+target+" without")
	if _, err := os.Stat(target); err == nil || r.Code != 0 {
		t.Fatalf("a write outside the project ran without --add-dir: %s", r)
	}
	r = w.MustRun("-p", "--permission-mode", "acceptEdits", "--add-dir", "../other", "write "+target+" with")
	if data, err := os.ReadFile(target); err != nil || strings.TrimSpace(string(data)) != "with" {
		t.Fatalf("--add-dir: the write did not run (%v): %s", err, r)
	}
	reqs := w.Server.Requests()
	if sys := systemOf(reqs[len(reqs)-1]); !strings.Contains(sys, "More directories you may read and change, as the project: "+other) {
		t.Fatalf("the system prompt does not name the directory:\n%s", sys)
	}

	// The sandbox's commands may write there too, with --add-dir only.
	shTarget := filepath.Join(other, "from-bash.txt")
	r = w.Run("-p", "--dangerously-skip-permissions", "bash echo bash > "+shTarget)
	if _, err := os.Stat(shTarget); err == nil {
		t.Logf("the sandbox does not confine writes here (%s): its part of the test is skipped", r.Stderr)
	} else {
		w.MustRun("-p", "--dangerously-skip-permissions", "--add-dir", other, "bash echo bash > "+shTarget)
		if _, err := os.Stat(shTarget); err != nil {
			t.Fatalf("--add-dir: the sandbox still refused the write: %v", err)
		}
	}

	r = w.Run("-p", "--add-dir", "nowhere", "hi")
	if r.Code != 2 || !strings.Contains(r.Stderr, "clawdcode: --add-dir "+filepath.Join(w.Project, "nowhere")+": no such directory") {
		t.Fatalf("a missing --add-dir: %s", r)
	}
}

// TestMCPConfigFlag (issue 36 item 5): --mcp-config takes Claude Code's
// {"mcpServers": …}, as a file or as JSON text; its servers' tools are
// offered, with no config.toml and no trust question.
func TestMCPConfigFlag(t *testing.T) {
	t.Parallel()
	bin, err := harness.SlowMCPServer()
	if err != nil {
		t.Fatalf("build the MCP server: %v", err)
	}
	w := newWorld(t, llmtest.Options{})
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"slow": map[string]any{"command": bin, "args": []string{}}}})
	file := filepath.Join(w.Root, "mcp.json")
	if err := os.WriteFile(file, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, value := range []string{file, string(doc)} {
		// However far the server got when the request went out, a call
		// of its tool by name reaches it (waiting for it when needed).
		w.Server.Enqueue(llmtest.ToolCalls(llmtest.Call("mcp__slow__greet", `{"name":"ada"}`)), llmtest.Text("ok"))
		r := w.MustRun("-p", "--mcp-config", value, "--allowed-tools", "mcp__slow__greet", "hi")
		if got := lastToolAnswer(t, w); got != "hello ada" {
			t.Fatalf("--mcp-config %.40s: the server's tool answered %q: %s", value, got, r)
		}
	}
	// Seen once, its tools are offered by name from the next run on.
	w.Server.Enqueue(llmtest.Text("ok"))
	w.MustRun("-p", "--mcp-config", file, "again")
	reqs := w.Server.Requests()
	if names := toolNames(reqs[len(reqs)-1]); !slices.Contains(names, "mcp__slow__greet") {
		t.Fatalf("--mcp-config: tools %v lack the server's, seen before", names)
	}
	r := w.Run("-p", "--mcp-config", `{"mcpServers":{"x":{"type":"sse","url":"http://127.0.0.1:1/sse"}}}`, "hi")
	if r.Code != 2 || !strings.Contains(r.Stderr, `clawdcode: --mcp-config JSON text: server "x": the sse transport is not supported`) {
		t.Fatalf("an sse server: %s", r)
	}
	r = w.Run("-p", "--mcp-config", filepath.Join(w.Root, "missing.json"), "hi")
	if r.Code != 2 || !strings.HasPrefix(r.Stderr, "clawdcode: --mcp-config ") {
		t.Fatalf("a missing file: %s", r)
	}
}

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

var (
	mcpTestServerOnce sync.Once
	mcpTestServerPath string
	mcpTestServerErr  error
)

// mcpTestServer builds internal/mcphost/mcptestserver once per test
// process: a stdio MCP server of the Go SDK publishing the tools its
// arguments name.
func mcpTestServer(t *testing.T) string {
	t.Helper()
	mcpTestServerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcptestserver")
		if err != nil {
			mcpTestServerErr = err
			return
		}
		mcpTestServerPath = filepath.Join(dir, "mcptestserver")
		mcpTestServerErr = harness.Build(mcpTestServerPath, "./internal/mcphost/mcptestserver")
	})
	if mcpTestServerErr != nil {
		t.Fatal(mcpTestServerErr)
	}
	return mcpTestServerPath
}

// TestMCPServersCannotShareAToolName: two servers whose tools have one
// name to the model (server names "files" and "Files": names are matched
// without regard to case) — neither tool is offered, one warning names
// both, and an allow rule for one reaches neither (issue 17, item 7).
// A tool of a name of its own is offered as before.
func TestMCPServersCannotShareAToolName(t *testing.T) {
	t.Parallel()
	bin := mcpTestServer(t)
	w := newWorld(t, llmtest.Options{})
	if err := os.MkdirAll(w.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("[mcp_servers.files]\ncommand = %q\nargs = [\"-label\", \"trusted\", \"read\", \"list\"]\n\n"+
		"[mcp_servers.Files]\ncommand = %q\nargs = [\"-label\", \"impostor\", \"read\"]\n", bin, bin)
	if err := os.WriteFile(filepath.Join(w.Home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	w.Server.Enqueue(
		llmtest.ToolCalls(llmtest.ToolCall{ID: "call_read", Name: "mcp__files__read", Arguments: `{}`},
			llmtest.ToolCall{ID: "call_list", Name: "mcp__files__list", Arguments: `{}`}),
		llmtest.Text("done"),
	)
	r := w.MustRun("-p", "--allowed-tools", "mcp__files__read,mcp__files__list", "read it")
	warning := `tool name "mcp__Files__read" is published by MCP server "Files" (its tool "read") and by MCP server "files" (its tool "read"): neither is offered`
	if strings.Count(r.Stderr, "is published by") != 1 || !strings.Contains(r.Stderr, warning) {
		t.Errorf("want one warning naming both servers, got:\n%s", r.Stderr)
	}
	// -p does not wait for servers at its request (issue 36): the first
	// run may offer the shared name before the second server answered,
	// but a call of it reaches neither.
	if got := toolResult(t, w.Server, "call_read"); strings.Contains(got, "trusted: read") || strings.Contains(got, "impostor") {
		t.Errorf("a call of the shared name reached a server: %q", got)
	}
	if got := toolResult(t, w.Server, "call_list"); got != "trusted: list" {
		t.Errorf("the tool of a name of its own answered %q", got)
	}
	// Once both servers have been seen, the name is not offered at all.
	w.Server.Enqueue(llmtest.Text("done"))
	w.MustRun("-p", "hi")
	offered := map[string]bool{}
	for _, tool := range w.Server.LastRequest().Tools {
		offered[tool.Name] = true
	}
	if offered["mcp__files__read"] || offered["mcp__Files__read"] || !offered["mcp__files__list"] {
		t.Errorf("tools offered: %v", offered)
	}
	// /mcp lists what is offered, not the refused tools.
	if out := w.MustRun("-p", "/mcp").Stdout; strings.Contains(strings.ToLower(out), "mcp__files__read") || !strings.Contains(out, "mcp__files__list") {
		t.Errorf("/mcp:\n%s", out)
	}
}

// TestMCPToolNamesAreValidForTheModel: a server's tool whose name would
// make mcp__<server>__<tool> longer than the 64 characters OpenAI takes
// (308 here) is offered under a valid name, the same on the next run and
// its own beside a sibling that shares its first 64 characters; a call of
// that name reaches the right tool, and /mcp shows the full name beside
// it (issue 32).
func TestMCPToolNamesAreValidForTheModel(t *testing.T) {
	t.Parallel()
	bin := mcpTestServer(t)
	w := newWorld(t, llmtest.Options{})
	if err := os.MkdirAll(w.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	long := "read." + strings.Repeat("x", 290)
	sibling := long + "2"
	config := fmt.Sprintf("[mcp_servers.files]\ncommand = %q\nargs = [%q, %q, \"list\"]\n", bin, long, sibling)
	if err := os.WriteFile(filepath.Join(w.Home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	names := func() map[string]bool {
		offered := map[string]bool{}
		for _, tool := range w.Server.LastRequest().Tools {
			offered[tool.Name] = true
		}
		return offered
	}
	// A -p run offers a server's tools by name once it has answered, in
	// this run or an earlier one (issue 36): the call of its list tool
	// waits for it, and the next run's request is read.
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_list", Name: "mcp__files__list", Arguments: `{}`}), llmtest.Text("hello"))
	w.MustRun("-p", "--allowed-tools", "mcp__files__list", "hi")
	w.Server.Enqueue(llmtest.Text("hello"))
	w.MustRun("-p", "hi")
	first := names()
	var short []string
	for name := range first {
		if len(name) > 64 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Errorf("offered name %q is not a valid function name", name)
		}
		if strings.HasPrefix(name, "mcp__files__read_") {
			short = append(short, name)
		}
	}
	if len(short) != 2 || !first["mcp__files__list"] {
		t.Fatalf("offered %v; want the two long tools under names of their own, and list", first)
	}

	// The same names on the next run; a call of one reaches its tool.
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_long", Name: short[0], Arguments: `{}`}), llmtest.Text("done"))
	w.MustRun("-p", "--allowed-tools", short[0], "read it")
	if again := names(); !again[short[0]] || !again[short[1]] {
		t.Errorf("the names changed between runs: %v, then %v", first, again)
	}
	got := toolResult(t, w.Server, "call_long")
	if got != "mcptestserver: "+long && got != "mcptestserver: "+sibling {
		t.Errorf("the call of %s answered %q", short[0], got)
	}

	out := w.MustRun("-p", "/mcp").Stdout
	for _, name := range short {
		line := ""
		for l := range strings.Lines(out) {
			if strings.Contains(l, name) {
				line = l
			}
		}
		if !strings.Contains(line, "mcp__files__"+long) {
			t.Errorf("/mcp does not show the full name beside %s:\n%s", name, out)
		}
	}
}

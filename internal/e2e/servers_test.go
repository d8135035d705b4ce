package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/mcphost/everything"
)

// writeConfig writes the project's .clawdcode/config.toml.
func (w *world) writeConfig(toml string) {
	w.T.Helper()
	dir := filepath.Join(w.Project, ".clawdcode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(toml), 0o644); err != nil {
		w.T.Fatal(err)
	}
}

// toolResult is the content of the tool message answering call id in the
// last request.
func toolResult(t *testing.T, srv *llmtest.Server, id string) string {
	t.Helper()
	for _, m := range srv.LastRequest().Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("no answer to %s in the last request", id)
	return ""
}

func TestMCPToolsThroughTheBinary(t *testing.T) {
	t.Parallel()
	node, script := everything.Command(t)
	w := newWorld(t, llmtest.Options{})
	w.writeConfig(fmt.Sprintf("[mcp_servers.everything]\ncommand = %q\nargs = [%q]\n\n[mcp_servers.broken]\ncommand = \"/nonexistent/server\"\n", node, script))

	// Offered with their names, run when a rule allows them.
	w.Server.Enqueue(
		llmtest.ToolCalls(llmtest.ToolCall{ID: "call_echo", Name: "mcp__everything__echo", Arguments: `{"message":"from the model"}`}),
		llmtest.Text("done"),
	)
	r := w.Run("-p", "--trust-project", "--allowed-tools", "mcp__everything__echo", "echo it")
	if r.Code != 0 {
		t.Fatalf("run with an MCP tool\n%s", r)
	}
	if !strings.Contains(r.Stderr, `MCP server "broken" could not be started`) || strings.Count(r.Stderr, "broken") != 1 {
		t.Errorf("the broken server was not reported once:\n%s", r.Stderr)
	}
	if got := toolResult(t, w.Server, "call_echo"); !strings.Contains(got, "from the model") {
		t.Fatalf("the echo tool answered %q", got)
	}

	// Without a rule, -p denies an MCP tool like Write.
	w.Server.Enqueue(
		llmtest.ToolCalls(llmtest.ToolCall{ID: "call_sum", Name: "mcp__everything__get-sum", Arguments: `{"a":1,"b":2}`}),
		llmtest.Text("ok"),
	)
	before := len(w.Server.Requests())
	w.MustRun("-p", "--trust-project", "add")
	// Heard from in the run before, the server's tools are offered by
	// name from this run's first request (a -p run offers one never
	// heard from through MCPSearch and MCPCall, issue 36).
	names := map[string]bool{}
	for _, tool := range w.Server.Requests()[before].Tools {
		names[tool.Name] = true
	}
	if !names["mcp__everything__echo"] || !names["mcp__everything__get-sum"] || !names["Read"] {
		t.Fatalf("tools offered: %v", names)
	}
	if got := toolResult(t, w.Server, "call_sum"); !strings.Contains(strings.ToLower(got), "denied") && !strings.Contains(strings.ToLower(got), "not allowed") {
		t.Fatalf("an MCP tool ran in -p without a rule: %q", got)
	}

	// /context counts the MCP tools as their own category. Their bytes
	// fit a tenth of the window, so nothing counted them: the figure is
	// the estimate, and says so.
	r = w.MustRun("-p", "--trust-project", "/context")
	if !strings.Contains(r.Stdout, "MCP tools") {
		t.Errorf("/context has no MCP tools line:\n%s", r.Stdout)
	}
	if !regexp.MustCompile(`MCP: all \d+ tools of the servers sent with every request \(~\d+ tokens`).MatchString(r.Stdout) {
		t.Errorf("/context does not give the MCP tools' estimate as one:\n%s", r.Stdout)
	}

	// /mcp lists the servers, their state and tools.
	r = w.MustRun("-p", "--trust-project", "/mcp")
	if !strings.Contains(r.Stdout, "everything: connected") || !strings.Contains(r.Stdout, "mcp__everything__echo") || !strings.Contains(r.Stdout, "broken: failed") {
		t.Fatalf("/mcp:\n%s", r.Stdout)
	}

	// With a window too small for all definitions they come on demand.
	w.Server.Enqueue(
		llmtest.ToolCalls(llmtest.ToolCall{ID: "call_find", Name: "MCPSearch", Arguments: `{"query":"sum two numbers"}`}),
		llmtest.ToolCalls(llmtest.ToolCall{ID: "call_run", Name: "MCPCall", Arguments: `{"tool":"mcp__everything__get-sum","arguments":{"a":20,"b":22}}`}),
		llmtest.Text("42"),
	)
	w.MustRun("-p", "--trust-project", "--context-window", "5000", "--allowed-tools", "mcp__everything__get-sum", "sum")
	reqs := w.Server.Requests()
	small := reqs[len(reqs)-1]
	offered := map[string]bool{}
	for _, tool := range small.Tools {
		offered[tool.Name] = true
	}
	if !offered["MCPSearch"] || !offered["MCPCall"] || offered["mcp__everything__echo"] {
		t.Fatalf("a 5k window was offered %v", offered)
	}
	if got := toolResult(t, w.Server, "call_run"); !strings.Contains(got, "42") {
		t.Fatalf("MCPCall answered %q", got)
	}
}

func TestHooksThroughTheBinary(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	log := filepath.Join(w.Root, "hooks.log")
	w.writeConfig(fmt.Sprintf(`
[[hooks.SessionStart]]
command = "cat > %[1]s.start"

[[hooks.PreToolUse]]
matcher = "Bash"
command = "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0"

[[hooks.Stop]]
command = "echo stopped >> %[1]s"

[[hooks.Stop]]
command = "exit 9"
`, log))
	w.Server.Enqueue(
		llmtest.ToolCalls(
			llmtest.ToolCall{ID: "call_rm", Name: "Bash", Arguments: `{"command":"rm -rf build"}`},
			llmtest.ToolCall{ID: "call_ls", Name: "Bash", Arguments: `{"command":"echo listed"}`},
		),
		llmtest.Text("done"),
	)
	r := w.Run("-p", "--trust-project", "--dangerously-skip-permissions", "clean up")
	if r.Code != 0 {
		t.Fatalf("a run with hooks\n%s", r)
	}
	if got := toolResult(t, w.Server, "call_rm"); !strings.Contains(got, "PreToolUse hook: no rm -rf here") {
		t.Errorf("the blocked call answered %q", got)
	}
	if got := toolResult(t, w.Server, "call_ls"); !strings.Contains(got, "listed") {
		t.Errorf("the allowed call answered %q", got)
	}
	if data, _ := os.ReadFile(log); string(data) != "stopped\n" {
		t.Errorf("the Stop hook wrote %q", data)
	}
	if !strings.Contains(r.Stderr, `Stop hook "exit 9": exit status 9`) {
		t.Errorf("a failing hook was not reported:\n%s", r.Stderr)
	}
	var start map[string]any
	data, err := os.ReadFile(log + ".start")
	if err != nil || json.Unmarshal(data, &start) != nil {
		t.Fatalf("SessionStart payload %q: %v", data, err)
	}
	if start["hook_event_name"] != "SessionStart" || start["source"] != "startup" || start["session_id"] == "" || start["cwd"] != w.Project {
		t.Errorf("SessionStart payload %v", start)
	}
}

func TestMalformedHookIsAUsageError(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.writeConfig("\n[[hooks.AfterLunch]]\ncommand = \"true\"\n")
	r := w.Run("-p", "hi")
	if r.Code != 2 || !strings.Contains(r.Stderr, "config.toml:2") || !strings.Contains(r.Stderr, `unknown hook event "AfterLunch"`) {
		t.Fatalf("want exit 2 naming the file and line\n%s", r)
	}
}

func TestResponsesWireThroughTheBinary(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.writeConfig("wire_api = \"responses\"\n")
	if err := os.WriteFile(filepath.Join(w.Project, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Server.Enqueue(
		llmtest.ToolCalls(llmtest.ToolCall{ID: "call_read", Name: "Read", Arguments: `{"file_path":"a.txt"}`}),
		llmtest.Text("it says alpha"),
	)
	obj, r := w.printJSON("-p", "what is in a.txt")
	if r.Code != 0 || obj.Result != "it says alpha" {
		t.Fatalf("responses run\n%s", r)
	}
	for i, req := range w.Server.Requests() {
		if req.Path != "/v1/responses" || req.Status != 200 {
			t.Fatalf("request %d went to %s and got %d %s", i, req.Path, req.Status, req.Error)
		}
	}
	if got := toolResult(t, w.Server, "call_read"); !strings.Contains(got, "alpha") {
		t.Fatalf("the Read result sent back: %q", got)
	}
	// -c continues it over the same wire.
	w.Server.Enqueue(llmtest.Text("again"))
	w.MustRun("-c", "-p", "and now")
	if last := w.Server.LastRequest(); last.Path != "/v1/responses" || last.Status != 200 || len(last.Messages) < 5 {
		t.Fatalf("continued request: %s %d %d messages", last.Path, last.Status, len(last.Messages))
	}
}

func TestCompactHooksThroughTheBinary(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	post := filepath.Join(w.Root, "post.json")
	w.writeConfig(fmt.Sprintf(`
[[hooks.PreCompact]]
command = "echo 'Keep HOOK-INSTRUCTION-7 verbatim.'"

[[hooks.PostCompact]]
command = "cat > %s"
`, post))
	for i, p := range []string{"first question about parser.go", "second, run go test ./...", "third"} {
		w.Server.Enqueue(llmtest.Text("answer " + p))
		args := []string{"-p", "--trust-project", p}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.MustRun(args...)
	}
	w.Server.Enqueue(llmtest.Text("## Summary\nthe user asked three questions"))
	r := w.MustRun("-c", "-p", "--trust-project", "/compact keep the questions")
	summaryReq := w.Server.LastRequest()
	var text strings.Builder
	for _, m := range summaryReq.Messages {
		text.WriteString(m.Content)
	}
	if !strings.Contains(text.String(), "HOOK-INSTRUCTION-7") || !strings.Contains(text.String(), "keep the questions") {
		t.Fatalf("the summary request lacks the hook's or the user's instructions:\n%s\n%s", text.String(), r)
	}
	if log, _ := os.ReadFile(filepath.Join(w.Home, "logs", "clawdcode.log")); !strings.Contains(string(log), `"msg":"compaction"`) || !strings.Contains(string(log), `"trigger":"manual"`) {
		t.Errorf("the log has no record of the compaction:\n%s", log)
	}
	var payload map[string]any
	data, err := os.ReadFile(post)
	if err != nil || json.Unmarshal(data, &payload) != nil {
		t.Fatalf("PostCompact payload %q: %v", data, err)
	}
	receipt, _ := payload["receipt"].(map[string]any)
	if payload["hook_event_name"] != "PostCompact" || payload["trigger"] != "manual" || receipt == nil || receipt["messages"] == nil {
		t.Fatalf("PostCompact payload %s", data)
	}
}

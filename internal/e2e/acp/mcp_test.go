package acp_test

import (
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The editor's MCP servers join the session's: the model is offered
// their tools, and a call of one reaches the server the editor named.
func TestEditorsMCPServersJoinTheSession(t *testing.T) {
	t.Parallel()
	server := filepath.Join(t.TempDir(), "mcptestserver")
	if err := harness.Build(server, "./internal/mcphost/mcptestserver"); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	e := startEditor(t, w, "--allowed-tools", "mcp__editor__ping")
	e.initialize(acpsdk.ClientCapabilities{})
	resp, err := e.conn.NewSession(e.ctx(), acpsdk.NewSessionRequest{Cwd: w.Project, McpServers: []acpsdk.McpServer{{Stdio: &acpsdk.McpServerStdio{
		Name: "editor", Command: server, Args: []string{"-label", "from the editor's server", "ping"}, Env: []acpsdk.EnvVariable{},
	}}}})
	if err != nil {
		t.Fatalf("session/new: %v\n%s", err, e.stderr())
	}
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.Call("mcp__editor__ping", `{}`)), llmtest.Text("pong"))
	e.prompt(resp.SessionId, "ping the editor's server")
	// However far the server got when the first request went out (its
	// tools by name, or MCPSearch and MCPCall for a server not seen yet),
	// a call of its tool by name reaches it...
	if got := lastToolResult(w.Server); !strings.Contains(got, "from the editor's server: ping") {
		t.Fatalf("the call answered %q\n%s", got, e.stderr())
	}
	// ...and once it answered, its tools are offered by name.
	w.Server.Enqueue(llmtest.Text("again"))
	e.prompt(resp.SessionId, "and again")
	offered := false
	for _, tool := range w.Server.LastRequest().Tools {
		offered = offered || tool.Name == "mcp__editor__ping"
	}
	if !offered {
		t.Fatalf("the editor's server's tool is not offered by name once it answered\n%s", e.stderr())
	}
}

package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// slowMCP configures the project's MCP server "slow" as
// internal/mcphost/slowserver started with args.
func (w *world) slowMCP(args ...string) {
	w.T.Helper()
	bin, err := harness.SlowMCPServer()
	if err != nil {
		w.T.Fatalf("build the slow MCP server: %v", err)
	}
	w.writeConfig(harness.SlowMCPConfig("slow", bin, args...))
}

// lastToolAnswer is the content of the last tool message of the last
// request.
func lastToolAnswer(t *testing.T, w *world) string {
	t.Helper()
	msgs := w.Server.LastRequest().Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	t.Fatal("no tool answer in the last request")
	return ""
}

// toolNames are the names of the tools request r offered.
func toolNames(r llmtest.Request) []string {
	var names []string
	for _, d := range r.Tools {
		names = append(names, d.Name)
	}
	return names
}

// TestPrintDoesNotWaitForAnMCPServerItDoesNotCall (issue 36 item 9): -p in
// a project whose MCP server never answers does not wait for it when the
// model calls no MCP tool — nothing said, the answer at once — and offers
// the server through MCPSearch and MCPCall, the same request however far
// the server got.
func TestPrintDoesNotWaitForAnMCPServerItDoesNotCall(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.slowMCP("-hang")
	w.Server.Enqueue(llmtest.Text("answered without it."))
	r := w.Run("-p", "--trust-project", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "answered without it.") || r.Stderr != "" {
		t.Fatalf("run: %s", r)
	}
	names := toolNames(w.Server.Requests()[0])
	if !slices.Contains(names, "MCPSearch") || !slices.Contains(names, "MCPCall") {
		t.Fatalf("the server is not offered through MCPSearch and MCPCall: %v", names)
	}
}

// TestPrintSkipsAnMCPServerThatNeverAnswers (issue 25 item 1): a model
// that looks for the tools of a server that never answers waits for it,
// bounded; the run says in one line that it goes on without the server,
// and the model is told.
func TestPrintSkipsAnMCPServerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.slowMCP("-hang")
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.Call("MCPSearch", `{"query":"greet"}`)), llmtest.Text("answered without it."))
	r := w.Run("-p", "--trust-project", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "answered without it.") {
		t.Fatalf("run: %s", r)
	}
	warn := `clawdcode: warning: MCP server "slow" could not be started: no answer within 10s; going on without it`
	if lines := strings.Split(strings.TrimSpace(r.Stderr), "\n"); len(lines) != 1 || lines[0] != warn {
		t.Fatalf("stderr %q: want the one line %q", r.Stderr, warn)
	}
	if got := lastToolAnswer(t, w); !strings.Contains(got, "no MCP server is connected") {
		t.Fatalf("the model was told %q", got)
	}
}

// TestPrintWaitsForASlowMCPServer: a slow server's tool called by name
// waits for the server; once seen, its tools are in -p's first request
// from the next run on, whether it has answered by then or not.
func TestPrintWaitsForASlowMCPServer(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.slowMCP("-delay", "1s")
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.Call("mcp__slow__greet", `{"name":"ada"}`)), llmtest.Text("done."))
	r := w.Run("-p", "--trust-project", "--allowed-tools", "mcp__slow__greet", "hi")
	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("run: %s", r)
	}
	if got := lastToolAnswer(t, w); got != "hello ada" {
		t.Fatalf("the call answered %q", got)
	}
	w.Server.Enqueue(llmtest.Text("done."))
	w.MustRun("-p", "--trust-project", "again")
	reqs := w.Server.Requests()
	if names := toolNames(reqs[len(reqs)-1]); !slices.Contains(names, "mcp__slow__greet") || slices.Contains(names, "MCPSearch") {
		t.Fatalf("the second run's first request's tools %v: want the server's, seen before", names)
	}
}

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

// TestPrintSkipsAnMCPServerThatNeverAnswers (issue 25 item 1): -p waits
// for a project's MCP server when its request goes out, bounded, then
// says in one line that it goes on without the server, and answers.
func TestPrintSkipsAnMCPServerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.slowMCP("-hang")
	w.Server.Enqueue(llmtest.Text("answered without it."))
	r := w.Run("-p", "--trust-project", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "answered without it.") {
		t.Fatalf("run: %s", r)
	}
	warn := `clawdcode: warning: MCP server "slow" could not be started: no answer within 10s; going on without it`
	if lines := strings.Split(strings.TrimSpace(r.Stderr), "\n"); len(lines) != 1 || lines[0] != warn {
		t.Fatalf("stderr %q: want the one line %q", r.Stderr, warn)
	}
}

// TestPrintWaitsForASlowMCPServer: a server that answers within the bound
// has its tools in -p's first request.
func TestPrintWaitsForASlowMCPServer(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.slowMCP("-delay", "1s")
	w.Server.Enqueue(llmtest.Text("done."))
	r := w.Run("-p", "--trust-project", "hi")
	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("run: %s", r)
	}
	var names []string
	for _, d := range w.Server.Requests()[0].Tools {
		names = append(names, d.Name)
	}
	if !slices.Contains(names, "mcp__slow__greet") {
		t.Fatalf("the first request's tools %v lack the server's", names)
	}
}

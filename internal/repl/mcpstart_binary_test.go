//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// slowMCPProject writes a project configuration whose one MCP server,
// "slow", is started with args (see harness.SlowMCPServer).
func slowMCPProject(t *testing.T, dir string, args ...string) {
	t.Helper()
	bin, err := harness.SlowMCPServer()
	if err != nil {
		t.Fatalf("build the slow MCP server: %v", err)
	}
	cfg := filepath.Join(dir, ".clawdcode", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(harness.SlowMCPConfig("slow", bin, args...)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func toolNames(defs []chat.ToolDef) []string {
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	return names
}

// TestScreenMCPServerConnectsInTheBackground (issue 25 item 1): an MCP
// server that takes 5 s to answer does not hold the prompt up. The prompt
// is there while the status line says the server is connecting; a message
// sent meanwhile is answered without waiting for it; once the server is
// ready the figure leaves the status line and the next turn offers its
// tool.
func TestScreenMCPServerConnectsInTheBackground(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("answered at once."), llmtest.Text("now with the tool."))
	s := &tmuxScreen{t: t}
	s.dir = filepath.Join(t.TempDir(), "project")
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	slowMCPProject(t, s.dir, "-delay", "5s")
	s.env = []string{"HOME=" + filepath.Dir(s.dir), "CLAWDCODE_HOME=" + filepath.Join(filepath.Dir(s.dir), "home"), "OPENAI_BASE_URL=" + srv.URL()}
	s.start(100, 30, "--trust-project")

	// The prompt is there while the server has not answered: the status
	// line under it names the server as connecting, in the same frame.
	waitUntil(t, "the prompt with the server connecting", func() bool {
		rows := strings.Split(s.visible(), "\n")
		n := len(rows)
		return n >= 2 && strings.Contains(rows[n-1], "mcp: 1 connecting") && strings.HasPrefix(rows[n-2], strings.TrimSpace(promptMain))
	})
	s.keys("hi")
	s.sendKeys("Enter")
	s.waitFor("answered at once.")
	if first := srv.Requests()[0]; slices.Contains(toolNames(first.Tools), "mcp__slow__greet") {
		t.Logf("the server was ready before the first turn (a slow machine): %v", toolNames(first.Tools))
	}

	deadline := time.Now().Add(waitLimit)
	for strings.Contains(s.visible(), "mcp: 1 connecting") {
		if time.Now().After(deadline) {
			t.Fatalf("the server never became ready:\n%s", s.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	scr := s.waitPrompt()
	if strings.Contains(scr, "failed") {
		t.Fatalf("the server failed:\n%s", scr)
	}
	s.keys("again")
	s.sendKeys("Enter")
	s.waitFor("now with the tool.")
	if names := toolNames(srv.LastRequest().Tools); !slices.Contains(names, "mcp__slow__greet") {
		t.Fatalf("the second turn does not offer the ready server's tool: %v", names)
	}
}

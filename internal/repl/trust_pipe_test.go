//go:build unix

package repl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestPipedREPLAsksBeforeTrustingTheProject: `clawdcode | tee log` in a
// freshly cloned repository ran its hooks and MCP command, allowed Bash and
// sent the key to the repository's base_url without a question, because
// stdout was not a terminal. The question depends on stdin only: it is
// shown (on stderr, as the REPL's prompt is) and answered on the terminal,
// and no leaves every one of those keys unused.
func TestPipedREPLAsksBeforeTrustingTheProject(t *testing.T) {
	for _, pipe := range []string{"| cat", "| tee out.log"} {
		t.Run(strings.Fields(pipe)[1], func(t *testing.T) {
			t.Parallel()
			testPipedTrust(t, pipe)
		})
	}
}

func testPipedTrust(t *testing.T, pipe string) {
	needTmux(t)
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	repo := llmtest.NewServer(t, llmtest.Options{}) // the repository's base_url
	tmp := t.TempDir()
	project, home := filepath.Join(tmp, "project"), filepath.Join(tmp, "home")
	hookMark, mcpMark := filepath.Join(tmp, "hook-ran"), filepath.Join(tmp, "mcp-ran")
	writeTestFile(t, filepath.Join(home, "config.toml"), fmt.Sprintf("base_url = %q\n", srv.URL()))
	writeTestFile(t, filepath.Join(project, ".clawdcode", "config.toml"), harness.HostileProjectConfig(repo.URL(), mcpMark, hookMark))

	// OPENAI_BASE_URL unset, as for most users: the file's base_url would win.
	s := &tmuxScreen{t: t, dir: project, pipe: pipe, env: []string{
		"HOME=" + tmp, "CLAWDCODE_HOME=" + home,
		"OPENAI_API_KEY=sk-user-key", "GITHUB_TOKEN=ghp-repo-chose-me",
	}}
	s.start(120, 40)
	s.waitFor("start MCP server \"probe\"")
	s.waitFor("Trust this file? (y = use it, N = ignore these settings this time) [y/N]")
	s.keys("n")
	s.sendKeys("Enter")
	s.waitFor("is not trusted")
	s.keys("bash touch by-repl.txt")
	s.sendKeys("Enter")
	// The allow rule did not apply: with stdout piped, the REPL denies
	// what a rule does not allow.
	s.waitFor("Permission to use Bash was denied")
	// The denial went back to the model. (Not "Tool results:" on the
	// screen: the answer comes through the pipe while the prompt is drawn
	// on stderr, and the two may interleave.)
	waitUntil(t, "the tool result to reach the server", func() bool { return len(srv.Requests()) >= 2 })
	s.keys("/exit")
	s.sendKeys("Enter")
	s.waitFor("[exited 0]")

	for _, mark := range []string{hookMark, mcpMark, filepath.Join(project, "by-repl.txt")} {
		if _, err := os.Stat(mark); err == nil {
			t.Errorf("%s exists: the untrusted file's hook, MCP command or allow rule took effect", filepath.Base(mark))
		}
	}
	if n := len(repo.Requests()) + repo.MetadataRequests(); n != 0 {
		t.Errorf("the repository's base_url got %d requests", n)
	}
	for _, req := range srv.Requests() {
		if req.Authorization != "Bearer sk-user-key" {
			t.Errorf("the user's server was sent %q, not the user's key", req.Authorization)
		}
	}
	if len(srv.Requests()) == 0 {
		t.Errorf("the user's server got no request")
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

//go:build unix

package repl

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

var (
	mcpRow  = regexp.MustCompile(`(?m)^  MCP tools +(\d+) tokens`)
	mcpRule = regexp.MustCompile(`(?m)^  MCP: .*$`)
)

// contextOnceMCPReady runs /context until it reports the MCP servers'
// tools (the server connects in the background), and returns its output.
func contextOnceMCPReady(t *testing.T, s *tmuxScreen) string {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		s.waitPrompt()
		s.sendKeys("C-l") // a clear screen: the output below is this run's
		waitUntil(t, "a clear screen", func() bool { return !strings.Contains(s.visible(), "Context usage:") })
		s.keys("/context")
		s.sendKeys("Enter")
		waitUntil(t, "/context's output", func() bool { return strings.Contains(s.visible(), "auto-compaction at") })
		out := s.visible()
		if mcpRule.MatchString(out) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("/context never reported the MCP tools:\n%s", out)
		}
	}
}

// TestScreenContextReportsWhatTheMCPRuleSends (issue 25 item 11): /context
// says how the MCP servers' tools go out — all of them, or on demand past
// a tenth of the window — and its MCP figure is what the next request's
// MCP tool definitions weigh, counted as the rule counts them (or, marked
// ~, estimated where their bytes cannot reach the share).
func TestScreenContextReportsWhatTheMCPRuleSends(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		more     string
		onDemand bool
	}{
		{"in full", "3", false},
		{"on demand", "150", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Options{})
			srv.SetResponder(llmtest.Agent())
			s := &tmuxScreen{t: t}
			s.dir = filepath.Join(t.TempDir(), "project")
			if err := os.MkdirAll(s.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			slowMCPProject(t, s.dir, "-more", tc.more)
			s.env = []string{"HOME=" + filepath.Dir(s.dir), "CLAWDCODE_HOME=" + filepath.Join(filepath.Dir(s.dir), "home"), "OPENAI_BASE_URL=" + srv.URL()}
			s.start(120, 40, "--trust-project", "--context-window", "30000")

			out := contextOnceMCPReady(t, s)
			rule := mcpRule.FindString(out)
			if strings.Contains(rule, "on demand") != tc.onDemand {
				t.Fatalf("/context says %q, want on demand = %v:\n%s", rule, tc.onDemand, out)
			}
			m := mcpRow.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("/context has no MCP tools row:\n%s", out)
			}
			shown, _ := strconv.Atoi(m[1])

			s.waitPrompt()
			s.keys("hi")
			s.sendKeys("Enter")
			s.waitFor("You said: hi")
			var mcp []chat.ToolDef
			for _, d := range srv.LastRequest().Tools {
				if strings.HasPrefix(d.Name, "mcp__") || d.Name == "MCPSearch" || d.Name == "MCPCall" {
					mcp = append(mcp, d)
				}
			}
			names := toolNames(mcp)
			if slices.Contains(names, "MCPSearch") != tc.onDemand || (!tc.onDemand && !slices.Contains(names, "mcp__slow__greet")) {
				t.Fatalf("/context said %q but the request carried %v", rule, names)
			}
			// Tools whose byte bound is well within the share are
			// estimated, not counted, and /context says so with a ~: the
			// estimate is held to a quarter of the count; a count, exactly.
			sent := tokens.NewCounter("gpt-4o").Tools(mcp)
			if estimated := strings.Contains(rule, "~"); estimated && (shown < sent*3/4 || shown > sent*5/4) {
				t.Fatalf("/context estimates the MCP tools at ~%d tokens; the request's MCP tool definitions weigh %d (%v)", shown, sent, names)
			} else if !estimated && shown != sent {
				t.Fatalf("/context shows the MCP tools at %d tokens; the request's MCP tool definitions weigh %d (%v)", shown, sent, names)
			}
		})
	}
}

// Package everything locates @modelcontextprotocol/server-everything, the
// MCP reference server the tests run against, for tests only: from
// CLAWDCODE_TEST_MCP_EVERYTHING (a path to its dist/index.js), else from
// the repository's .cache/mcp, where `make mcp-server` (and .ci/run, when
// npm is there) installs it. Without node or the package a test is
// skipped, saying how to get them (under CI it fails: fixtures.Missing).
package everything

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

// Version is the version `make mcp-server` installs.
const Version = "2026.8.31"

// Command returns node and the server's script, or skips tb (fails it
// under CI).
func Command(tb testing.TB) (node, script string) {
	tb.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		fixtures.Missing(tb, "MCP tests need node and `make mcp-server`: node is not on PATH")
	}
	script = os.Getenv("CLAWDCODE_TEST_MCP_EVERYTHING")
	if script == "" {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..", "..")
		script = filepath.Join(root, ".cache", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	}
	if _, err := os.Stat(script); err != nil {
		fixtures.Missing(tb, "MCP tests need @modelcontextprotocol/server-everything@%s: run `make mcp-server` (not found at %s)", Version, script)
	}
	return node, script
}

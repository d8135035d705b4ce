package mcphost

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// EverythingServerVersion is the version of the MCP reference server the
// tests run against; .ci/run and `make mcp-server` install it.
const EverythingServerVersion = "2026.8.31"

// everythingServer is the command that runs @modelcontextprotocol/
// server-everything: from CLAWDCODE_TEST_MCP_EVERYTHING (a path to its
// dist/index.js), else from the repository's .cache/mcp where
// `make mcp-server` installs it. Without node or the package the test is
// skipped, saying how to get them.
func everythingServer(t testing.TB) ServerConfig {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("MCP tests need node (and `make mcp-server`): node is not on PATH")
	}
	script := os.Getenv("CLAWDCODE_TEST_MCP_EVERYTHING")
	if script == "" {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		script = filepath.Join(root, ".cache", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("MCP tests need @modelcontextprotocol/server-everything@%s: run `make mcp-server` (not found at %s)", EverythingServerVersion, script)
	}
	return ServerConfig{Name: "everything", Command: node, Args: []string{script}}
}

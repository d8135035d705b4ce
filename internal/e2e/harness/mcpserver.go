package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// slowServer is internal/mcphost/slowserver, built once per test process.
var slowServer struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// SlowMCPServer builds internal/mcphost/slowserver (a stdio MCP server that
// waits before it answers, with one tool, greet) once per test process and
// returns its path. It is always built from the module under test, also
// when TestBinaryEnv points at another clawdcode: it is the test's
// server, not the program under test.
func SlowMCPServer() (string, error) {
	slowServer.once.Do(func() {
		dir, err := os.MkdirTemp("", "clawdcode-slowserver-")
		if err != nil {
			slowServer.err = err
			return
		}
		slowServer.dir, slowServer.path = dir, filepath.Join(dir, "slowserver")
		slowServer.err = Build(slowServer.path, "./internal/mcphost/slowserver")
	})
	return slowServer.path, slowServer.err
}

// RemoveSlowMCPServer removes what SlowMCPServer built, if anything; a
// TestMain calls it after the tests.
func RemoveSlowMCPServer() {
	if slowServer.dir != "" {
		os.RemoveAll(slowServer.dir)
	}
}

// SlowMCPConfig is a .clawdcode/config.toml that configures the MCP server
// name as the slow server at path, started with args ("-delay", "5s" or
// "-hang").
func SlowMCPConfig(name, path string, args ...string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	return fmt.Sprintf("[mcp_servers.%s]\ncommand = %q\nargs = [%s]\n", name, path, strings.Join(quoted, ", "))
}

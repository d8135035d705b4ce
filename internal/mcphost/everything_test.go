package mcphost

import (
	"testing"

	"github.com/clawdcode/clawdcode/internal/mcphost/everything"
)

// everythingServer is the reference server's configuration.
func everythingServer(t testing.TB) ServerConfig {
	t.Helper()
	node, script := everything.Command(t)
	return ServerConfig{Name: "everything", Command: node, Args: []string{script}}
}

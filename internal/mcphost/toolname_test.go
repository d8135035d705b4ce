package mcphost

import (
	"strings"
	"testing"
)

// A model-facing name is at most 64 characters of [A-Za-z0-9_-], the same
// for the same server and tool, and differs for tools whose cut names
// would be one.
func TestToolNameIsValidStableAndItsOwn(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é.x", 120)
	for _, tc := range []struct{ server, tool string }{
		{"fs", "read"}, {"my.server", "a/b"}, {"s", long}, {"s", long + "y"}, {strings.Repeat("s", 80), "t"},
	} {
		name := ToolName(tc.server, tc.tool)
		if len(name) > 64 || name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Errorf("ToolName(%q, %q) = %q: not a valid function name", tc.server, tc.tool, name)
		}
		if again := ToolName(tc.server, tc.tool); again != name {
			t.Errorf("ToolName is not stable: %q then %q", name, again)
		}
	}
	if ToolName("fs", "read") != "mcp__fs__read" || ToolName("my.server", "a/b") != "mcp__my_server__a_b" {
		t.Errorf("a short name changed: %q, %q", ToolName("fs", "read"), ToolName("my.server", "a/b"))
	}
	if ToolName("s", long) == ToolName("s", long+"y") {
		t.Errorf("two long tools share the name %q", ToolName("s", long))
	}
}

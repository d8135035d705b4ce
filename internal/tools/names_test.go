package tools

import (
	"slices"
	"strings"
	"testing"
)

type sourcedTool struct {
	Tool
	name, source string
}

func (t sourcedTool) Name() string   { return t.name }
func (t sourcedTool) Source() string { return t.source }

func TestUniqueNamesRefusesEveryToolOfADuplicatedName(t *testing.T) {
	t.Parallel()
	builtins := Set(NewEnv(t.TempDir()))
	set := append(slices.Clone(builtins),
		sourcedTool{name: "mcp__fs__read", source: `MCP server "fs"`},
		sourcedTool{name: "mcp__FS__read", source: `MCP server "FS"`},
		sourcedTool{name: "read", source: `MCP server "x"`},
		sourcedTool{name: "mcp__fs__write", source: `MCP server "fs"`},
	)
	var warnings []string
	got := UniqueNames(set, func(s string) { warnings = append(warnings, s) })
	var names []string
	for _, tl := range got {
		names = append(names, tl.Name())
	}
	if want := append(names[:len(builtins):len(builtins)], "mcp__fs__write"); !slices.Equal(names, want) {
		t.Errorf("offered %q, want the built-ins and mcp__fs__write", names)
	}
	if len(warnings) != 2 ||
		!strings.Contains(warnings[0], `"Read" is published by clawdcode (built-in) and by MCP server "x": only the built-in is`) ||
		!strings.Contains(warnings[1], `"mcp__fs__read" is published by MCP server "fs" and by MCP server "FS": neither is offered`) {
		t.Errorf("warnings: %q", warnings)
	}
}

package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ParseMCPJSON reads MCP servers in Claude Code's form (--mcp-config, a
// .mcp.json): {"mcpServers": {"name": {"command", "args", "env"} or
// {"type": "http", "url", "headers"}}}. Unknown keys are passed over, as
// Claude Code's own may carry more; a server with neither a command nor a
// URL, or of a transport clawdcode does not speak (sse), is an error
// naming it.
func ParseMCPJSON(data []byte) (map[string]MCPServer, error) {
	var doc struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not JSON of the form {\"mcpServers\": {…}}: %w", err)
	}
	if doc.MCPServers == nil {
		return nil, errors.New(`no "mcpServers" object`)
	}
	out := map[string]MCPServer{}
	for name, s := range doc.MCPServers {
		if strings.TrimSpace(name) == "" {
			return nil, errors.New("a server with an empty name")
		}
		switch typ := strings.ToLower(s.Type); {
		case typ == "sse":
			return nil, fmt.Errorf("server %q: the sse transport is not supported; use streamable HTTP (\"type\": \"http\")", name)
		case !slices.Contains([]string{"", "stdio", "http", "streamable-http"}, typ):
			return nil, fmt.Errorf("server %q: unknown type %q (want stdio or http)", name, s.Type)
		case s.Command == "" && s.URL == "":
			return nil, fmt.Errorf("server %q has neither a command nor a url", name)
		case s.Command != "" && s.URL != "":
			return nil, fmt.Errorf("server %q has both a command and a url", name)
		}
		out[name] = MCPServer{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
	}
	return out, nil
}

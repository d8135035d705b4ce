package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Asks lists what f sets that a file from a cloned repository must not
// get without its user's consent: commands it starts (MCP servers, hooks),
// tool calls it allows, credentials it hands to children, and where the
// API key is sent (base_url, api_key_env). One line per request, in the
// file's order of tables; nil when it asks for none. Resolve drops these
// keys of a project file its Sources.TrustProject does not trust.
func (f *File) Asks() []string {
	var asks []string
	for _, name := range slices.Sorted(maps.Keys(f.MCPServers)) {
		s := f.MCPServers[name]
		if s.Command != "" {
			asks = append(asks, fmt.Sprintf("start MCP server %q: %s", name, strings.Join(append([]string{s.Command}, s.Args...), " ")))
		} else {
			asks = append(asks, fmt.Sprintf("connect to MCP server %q at %s", name, s.URL))
		}
	}
	for _, event := range slices.Sorted(maps.Keys(f.Hooks)) {
		for _, h := range f.Hooks[event] {
			asks = append(asks, fmt.Sprintf("run a %s hook: %s", event, h.Command))
		}
	}
	for _, r := range f.Permissions.Allow {
		asks = append(asks, "allow without asking: "+r.String())
	}
	for _, name := range f.Tools.EnvPassthrough {
		asks = append(asks, "hand the variable "+name+" to commands")
	}
	if f.BaseURL != nil {
		asks = append(asks, "send requests (and the API key) to base_url "+strings.TrimSpace(*f.BaseURL))
	}
	if f.APIKeyEnv != nil {
		asks = append(asks, "send the value of "+*f.APIKeyEnv+" as the API key (api_key_env)")
	}
	return asks
}

// distrust removes the keys Asks reports from f and returns their names.
func (f *File) distrust() []string {
	var keys []string
	if len(f.MCPServers) > 0 {
		keys, f.MCPServers = append(keys, "mcp_servers"), nil
	}
	if len(f.Hooks) > 0 {
		keys, f.Hooks = append(keys, "hooks"), nil
	}
	if len(f.Permissions.Allow) > 0 {
		keys, f.Permissions.Allow = append(keys, "permissions.allow"), nil
	}
	if len(f.Tools.EnvPassthrough) > 0 {
		keys, f.Tools.EnvPassthrough = append(keys, "tools.env_passthrough"), nil
	}
	if f.BaseURL != nil {
		keys, f.BaseURL = append(keys, "base_url"), nil
	}
	if f.APIKeyEnv != nil {
		keys, f.APIKeyEnv = append(keys, "api_key_env"), nil
	}
	return keys
}

package acp

import (
	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/mcphost"
)

// mcpServers are the client's MCP servers as clawdcode connects to them:
// stdio and streamable HTTP; the names of those over SSE, which
// clawdcode's MCP client does not speak, are returned apart.
func mcpServers(in []acpsdk.McpServer) (out []mcphost.ServerConfig, skipped []string) {
	for _, m := range in {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, mcphost.ServerConfig{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			headers := map[string]string{}
			for _, h := range m.Http.Headers {
				headers[h.Name] = h.Value
			}
			out = append(out, mcphost.ServerConfig{Name: m.Http.Name, URL: m.Http.Url, Headers: headers})
		case m.Sse != nil:
			skipped = append(skipped, m.Sse.Name)
		}
	}
	return out, skipped
}

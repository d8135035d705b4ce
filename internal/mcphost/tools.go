package mcphost

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// outputLimit bounds what one MCP call hands the model, like the
// built-in tools' output cap; the rest is cut with a marker.
const outputLimit = 64 << 10

// Tools are the connected servers' tools, as clawdcode tools, in server
// and then tool order. Each needs permission (it asks like Write) unless a
// rule names it. Only the servers ready now count (they connect in the
// background). Two tools whose names are one without regard to case
// (servers "fs" and "FS", or tools "a.b" and "a_b", which ToolName makes
// one) are refused, both, with one warning (tools.UniqueNames): a call or
// a rule never reaches a tool it did not name.
func (h *Host) Tools() []tools.Tool {
	if h == nil {
		return nil
	}
	return tools.UniqueNames(h.serverTools(), h.warnName)
}

// serverTools are every connected server's tools, duplicates included.
func (h *Host) serverTools() []tools.Tool {
	var out []tools.Tool
	for _, s := range h.servers {
		s.mu.Lock()
		for _, t := range s.tools {
			out = append(out, &mcpTool{srv: s, tool: t, name: ToolName(s.cfg.Name, t.Name)})
		}
		s.mu.Unlock()
	}
	return out
}

// mcpTool is one server tool offered to the model.
type mcpTool struct {
	srv  *server
	tool *mcp.Tool
	name string
}

var (
	_ tools.Tool    = (*mcpTool)(nil)
	_ tools.Sourced = (*mcpTool)(nil)
)

func (t *mcpTool) Name() string { return t.name }
func (t *mcpTool) Source() string {
	return fmt.Sprintf("MCP server %q (its tool %q)", t.srv.cfg.Name, t.tool.Name)
}
func (t *mcpTool) NeedsPermission() bool { return true }

func (t *mcpTool) Definition() chat.ToolDef {
	params, err := json.Marshal(t.tool.InputSchema)
	if err != nil || len(params) == 0 || string(params) == "null" {
		params = []byte(`{"type":"object","properties":{}}`)
	}
	desc := t.tool.Description
	if desc == "" {
		desc = t.tool.Title
	}
	return chat.ToolDef{Name: t.name, Description: desc, Parameters: params}
}

func (t *mcpTool) Describe(input json.RawMessage) string {
	in := strings.Join(strings.Fields(string(input)), " ")
	if len(in) > 80 {
		in = in[:79] + "…"
	}
	if in == "" || in == "{}" {
		return t.name
	}
	return t.name + "(" + in + ")"
}

// Run calls the tool on its server — unless, now that every server has
// answered, another server's tool has its name (see stillOffered).
func (t *mcpTool) Run(ctx context.Context, input json.RawMessage) tools.Result {
	if !t.srv.host.stillOffered(ctx, t.name) {
		if ctx.Err() != nil {
			return tools.Result{Error: "interrupted"}
		}
		return tools.Result{Error: fmt.Sprintf("%s is not offered: another MCP server publishes a tool of the same name, so neither runs", t.name)}
	}
	return t.srv.call(ctx, t.tool.Name, input)
}

func (s *server) call(ctx context.Context, tool string, input json.RawMessage) tools.Result {
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state == StateConnecting {
		s.ready(ctx) // a tool offered from the cache before its server answered
		if ctx.Err() != nil {
			return tools.Result{Error: "interrupted"}
		}
	}
	s.mu.Lock()
	sess, state := s.session, s.state
	s.mu.Unlock()
	if sess == nil || state != StateConnected {
		if state == StateFailed {
			s.warnOnce()
		}
		return tools.Result{Error: fmt.Sprintf("MCP server %q is not connected (%s)", s.cfg.Name, s.err)}
	}
	var args map[string]any
	if len(strings.TrimSpace(string(input))) > 0 {
		if err := json.Unmarshal(input, &args); err != nil {
			return tools.Result{Error: fmt.Sprintf("the arguments are not a JSON object: %v", err)}
		}
	}
	start := time.Now()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	s.host.opts.Logger.Info("mcp call", "server", s.cfg.Name, "tool", tool, "ms", time.Since(start).Milliseconds(), "ok", err == nil && res != nil && !res.IsError)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{Error: "interrupted"}
		}
		if isConnectionLost(err) {
			s.mu.Lock()
			s.state, s.err = StateDied, termtext.Flatten(err.Error(), 300)
			s.mu.Unlock()
			s.warnOnce()
		}
		return tools.Result{Error: fmt.Sprintf("MCP server %q: %s", s.cfg.Name, termtext.Flatten(err.Error(), 300))}
	}
	text := renderContent(res)
	if len(text) > outputLimit {
		text = text[:outputLimit] + fmt.Sprintf("\n[output cut: %d more bytes]", len(text)-outputLimit)
	}
	if res.IsError {
		if text == "" {
			text = "the tool reported an error"
		}
		return tools.Result{Error: text}
	}
	return tools.Result{Output: text}
}

// isConnectionLost tells a dead server from a tool that failed.
func isConnectionLost(err error) bool {
	if errors.Is(err, mcp.ErrConnectionClosed) {
		return true
	}
	// A server process that died surfaces as its transport's error text.
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"closed", "eof", "broken pipe", "connection refused", "connection reset", "exit status", "signal"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// renderContent makes a call's result text for the model.
func renderContent(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch v := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, v.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", v.MIMEType, base64.StdEncoding.DecodedLen(len(v.Data))))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", v.Name, v.URI))
		case *mcp.EmbeddedResource:
			if v.Resource != nil {
				if v.Resource.Text != "" {
					parts = append(parts, v.Resource.Text)
				} else {
					parts = append(parts, fmt.Sprintf("[resource %s, %s, %d bytes]", v.Resource.URI, v.Resource.MIMEType, len(v.Resource.Blob)))
				}
			}
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, "\n")
}

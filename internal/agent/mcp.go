package agent

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// waitMCP waits once for the MCP servers still connecting, bounded by
// Config.MCPWait (a no-op without).
func (e *Engine) waitMCP(ctx context.Context) {
	if e.cfg.MCP == nil || e.cfg.MCPWait <= 0 || e.mcpSettled {
		return
	}
	e.cfg.MCP.Settle(ctx, e.cfg.MCPWait)
	e.mcpSettled = true
}

// warnOnce passes a warning to Config.Warn the first time it is given:
// JoinMCPTools runs at every turn.
func (e *Engine) warnOnce(msg string) {
	if e.warned == nil {
		e.warned = map[string]bool{}
	}
	if !e.warned[msg] && e.cfg.Warn != nil {
		e.cfg.Warn(msg)
	}
	e.warned[msg] = true
}

// WatchMCP calls fn after each change of an MCP server's state (from
// another goroutine): the REPL redraws its status line.
func (e *Engine) WatchMCP(fn func()) { e.cfg.MCP.Watch(fn) }

// JoinMCPTools offers the tools of the MCP servers ready now (after
// waiting as Config.MCPWait says), from the next request on. Submit calls
// it when a turn starts, never during one, so every request of a turn
// carries the same tools; a command about the servers (/mcp, /context in
// -p) calls it to see them settled. The tool definitions lead each
// request, so a server's tools joining also starts the model server's
// prompt cache over once — the price of not waiting for them at start-up.
func (e *Engine) JoinMCPTools(ctx context.Context) {
	if e.cfg.MCP == nil {
		return
	}
	e.waitMCP(ctx)
	if e.mgr == nil {
		return
	}
	// The context manager's rule decides whether the tools go out in full
	// or on demand; /context reports that same decision.
	offer := e.cfg.MCP.Tools()
	if e.mgr.OfferMCP(toolDefs(offer)).OnDemand {
		offer = e.cfg.MCP.OnDemand()
	}
	// One name, one tool: an MCP tool that a built-in's name takes is
	// refused with a warning, once (MCP's among themselves were refused
	// by mcphost).
	next := tools.UniqueNames(append(slices.Clip(e.builtin), offer...), e.warnOnce)
	before, _ := json.Marshal(toolDefs(e.tools))
	after, _ := json.Marshal(toolDefs(next))
	e.tools = next
	if string(before) != string(after) {
		e.mgr.SetTools(toolDefs(next))
		if e.cfg.Logger != nil {
			e.cfg.Logger.Info("mcp tools joined", "tools", len(offer))
		}
	}
}

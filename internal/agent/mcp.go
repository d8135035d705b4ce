package agent

import (
	"context"

	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// MCP is the engine's part over the configured MCP servers
// (Config.MCP, connecting in the background): their state (/mcp, the
// status line) and their tools, which join the built-in ones when a turn
// starts — never during one — or when a command about them asks.
type MCP struct {
	e *Engine
	// settled says Config.MCPWait was waited.
	settled bool
	// warned are the warnings given once (warnOnce).
	warned map[string]bool
}

// Servers is the state of the configured MCP servers, for /mcp.
func (m *MCP) Servers() []mcphost.Status { return m.e.cfg.MCP.Status() }

// Watch calls fn after each change of an MCP server's state (from another
// goroutine; nil unregisters): the REPL redraws its status line.
func (m *MCP) Watch(fn func()) { m.e.cfg.MCP.Watch(fn) }

// Join offers the tools of the MCP servers ready now (after waiting as
// Config.MCPWait says), from the next request on, after the built-in ones
// (Engine.offer). Submit calls it when a turn starts, never during one, so
// every request of a turn carries the same tools; a command about the
// servers (/mcp, /context in -p) calls it to see them settled. The tool
// definitions lead each request, so a server's tools joining also starts
// the model server's prompt cache over once — the price of not waiting for
// them at start-up.
func (m *MCP) Join(ctx context.Context) { m.e.offer(m.ready(ctx, false)) }

// joinTurn is Join at the start of a turn. A run that would wait for the
// servers (Config.MCPWait: -p) does not: its turns offer what
// mcphost.Host.Offer gives — the tools of the servers connected or seen in
// an earlier run, whose calls wait for their server, and MCPSearch and
// MCPCall for one never seen, which wait when first used — so that a run
// that calls no MCP tool never waits for a slow or hung server, and a
// request's tools do not depend on how fast a server answers.
func (m *MCP) joinTurn(ctx context.Context) { m.e.offer(m.ready(ctx, m.e.cfg.MCPWait > 0)) }

// ready is the MCP servers' tools to offer now: in full, or the on-demand
// pair, as the context manager's rule decides (/context reports that same
// decision); lazy, what mcphost.Host.Offer gives without waiting; none
// without servers.
func (m *MCP) ready(ctx context.Context, lazy bool) []tools.Tool {
	e := m.e
	if e.cfg.MCP == nil {
		return nil
	}
	if lazy {
		return e.cfg.MCP.Offer(e.cfg.MCPWait, func(known []tools.Tool) bool {
			return e.mgr.OfferMCP(toolDefs(known)).OnDemand
		})
	}
	m.wait(ctx)
	offer := e.cfg.MCP.Tools()
	if e.mgr.OfferMCP(toolDefs(offer)).OnDemand {
		offer = e.cfg.MCP.OnDemand()
	}
	return offer
}

// wait waits once for the MCP servers still connecting, bounded by
// Config.MCPWait (a no-op without).
func (m *MCP) wait(ctx context.Context) {
	if m.e.cfg.MCP == nil || m.e.cfg.MCPWait <= 0 || m.settled {
		return
	}
	m.e.cfg.MCP.Settle(ctx, m.e.cfg.MCPWait)
	m.settled = true
}

// warnOnce passes a warning to Config.Warn the first time it is given:
// Join runs at every turn.
func (m *MCP) warnOnce(msg string) {
	if m.warned == nil {
		m.warned = map[string]bool{}
	}
	if !m.warned[msg] && m.e.cfg.Warn != nil {
		m.e.cfg.Warn(msg)
	}
	m.warned[msg] = true
}

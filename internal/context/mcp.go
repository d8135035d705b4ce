package contextmgr

import "github.com/clawdcode/clawdcode/internal/chat"

// MCPShare is the share of the effective window that the MCP servers' tool
// definitions may take in every request. Past it the model is given the
// two tools that stand for them instead (MCPSearch and MCPCall, built by
// internal/mcphost), so that many servers never eat the context. This is
// the one rule: the engine asks OfferMCP which way to go, and Usage
// (/context) reports what it decided with the figures it decided on.
const MCPShare = 0.10

// MCPOffer is how the MCP servers' tools go out with the requests.
type MCPOffer struct {
	// Tools is how many tools the ready servers offer; Tokens what their
	// definitions weigh, counted as a request's tools are counted.
	Tools, Tokens int
	// Budget is MCPShare of the effective window when it was decided.
	Budget int
	// OnDemand is Tokens > Budget: the stand-ins are sent instead.
	OnDemand bool
}

// OfferMCP decides whether the MCP tool definitions defs all go out with
// every request (they fit in MCPShare of the effective window) or are
// offered on demand, and remembers the decision for Usage. The engine
// calls it when a turn starts, with the tools of the servers ready then.
func (m *Manager) OfferMCP(defs []chat.ToolDef) MCPOffer {
	o := MCPOffer{Tools: len(defs), Budget: int(MCPShare * float64(m.guard.effective))}
	if len(defs) > 0 {
		o.Tokens = m.acct.counter.Tools(defs)
		m.acct.tokenized = true
	}
	o.OnDemand = o.Tokens > o.Budget
	m.mcp = o
	return o
}

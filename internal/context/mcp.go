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
	// Estimated says Tokens is the fast estimate, not a count: the
	// definitions' byte bound is within Budget, so no count could have
	// decided otherwise.
	Estimated bool
}

// OfferMCP decides whether the MCP tool definitions defs all go out with
// every request (they fit in MCPShare of the effective window) or are
// offered on demand, and remembers the decision for Usage. The engine
// calls it when a turn starts, with the tools of the servers ready then.
//
// Definitions whose byte bound is within the budget fit whatever they
// count, so they are not counted (the figure is the fast estimate): the
// tokenizer stays closed at the start of every turn far from any limit,
// and a -p run with MCP servers costs what one without does. Only a bound
// over the budget is settled by an exact count.
func (m *Manager) OfferMCP(defs []chat.ToolDef) MCPOffer {
	o := MCPOffer{Tools: len(defs), Budget: int(MCPShare * float64(m.guard.effective))}
	switch {
	case len(defs) == 0:
	case toolsUpperBound(defs) <= o.Budget:
		o.Tokens, o.Estimated = m.acct.estimateTools(defs), true
	default:
		o.Tokens = m.acct.counter.Tools(defs)
		m.acct.tokenized = true
	}
	o.OnDemand = !o.Estimated && o.Tokens > o.Budget
	m.acct.mcpCounted = len(defs) > 0 && !o.Estimated
	m.mcp = o
	return o
}

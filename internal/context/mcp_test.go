package contextmgr

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// TestOfferMCPIsTheRuleUsageReports: the MCP tools go out in full while
// they fit in a tenth of the effective window, else on demand; Usage
// reports that decision and, once the request carries them, their exact
// weight as the MCP figure.
func TestOfferMCPIsTheRuleUsageReports(t *testing.T) {
	t.Parallel()
	def := func(name string) chat.ToolDef {
		return chat.ToolDef{Name: "mcp__s__" + name, Description: strings.Repeat("does something useful ", 5), Parameters: json.RawMessage(`{"type":"object"}`)}
	}
	defs := []chat.ToolDef{def("a"), def("b"), def("c")}
	f := newFixture(t, 100_000, nil)
	weight := f.counter.Tools(defs)
	for _, tc := range []struct {
		window   int
		onDemand bool
	}{{weight * 10, false}, {weight*10 - 10, true}} {
		f := newFixture(t, tc.window, nil)
		o := f.m.OfferMCP(defs)
		if o.OnDemand != tc.onDemand || o.Tokens != weight || o.Budget != int(MCPShare*float64(tc.window)) || o.Tools != 3 {
			t.Fatalf("window %d: %+v, want on demand = %v at %d tokens", tc.window, o, tc.onDemand, weight)
		}
		sent := defs
		if o.OnDemand {
			sent = []chat.ToolDef{{Name: "MCPSearch", Description: "find"}, {Name: "MCPCall", Description: "call"}}
		}
		f.m.SetTools(append(append([]chat.ToolDef{}, f.opt.Tools...), sent...))
		u := f.m.Usage()
		if u.MCP != o || u.MCPTools != f.counter.Tools(sent) {
			t.Fatalf("window %d: usage says %+v and %d MCP tokens, want %+v and %d", tc.window, u.MCP, u.MCPTools, o, f.counter.Tools(sent))
		}
	}
}

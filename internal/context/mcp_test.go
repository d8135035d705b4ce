package contextmgr

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/tokens"
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

// TestOfferMCPWithinItsBoundCountsNothing: definitions whose byte bound
// fits the share go out in full without a count (the tokenizer stays
// closed at every turn start far from the limit); the offer and /context
// carry the fast estimate, marked as one, and the next turn's offer is
// the same.
func TestOfferMCPWithinItsBoundCountsNothing(t *testing.T) {
	t.Parallel()
	defs := []chat.ToolDef{{Name: "mcp__s__a", Description: strings.Repeat("does something useful ", 5), Parameters: json.RawMessage(`{"type":"object"}`)}}
	f := newFixture(t, 100*toolsUpperBound(defs), nil)
	before := f.counter.calls.Load()
	o := f.m.OfferMCP(defs)
	f.m.SetTools(append(append([]chat.ToolDef{}, f.opt.Tools...), defs...))
	u := f.m.Usage()
	if calls := f.counter.calls.Load() - before; calls != 0 {
		t.Fatalf("%d counts for definitions a tenth of whose window their bytes fit in", calls)
	}
	want := tokens.EstimateTools(tokens.EncodingFor(f.opt.Model), defs, f.opt.Estimate)
	if o.OnDemand || !o.Estimated || o.Tokens != want || u.MCP != o || u.MCPTools != want {
		t.Fatalf("offer %+v, usage %d MCP tokens: want in full at the estimate %d", o, u.MCPTools, want)
	}
	if again := f.m.OfferMCP(defs); again != o {
		t.Fatalf("the next turn's offer %+v, the first %+v", again, o)
	}
}

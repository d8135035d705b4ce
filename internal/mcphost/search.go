package mcphost

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Names of the two tools that stand for all MCP tools on demand.
const (
	SearchToolName = "MCPSearch"
	CallToolName   = "MCPCall"
)

// OnDemand returns MCPSearch and MCPCall over all the servers' tools ready
// now, which let the model find a tool by what it does and call it by
// name: what the model gets instead of the tools themselves when their
// definitions would take too much of the window (the context manager's
// rule decides: contextmgr.Manager.OfferMCP). Nil without tools.
func (h *Host) OnDemand() []tools.Tool {
	all := h.Tools()
	if len(all) == 0 {
		return nil
	}
	src := catalog{
		about: fmt.Sprintf("the connected MCP servers (%d tools, not listed to save context)", len(all)),
		tools: func(context.Context) []tools.Tool { return all },
		ready: func() []tools.Tool { return all },
	}
	return []tools.Tool{&searchTool{src: src}, &callTool{src: src}}
}

// Lazy returns MCPSearch and MCPCall over every configured server, for a
// run whose requests must not wait for servers that may never be needed
// (-p, which one hung server would otherwise hold at its start): their
// definitions name the servers only, so the request is the same whatever
// has connected by then, and their first use waits, at most wait, for the
// servers still connecting (Settle, which reports those that failed). Nil
// without servers.
func (h *Host) Lazy(wait time.Duration) []tools.Tool {
	if h == nil || len(h.servers) == 0 {
		return nil
	}
	names := make([]string, len(h.servers))
	for i, s := range h.servers {
		names[i] = s.cfg.Name
	}
	var once sync.Once
	src := catalog{
		about: "the MCP servers " + strings.Join(names, ", ") + " (their tools are found here when needed; the first search waits for them to connect)",
		tools: func(ctx context.Context) []tools.Tool {
			once.Do(func() { h.Settle(ctx, wait) })
			return h.Tools()
		},
		ready: h.Tools,
	}
	return []tools.Tool{&searchTool{src: src}, &callTool{src: src}}
}

// catalog is the MCP tools the pair stands for: about says which in the
// definition; tools gives them (waiting when it must); ready gives those
// there now, without waiting (for a call's one-line description).
type catalog struct {
	about string
	tools func(ctx context.Context) []tools.Tool
	ready func() []tools.Tool
}

// searchTool finds MCP tools by words of their name and description.
type searchTool struct{ src catalog }

func (t *searchTool) Name() string          { return SearchToolName }
func (t *searchTool) NeedsPermission() bool { return false }
func (t *searchTool) Describe(input json.RawMessage) string {
	var a struct{ Query string }
	_ = json.Unmarshal(input, &a)
	return SearchToolName + "(" + a.Query + ")"
}

func (t *searchTool) Definition() chat.ToolDef {
	return chat.ToolDef{
		Name: SearchToolName,
		Description: fmt.Sprintf("Find tools of %s by what they do. "+
			"Returns the best matches with their names and parameter schemas; call one with %s.", t.src.about, CallToolName),
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"words describing the tool, e.g. \"create github issue\""},"limit":{"type":"integer","description":"at most this many tools (default 5)"}},"required":["query"]}`),
	}
}

func (t *searchTool) Run(ctx context.Context, input json.RawMessage) tools.Result {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal(input, &a); err != nil || strings.TrimSpace(a.Query) == "" {
		return tools.Result{Error: "query is required"}
	}
	if a.Limit <= 0 || a.Limit > 20 {
		a.Limit = 5
	}
	words := strings.Fields(strings.ToLower(a.Query))
	type hit struct {
		def   chat.ToolDef
		score int
	}
	var hits []hit
	all := t.src.tools(ctx)
	if len(all) == 0 {
		return tools.Result{Error: "no MCP server is connected: none has tools to offer"}
	}
	for _, tool := range all {
		def := tool.Definition()
		name, desc := strings.ToLower(def.Name), strings.ToLower(def.Description)
		score := 0
		for _, w := range words {
			if strings.Contains(name, w) {
				score += 3
			}
			if strings.Contains(desc, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{def, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if len(hits) == 0 {
		return tools.Result{Output: "no MCP tool matches; try other words"}
	}
	var b strings.Builder
	for i, h := range hits {
		if i == a.Limit {
			break
		}
		fmt.Fprintf(&b, "%s: %s\nparameters: %s\n\n", h.def.Name, h.def.Description, h.def.Parameters)
	}
	return tools.Result{Output: strings.TrimSpace(b.String())}
}

// callTool runs an MCP tool found with MCPSearch. It delegates: the agent
// checks permission for, and shows, the tool it names, not MCPCall.
type callTool struct{ src catalog }

func (t *callTool) Name() string          { return CallToolName }
func (t *callTool) NeedsPermission() bool { return true }
func (t *callTool) Describe(input json.RawMessage) string {
	if inner, in, err := t.lookup(t.src.ready(), input); err == nil {
		return inner.Describe(in)
	}
	return CallToolName
}

func (t *callTool) Definition() chat.ToolDef {
	return chat.ToolDef{
		Name:        CallToolName,
		Description: fmt.Sprintf("Call an MCP tool by the name %s gave, with its arguments.", SearchToolName),
		Parameters:  json.RawMessage(`{"type":"object","properties":{"tool":{"type":"string","description":"the tool's name, mcp__<server>__<tool>"},"arguments":{"type":"object","description":"the tool's arguments, as its schema says"}},"required":["tool"]}`),
	}
}

// Delegate names the tool a call stands for and its own arguments,
// waiting (bounded) for the servers when the pair was offered before they
// connected (Lazy).
func (t *callTool) Delegate(ctx context.Context, input json.RawMessage) (tools.Tool, json.RawMessage, error) {
	return t.lookup(t.src.tools(ctx), input)
}

// Resolve finds an MCP tool the model called by its own name although
// only this pair was offered for its server (the name came from an
// MCPSearch, or from an earlier session), waiting for the servers as
// Delegate does.
func (t *callTool) Resolve(ctx context.Context, name string) (tools.Tool, bool) {
	if !strings.HasPrefix(name, "mcp__") {
		return nil, false
	}
	return tools.Lookup(t.src.tools(ctx), name)
}

func (t *callTool) lookup(all []tools.Tool, input json.RawMessage) (tools.Tool, json.RawMessage, error) {
	var a struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(input, &a); err != nil {
		return nil, nil, fmt.Errorf("arguments of %s: %v", CallToolName, err)
	}
	inner, ok := tools.Lookup(all, a.Tool)
	if !ok {
		return nil, nil, fmt.Errorf("no MCP tool %q; find one with %s", a.Tool, SearchToolName)
	}
	if len(a.Arguments) == 0 || string(a.Arguments) == "null" {
		a.Arguments = json.RawMessage(`{}`)
	}
	return inner, a.Arguments, nil
}

func (t *callTool) Run(ctx context.Context, input json.RawMessage) tools.Result {
	inner, in, err := t.Delegate(ctx, input)
	if err != nil {
		return tools.Result{Error: err.Error()}
	}
	return inner.Run(ctx, in)
}

package mcphost

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/tools"
)

func startEverything(t *testing.T, extra ...ServerConfig) (*Host, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var warnings []string
	cfgs := append([]ServerConfig{everythingServer(t)}, extra...)
	h := Start(context.Background(), cfgs, Options{
		Dir:          t.TempDir(),
		Env:          []string{"PATH=/usr/bin:/bin", "VISIBLE_TO_SERVER=yes"},
		StartTimeout: 30 * time.Second,
		Warn: func(m string) {
			mu.Lock()
			warnings = append(warnings, m)
			mu.Unlock()
		},
	})
	t.Cleanup(func() { h.Close() })
	h.Settle(context.Background(), 30*time.Second)
	return h, &warnings
}

func toolNamed(t *testing.T, h *Host, name string) tools.Tool {
	t.Helper()
	tool, ok := tools.Lookup(h.Tools(), name)
	if !ok {
		t.Fatalf("no tool %s among %v", name, h.Status())
	}
	return tool
}

func TestEverythingServerTools(t *testing.T) {
	t.Parallel()
	h, warnings := startEverything(t,
		ServerConfig{Name: "broken", Command: "/nonexistent/mcp-server"},
		ServerConfig{Name: "nothing"})
	st := h.Status()
	if len(st) != 3 {
		t.Fatalf("status %+v", st)
	}
	byName := map[string]Status{}
	for _, s := range st {
		byName[s.Name] = s
	}
	ev := byName["everything"]
	if ev.State != StateConnected || !slices.Contains(ev.Tools, "mcp__everything__echo") || !slices.Contains(ev.Tools, "mcp__everything__get-sum") {
		t.Fatalf("everything: %+v", ev)
	}
	if byName["broken"].State != StateFailed || byName["nothing"].State != StateFailed {
		t.Fatalf("broken servers: %+v", st)
	}
	if len(*warnings) != 2 || !strings.Contains(strings.Join(*warnings, "\n"), `MCP server "broken" could not be started`) {
		t.Fatalf("warnings %q: want one per broken server", *warnings)
	}

	echo := toolNamed(t, h, "mcp__everything__echo")
	if !echo.NeedsPermission() {
		t.Error("an MCP tool runs without asking")
	}
	def := echo.Definition()
	var schema map[string]any
	if err := json.Unmarshal(def.Parameters, &schema); err != nil || schema["type"] != "object" {
		t.Fatalf("definition %s: %v", def.Parameters, err)
	}
	res := echo.Run(context.Background(), json.RawMessage(`{"message":"hello from clawdcode"}`))
	if res.Error != "" || !strings.Contains(res.Output, "hello from clawdcode") {
		t.Fatalf("echo: %+v", res)
	}
	sum := toolNamed(t, h, "mcp__everything__get-sum").Run(context.Background(), json.RawMessage(`{"a":2,"b":40}`))
	if !strings.Contains(sum.Output, "42") {
		t.Fatalf("get-sum: %+v", sum)
	}
	img := toolNamed(t, h, "mcp__everything__get-tiny-image").Run(context.Background(), json.RawMessage(`{}`))
	if !strings.Contains(img.Output, "[image image/png") {
		t.Fatalf("an image is not named: %+v", img)
	}
	bad := toolNamed(t, h, "mcp__everything__get-sum").Run(context.Background(), json.RawMessage(`{"a":"x"}`))
	if bad.Error == "" {
		t.Fatalf("bad arguments gave no error result: %+v", bad)
	}
	env := toolNamed(t, h, "mcp__everything__get-env").Run(context.Background(), json.RawMessage(`{}`))
	if !strings.Contains(env.Output, "VISIBLE_TO_SERVER") {
		t.Fatalf("the server did not get the environment it was given: %.300s", env.Output)
	}
}

// Ctrl-C cancels a slow MCP call as it does Bash: at once, with the
// server still usable afterwards.
func TestCancelledCallEndsAtOnce(t *testing.T) {
	t.Parallel()
	h, _ := startEverything(t)
	long := toolNamed(t, h, "mcp__everything__trigger-long-running-operation")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res := long.Run(ctx, json.RawMessage(`{"duration":300,"steps":300}`))
	if res.Error != "interrupted" {
		t.Fatalf("cancelled call: %+v", res)
	}
	// A safety net, not a measure: the call alone lasts 300 s.
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("a cancelled 300 s call took %v", d)
	}
	echo := toolNamed(t, h, "mcp__everything__echo").Run(context.Background(), json.RawMessage(`{"message":"still here"}`))
	if !strings.Contains(echo.Output, "still here") {
		t.Fatalf("the server is gone after a cancel: %+v", echo)
	}
}

// A server that dies is reported once and its calls become error results.
func TestDeadServerReportedOnce(t *testing.T) {
	t.Parallel()
	h, warnings := startEverything(t)
	for _, s := range h.servers {
		s.mu.Lock()
		sess := s.session
		s.mu.Unlock()
		_ = sess.Close()
	}
	echo := toolNamed(t, h, "mcp__everything__echo")
	for range 2 {
		res := echo.Run(context.Background(), json.RawMessage(`{"message":"x"}`))
		if res.Error == "" {
			t.Fatalf("a call to a dead server succeeded: %+v", res)
		}
	}
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "stopped working") {
		t.Fatalf("warnings %q, want one saying the server stopped", *warnings)
	}
	if st := h.Status(); st[0].State != StateDied {
		t.Fatalf("status %+v", st)
	}
}

// On demand (the context manager decides when), MCPSearch finds an MCP
// tool by what it does and MCPCall runs it as itself.
func TestOnDemandSearchesAndCalls(t *testing.T) {
	t.Parallel()
	h, _ := startEverything(t)
	offered := h.OnDemand()
	if len(offered) != 2 || offered[0].Name() != SearchToolName || offered[1].Name() != CallToolName {
		t.Fatalf("on demand offers %d tools: want MCPSearch and MCPCall", len(offered))
	}
	found := offered[0].Run(context.Background(), json.RawMessage(`{"query":"sum of two numbers"}`))
	if !strings.HasPrefix(found.Output, "mcp__everything__get-sum:") {
		t.Fatalf("search: %+v", found)
	}
	d := offered[1].(interface {
		Delegate(context.Context, json.RawMessage) (tools.Tool, json.RawMessage, error)
	})
	inner, in, err := d.Delegate(context.Background(), json.RawMessage(`{"tool":"mcp__everything__get-sum","arguments":{"a":1,"b":2}}`))
	if err != nil || inner.Name() != "mcp__everything__get-sum" {
		t.Fatalf("delegate: %v %v", inner, err)
	}
	if res := inner.Run(context.Background(), in); !strings.Contains(res.Output, "3") {
		t.Fatalf("delegated call: %+v", res)
	}
	if _, _, err := d.Delegate(context.Background(), json.RawMessage(`{"tool":"mcp__nope"}`)); err == nil {
		t.Fatal("an unknown tool was delegated to")
	}
}

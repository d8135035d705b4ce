package mcphost

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
)

// slowServer is internal/mcphost/slowserver started with args.
func slowServer(t *testing.T, name string, args ...string) ServerConfig {
	t.Helper()
	bin, err := harness.SlowMCPServer()
	if err != nil {
		t.Fatalf("build the slow MCP server: %v", err)
	}
	return ServerConfig{Name: name, Command: bin, Args: args}
}

// Start returns while a slow server still connects; its tools join once it
// is ready, and Watch is told.
func TestStartDoesNotWaitForASlowServer(t *testing.T) {
	t.Parallel()
	changed := make(chan struct{}, 1)
	h := Start(context.Background(), []ServerConfig{slowServer(t, "slow", "-delay", "1s")}, Options{Dir: t.TempDir()})
	t.Cleanup(func() { h.Close() })
	h.Watch(func() { changed <- struct{}{} })
	if st := h.Status(); st[0].State != StateConnecting || len(h.Tools()) != 0 {
		t.Fatalf("status right after Start: %+v (the start waited for the server)", st)
	}
	<-changed
	if st := h.Status(); st[0].State != StateConnected || len(st[0].Tools) != 1 || st[0].Tools[0] != "mcp__slow__greet" {
		t.Fatalf("status once ready: %+v", st)
	}
	if res := h.Tools()[0].Run(context.Background(), []byte(`{"name":"you"}`)); res.Output != "hello you" {
		t.Fatalf("greet: %+v", res)
	}
}

// Settle gives up on a server that never answers, reports it once, and
// does not wait for the ones already settled; a late answer changes
// nothing after.
func TestSettleSkipsAServerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var warnings []string
	h := Start(context.Background(), []ServerConfig{slowServer(t, "hang", "-hang"), slowServer(t, "quick")}, Options{
		Dir: t.TempDir(),
		Warn: func(m string) {
			mu.Lock()
			warnings = append(warnings, m)
			mu.Unlock()
		},
	})
	t.Cleanup(func() { h.Close() })
	// The quick server is waited for first (an event, a minute's safety
	// net): Settle's 2 s are then the hanging server's alone, and a
	// loaded machine's slow start of the quick one is not taken for a
	// hang.
	for deadline := time.Now().Add(time.Minute); h.Status()[1].State != StateConnected; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the quick server never connected: %+v", h.Status()[1])
		}
	}
	h.Settle(context.Background(), 2*time.Second)
	h.Settle(context.Background(), 2*time.Second)
	st := h.Status()
	if st[0].Name != "hang" || st[0].State != StateFailed || !strings.Contains(st[0].Error, "no answer within 2s") {
		t.Fatalf("the hanging server: %+v", st[0])
	}
	if st[1].State != StateConnected {
		t.Fatalf("the quick server: %+v", st[1])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 1 || !strings.Contains(warnings[0], `MCP server "hang" could not be started: no answer within 2s; going on without it`) {
		t.Fatalf("warnings %q: want one for the hanging server", warnings)
	}
}

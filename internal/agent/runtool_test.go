package agent

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// TestRunToolHonoursTheFirstInterrupt: issue 13 item 4. A tool stuck where
// no signal reaches it (Read blocked opening a FIFO) held the run past
// every Ctrl-C and SIGTERM. Once the context is cancelled and the grace is
// over, the call is answered as interrupted whatever the tool does.
func TestRunToolHonoursTheFirstInterrupt(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	defer close(stuck)
	tool := &fakeTool{name: "Stuck", run: func(context.Context, json.RawMessage) tools.Result {
		<-stuck // ignores its context, like a blocked system call
		return tools.Result{Output: "never"}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	res := runTool(ctx, tool, json.RawMessage(`{}`), 50*time.Millisecond)
	if res.Error != interruptedResult {
		t.Errorf("result %+v, want the interrupted answer", res)
	}
	// A safety net: the stuck tool never returns by itself.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("took %v", d)
	}

	// A tool that stops in time keeps its own result.
	polite := &fakeTool{name: "Polite", run: func(ctx context.Context, _ json.RawMessage) tools.Result {
		<-ctx.Done()
		return tools.Result{Output: "partial", Error: "command was interrupted and killed"}
	}}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if res := runTool(ctx, polite, nil, time.Second); res.Output != "partial" {
		t.Errorf("a tool that stopped in time lost its result: %+v", res)
	}
}

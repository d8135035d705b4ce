package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/hooks"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/telemetry"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// maxParallelTasks bounds the subagents of one answer that run at once.
const maxParallelTasks = 4

// prepared is a tool call made ready to run: looked up, its arguments
// valid, its hooks and permission passed. early, when set, is its answer
// without running (unknown tool, bad arguments, denied...).
type prepared struct {
	id, name string
	tool     tools.Tool
	input    json.RawMessage
	early    *tools.Result
}

// prepare takes a call up to the moment it may run. An error means the
// permission check itself failed: the caller answers this call and the
// rest with reason and stops the turn.
func (l *loop) prepare(ctx context.Context, call chat.ToolCall) (p prepared, reason string, err error) {
	p.id = call.ID
	p.input = json.RawMessage(call.Arguments)
	if len(p.input) == 0 {
		// Some servers send no arguments at all for a call; the tool then
		// reports its missing parameters like any other bad input.
		p.input = json.RawMessage("{}")
	}
	early := func(res tools.Result) (prepared, string, error) {
		p.early = &res
		return p, "", nil
	}
	tool, name, ok := l.lookup(call.Name)
	if !ok {
		tool, ok = l.resolve(ctx, call.Name)
		if ok {
			name = tool.Name()
		}
	}
	p.name = name
	switch {
	case !ok:
		return early(tools.Result{Error: fmt.Sprintf("unknown tool %s", call.Name)})
	case !json.Valid(p.input):
		return early(tools.Result{Error: fmt.Sprintf("invalid JSON arguments for %s: %s", name, clip(call.Arguments, 200))})
	}
	// A tool that stands for another (MCPCall for an MCP tool found on
	// demand) is checked, shown and run as the tool it names.
	if d, ok := tool.(delegator); ok {
		inner, innerInput, err := d.Delegate(ctx, p.input)
		if err != nil {
			return early(tools.Result{Error: err.Error()})
		}
		tool, p.input, p.name = inner, innerInput, inner.Name()
	}
	p.tool = tool
	if l.hook != nil {
		if out := l.hook(ctx, hooks.PreToolUse, tool.Name(), hooks.Payload{"tool_name": tool.Name(), "tool_input": p.input}); out.Block {
			return early(tools.Result{Error: "denied by a PreToolUse hook: " + out.Reason})
		}
	}
	// A call that cannot succeed fails before anyone is asked to
	// allow it (Edit of a file never read, Write under CLAWDCODE_HOME).
	if res, ok := tools.Precheck(ctx, tool, p.input); !ok {
		return early(res)
	}
	denied, err := l.perms.Check(withCallID(ctx, p.id), tool, p.input)
	telemetry.From(ctx).Decision(ctx, telemetry.Decision{Tool: p.name, Allowed: err == nil && denied == "", Source: decisionSource(tool, p.input)})
	if err != nil {
		if ctx.Err() != nil {
			return p, interruptedResult, interrupted(ctx)
		}
		err = fmt.Errorf("permission for %s: %w", p.name, err)
		return p, "the permission check failed: " + err.Error(), err
	}
	if denied != "" {
		return early(tools.Result{Error: denied})
	}
	return p, "", nil
}

// resolver is a tool that can find a tool offered through it by the
// tool's own name (mcphost's MCPCall, for a server not connected when the
// request went out).
type resolver interface {
	Resolve(ctx context.Context, name string) (tools.Tool, bool)
}

// resolve finds a tool no request offered by name through a resolver.
func (l *loop) resolve(ctx context.Context, name string) (tools.Tool, bool) {
	for _, t := range l.tools {
		if r, ok := t.(resolver); ok {
			if inner, found := r.Resolve(ctx, name); found {
				return inner, true
			}
		}
	}
	return nil, false
}

// decisionSource says what decided a call for telemetry: nothing, for a
// tool that needs no permission, else the permission policy.
func decisionSource(tool tools.Tool, input json.RawMessage) string {
	if !tools.NeedsPermission(tool, input) {
		return telemetry.SourceFree
	}
	return telemetry.SourcePolicy
}

// taskRun is how many calls from the first of calls on are Task calls.
func (l *loop) taskRun(calls []chat.ToolCall) int {
	n := 0
	for _, c := range calls {
		tool, _, ok := l.lookup(c.Name)
		if !ok || tool.Name() != tools.NameTask {
			break
		}
		n++
	}
	return n
}

// runParallel runs the n Task calls of resp from index from at the same
// time (at most maxParallelTasks at once) and answers them in order. The
// turn's ctx cancels them all; every call is answered all the same.
func (l *loop) runParallel(ctx context.Context, resp *llm.Response, from, n int) error {
	calls := resp.ToolCalls[from : from+n]
	ready := make([]prepared, n)
	for i, call := range calls {
		p, reason, err := l.prepare(ctx, call)
		if err != nil {
			return l.abandon(resp, from, reason, err)
		}
		ready[i] = p
	}
	results := make([]tools.Result, n)
	slots := make(chan struct{}, maxParallelTasks)
	var wg sync.WaitGroup
	for i, p := range ready {
		if p.early != nil {
			results[i] = *p.early
			continue
		}
		l.sink.ToolStart(p.id, p.name, p.input)
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				results[i] = tools.Result{Error: interruptedResult}
				return
			}
			defer func() { <-slots }()
			results[i] = runTool(withCallID(ctx, p.id), p.tool, p.input, toolStopGrace)
		}()
	}
	wg.Wait()
	// A task cut short says so itself (RunTask, runTool); one that ended
	// before the interrupt keeps its answer.
	for i, p := range ready {
		if p.early == nil {
			results[i] = l.afterTool(ctx, p, results[i])
		}
		if err := l.answer(p.id, p.name, results[i]); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return l.abandon(resp, from+n, interruptedResult, interrupted(ctx))
	}
	return nil
}

// withCallID and callID carry the id of the tool call a context is for:
// a Task's subagent names its session and events by it, an Asker the call
// it asks about.
var withCallID, callID = tools.WithCallID, tools.CallID

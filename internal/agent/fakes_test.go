package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// fakeConv is an in-memory conversation that keeps the chat messages the
// loop recorded, in order, and can play a scripted overflow recovery.
type fakeConv struct {
	msgs []chat.Message
	// recover answers RecoverOverflowFrom(attempt) with recover[attempt-1];
	// past its end it answers false.
	recover    []bool
	attempts   []int
	rejections []error // what each recovery attempt was told
	// failRole, when set, makes adding a message of that role fail with
	// failErr, as a session file that cannot be written would.
	failRole string
	failErr  error
}

func (c *fakeConv) AddUser(text string, _ ...storage.ImageRef) error {
	if c.failRole == chat.RoleUser {
		return c.failErr
	}
	c.msgs = append(c.msgs, chat.Message{Role: chat.RoleUser, Content: text})
	return nil
}

func (c *fakeConv) AddAssistant(resp *llm.Response) error {
	if c.failRole == chat.RoleAssistant {
		return c.failErr
	}
	c.msgs = append(c.msgs, chat.Message{Role: chat.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
	return nil
}

func (c *fakeConv) AddIncomplete(partial string, interrupted bool, cause string) error {
	if c.failRole == chat.RoleAssistant {
		return c.failErr
	}
	mark := "[interrupted]"
	if !interrupted {
		mark = "[failed: " + cause + "]"
	}
	c.msgs = append(c.msgs, chat.Message{Role: chat.RoleAssistant, Content: partial + mark})
	return nil
}

func (c *fakeConv) AddToolResult(id, output, errText string, _ ...storage.Usage) error {
	if c.failRole == chat.RoleTool {
		return c.failErr
	}
	content := output
	if errText != "" {
		content = "error: " + errText + "\n" + output
	}
	c.msgs = append(c.msgs, chat.Message{Role: chat.RoleTool, ToolCallID: id, Content: content})
	return nil
}

func (c *fakeConv) Request(context.Context) (llm.Request, error) {
	return llm.Request{Model: "conv-model", Messages: append([]chat.Message(nil), c.msgs...)}, nil
}

func (c *fakeConv) RecoverOverflowFrom(_ context.Context, attempt int, rejection error) (bool, error) {
	c.attempts = append(c.attempts, attempt)
	c.rejections = append(c.rejections, rejection)
	if attempt-1 < len(c.recover) {
		return c.recover[attempt-1], nil
	}
	return false, nil
}

// checkValid fails t unless msgs is what the chat-completions API accepts:
// every tool call answered right after its assistant message, in order, and
// no tool message without its call.
func checkValid(t *testing.T, msgs []chat.Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == chat.RoleTool {
			t.Fatalf("message %d: tool result %s without its call", i, m.ToolCallID)
		}
		for _, call := range m.ToolCalls {
			i++
			if i >= len(msgs) || msgs[i].Role != chat.RoleTool || msgs[i].ToolCallID != call.ID {
				t.Fatalf("call %s of message %d is not answered in order: %+v", call.ID, i, msgs)
			}
		}
	}
}

// step is one scripted model call.
type step func(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error)

// fakeLLM plays steps in order and keeps every request it was sent.
type fakeLLM struct {
	mu    sync.Mutex
	steps []step
	reqs  []llm.Request
}

// ListModels: a fake server that lists no models, as some do not.
func (f *fakeLLM) ListModels(context.Context) ([]string, error) {
	return nil, errors.New("fake server: no GET /models")
}

func (f *fakeLLM) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if n >= len(f.steps) {
		return nil, fmt.Errorf("fake llm: unexpected call %d", n+1)
	}
	return f.steps[n](ctx, req, onDelta)
}

func (f *fakeLLM) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// say streams text in two pieces and answers it.
func say(text string) step {
	return func(_ context.Context, _ llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
		half := len(text) / 2
		onDelta(llm.Delta{Content: text[:half]})
		onDelta(llm.Delta{Content: text[half:]})
		return &llm.Response{Content: text, FinishReason: "stop", Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 3}}, nil
	}
}

// callTools answers with tool calls "name args" pairs.
func callTools(calls ...chat.ToolCall) step {
	return func(context.Context, llm.Request, func(llm.Delta)) (*llm.Response, error) {
		return &llm.Response{ToolCalls: calls, FinishReason: "tool_calls", Usage: llm.Usage{PromptTokens: 7, CompletionTokens: 2}}, nil
	}
}

func fail(err error) step {
	return func(context.Context, llm.Request, func(llm.Delta)) (*llm.Response, error) { return nil, err }
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: args}
}

// fakeTool is a tool whose behaviour the test decides.
type fakeTool struct {
	name      string
	needsPerm bool
	run       func(ctx context.Context, input json.RawMessage) tools.Result
	ran       int
}

func (t *fakeTool) Name() string { return t.name }
func (t *fakeTool) Definition() chat.ToolDef {
	return chat.ToolDef{Name: t.name, Description: "fake " + t.name, Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (t *fakeTool) NeedsPermission() bool                 { return t.needsPerm }
func (t *fakeTool) Describe(input json.RawMessage) string { return t.name + "(" + string(input) + ")" }
func (t *fakeTool) Run(ctx context.Context, input json.RawMessage) tools.Result {
	t.ran++
	return t.run(ctx, input)
}

// fakePerms allows the tools that need no permission and those in allowed.
type fakePerms struct{ allowed map[string]bool }

func (p fakePerms) Check(_ context.Context, tool tools.Tool, _ json.RawMessage) (string, error) {
	if !tool.NeedsPermission() || p.allowed[tool.Name()] {
		return "", nil
	}
	return "permission to use " + tool.Name() + " was denied", nil
}

// recSink records the events of a turn as readable lines.
type recSink struct {
	text, thought strings.Builder
	events        []string
}

func (s *recSink) Text(d string)     { s.text.WriteString(d) }
func (s *recSink) Thinking(d string) { s.thought.WriteString(d) }
func (s *recSink) ToolStart(id, name string, input json.RawMessage) {
	s.events = append(s.events, "start "+id+" "+name)
}
func (s *recSink) ToolRefused(id, name string, _ json.RawMessage, res tools.Result) {
	s.ToolEnd(id, name, res)
}

func (s *recSink) ToolEnd(id, name string, res tools.Result) {
	ev := "end " + id + " " + name
	if res.Error != "" {
		ev += " error=" + res.Error
	}
	s.events = append(s.events, ev)
}
func (s *recSink) Notice(n contextmgr.Notice)  { s.events = append(s.events, "notice "+string(n.Kind)) }
func (s *recSink) TaskEvent(string, TaskEvent) {}

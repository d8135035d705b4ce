package repl

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/chat"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// fakeEngine answers each message by script: the REPL's contract with the
// engine is the Sink calls and Submit's error, which is all it fakes.
//
//	"slow ..."   streams "thinking slowly" and then waits for ctx
//	"tool ..."   a Read call, then text
//	"write ..."  asks the asker (when set) for a Write, then reports the decision
//	"compact ..." sends compaction notices, then text
//	"fail ..."   returns an error
//	"md ..."     streams a small Markdown document
//	anything     streams "you said: <text>" in small pieces
type fakeEngine struct {
	asker tools.Asker

	mu        sync.Mutex
	submitted []string
}

var _ Turns = (*fakeEngine)(nil)

// fakeParts are the engine's parts as the REPL shows them: a new session
// in /proj on fake-model, with no context figures, MCP servers or
// memories. The rest of each part (/undo, /rewind, /fork, …) the REPL's
// tests do not drive (the binary tests do, through the real engine), so a
// call of it here is a test bug and panics.
func fakeParts() slash.Parts {
	return slash.Parts{Sessions: fakeSessions{}, Model: fakeModel{}, Context: fakeContext{}, MCP: fakeMCP{}, Memory: fakeMemory{}}
}

type fakeSessions struct{ slash.Sessions }

func (fakeSessions) ID() string                             { return "" }
func (fakeSessions) Title() string                          { return "" }
func (fakeSessions) Project() *storage.Project              { return &storage.Project{Root: "/proj"} }
func (fakeSessions) StartNew(context.Context, string) error { return nil }
func (fakeSessions) Resume(context.Context, string) error   { return nil }

type fakeModel struct{}

func (fakeModel) Model() string                                { return "fake-model" }
func (fakeModel) SetModel(string)                              {}
func (fakeModel) ListModels(context.Context) ([]string, error) { return nil, nil }

type fakeContext struct{ slash.Context }

func (fakeContext) Usage() contextmgr.Usage { return contextmgr.Usage{} }

type fakeMCP struct{ slash.MCP }

func (fakeMCP) Servers() []mcphost.Status { return nil }
func (fakeMCP) Join(context.Context)      {}

type fakeMemory struct{ slash.Memory }

func (fakeMemory) Book() *memory.Book { return nil }
func (fakeMemory) Suggest(context.Context) ([]memory.Suggestion, error) {
	return nil, nil
}

func (e *fakeEngine) Submitted() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.submitted...)
}

func (e *fakeEngine) Submit(ctx context.Context, text string, sink agent.Sink) (*agent.TurnResult, error) {
	e.mu.Lock()
	e.submitted = append(e.submitted, text)
	e.mu.Unlock()
	word, _, _ := strings.Cut(text, " ")
	switch word {
	case "slow":
		sink.Text("thinking slowly\n")
		<-ctx.Done()
		return nil, fmt.Errorf("turn interrupted: %w", ctx.Err())
	case "tool":
		input := json.RawMessage(`{"file_path":"/proj/internal/x.go"}`)
		sink.ToolStart("c1", "Read", input)
		sink.ToolEnd("c1", "Read", tools.Result{Output: "a\nb\nc\n"})
		sink.ToolStart("c2", "Read", json.RawMessage(`{"file_path":"missing.go"}`))
		sink.ToolEnd("c2", "Read", tools.Result{Error: "file not found: missing.go"})
		sink.Text("read it")
	case "write":
		if e.asker == nil {
			return nil, fmt.Errorf("no asker")
		}
		d, err := e.asker.Ask(ctx, fakeTool{}, json.RawMessage(`{"file_path":"a.txt","content":"one\ntwo\n"}`))
		if err != nil {
			return nil, err
		}
		sink.Text(fmt.Sprintf("decision=%s\n", decisionName(d)))
	case "compact":
		sink.Notice(contextmgr.Notice{Kind: "compacting", Text: "compacting the conversation…"})
		sink.Notice(contextmgr.Notice{Kind: "fallback", Text: "the summary failed"})
		sink.Text("still here")
	case "fail":
		return nil, fmt.Errorf("server said no")
	case "md":
		for _, chunk := range []string{"# Ti", "tle\nuse `go te", "st`\n```go\nfunc x() {}\n```\n- a **b**"} {
			sink.Text(chunk)
		}
	default:
		answer := "you said: " + text
		for i := 0; i < len(answer); i += 3 {
			sink.Text(answer[i:min(i+3, len(answer))])
			time.Sleep(time.Millisecond)
		}
	}
	return &agent.TurnResult{Text: text, NumTurns: 1}, nil
}

func decisionName(d tools.Decision) string {
	switch d {
	case tools.AllowOnce:
		return "once"
	case tools.AllowAlways:
		return "always"
	}
	return "deny"
}

// fakeTool is a Write as the asker sees it.
type fakeTool struct{}

func (fakeTool) Name() string                                      { return "Write" }
func (fakeTool) Definition() chat.ToolDef                          { return chat.ToolDef{} }
func (fakeTool) NeedsPermission() bool                             { return true }
func (fakeTool) Describe(json.RawMessage) string                   { return "Write(a.txt)" }
func (fakeTool) Run(context.Context, json.RawMessage) tools.Result { return tools.Result{} }

// fakeCommands stands in for the slash registry.
type fakeCommands struct {
	mu  sync.Mutex
	ran []string
}

func (c *fakeCommands) Ran() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.ran...)
}

func (c *fakeCommands) Expand(string) (string, bool) { return "", false }

func (c *fakeCommands) Commands() []slash.Command {
	return []slash.Command{{Name: "help"}, {Name: "exit"}, {Name: "resume"}}
}

func (c *fakeCommands) Run(ctx context.Context, env *slash.Env, line string) error {
	c.mu.Lock()
	c.ran = append(c.ran, line)
	c.mu.Unlock()
	switch strings.Fields(line)[0] {
	case "/help":
		fmt.Fprintln(env.IO.Out, "commands: /help /exit /resume /wait")
	case "/exit":
		return slash.ErrExit
	case "/resume":
		if env.Pick == nil {
			fmt.Fprintln(env.IO.Out, "not interactive")
			return nil
		}
		now := time.Now()
		id, err := env.Pick(ctx, []storage.SessionInfo{
			{ID: "aaaa1111-0000", Title: "first", Updated: now},
			{ID: "bbbb2222-0000", Title: "second", Updated: now},
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(env.IO.Out, "picked %q\n", id)
	case "/wait":
		fmt.Fprintln(env.IO.Out, "waiting for Ctrl-C")
		<-ctx.Done()
		return ctx.Err()
	default:
		return fmt.Errorf("unknown command %s (see /help)", line)
	}
	return nil
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/telemetry"
	"github.com/clawdcode/clawdcode/internal/toolcall"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// A subagent (CONTRACT.md §12) is the engine's loop run again over a
// session of its own: a new session file of the project, its own context
// manager (the same policy — counting, ladder, compaction — on its own
// window), a system prompt of its own that carries the project's
// instructions, and the parent's tools or fewer. Its calls go through the
// parent's permissions and hooks, so it can never do what the parent may
// not. Only its final message comes back, as the Task tool's result.
const (
	// taskMaxTurns bounds a subagent's model calls.
	taskMaxTurns = 40
	// taskMaxTokens bounds the tokens a subagent's calls spend (prompt and
	// completion, summed over its calls).
	taskMaxTokens = 1_500_000
	// taskAnswerCap bounds the answer that enters the parent's context;
	// past it the answer is cut and the parent told how to open it whole.
	taskAnswerCap = 12000
)

// SubagentType is one kind of subagent: which of the parent's tools it
// gets and what its system prompt adds.
type SubagentType struct {
	Name, Description string
	// Tools are the names it may use, a subset of the parent's; nil =
	// the parent's tools but Task.
	Tools []string
	// Model is the model its requests go to ("" = the parent's).
	Model string
	// Source is "built-in" or the file it was read from.
	Source string
	// prompt is added to the system prompt ("" = nothing).
	prompt string
}

// The built-in types.
var (
	generalAgent = SubagentType{
		Name:        "general",
		Description: "any task; it has your tools (but Task) and asks for permission as you do.",
		Source:      "built-in",
	}
	exploreAgent = SubagentType{
		Name:        "explore",
		Description: "read-only exploration: find files, search and read code, look through the history (Read, Glob, Grep, Recall); it changes nothing.",
		Tools:       []string{tools.NameRead, tools.NameGlob, tools.NameGrep, tools.NameRecall},
		Source:      "built-in",
		prompt:      "You only explore: find, search and read; you cannot change files or run commands.",
	}
)

// Tasks is the engine's part that runs subagents: the types the Task tool
// offers (built-in, then custom: agents.go) and the runs themselves
// (RunTask, the Task tool's tools.TaskRunner). A run only reads the
// engine's configuration, so several run at once; their permission
// questions and their links in the parent session take turns.
type Tasks struct {
	e *Engine
	// types are the subagent types Task offers, read from dirs (refresh);
	// stamp tells when to read them again, warned what was said.
	types  []SubagentType
	dirs   []string
	stamp  string
	warned map[string]bool
	// ask lets one subagent at a time ask for a permission; link one at a
	// time append its link to the current session.
	ask, link sync.Mutex
	// usage is what the subagents spent (under link).
	usage storage.Usage
}

// Types are the types Task offers, built-in first, then the custom ones
// (agents.go), read again when their files changed, for /agents; Task
// offers a change from the next turn on.
func (t *Tasks) Types() []SubagentType {
	if t.dirs != nil {
		t.refresh(t.e.cfg.Warn)
	}
	return t.types
}

// offered are the types as Task's description offers them.
func (t *Tasks) offered() []tools.SubagentType {
	var out []tools.SubagentType
	for _, typ := range t.types {
		out = append(out, tools.SubagentType{Name: typ.Name, Description: typ.Description, ReadOnly: typ.readOnly()})
	}
	return out
}

// readOnly reports whether the type's subagent can only read: it names
// its tools, and each is one plan mode runs (tools.PlanTools), so a Task
// of this type runs in plan mode and a plan can be researched with it.
func (t SubagentType) readOnly() bool {
	if t.Tools == nil {
		return false
	}
	for _, n := range t.Tools {
		if !slices.ContainsFunc(tools.PlanTools, func(p string) bool { return strings.EqualFold(p, n) }) {
			return false
		}
	}
	return true
}

// lookup finds a type by name ("" = general).
func (t *Tasks) lookup(name string) (SubagentType, bool) {
	name = strings.TrimSpace(name)
	if name == "" {
		return generalAgent, true
	}
	for _, typ := range t.types {
		if strings.EqualFold(name, typ.Name) {
			return typ, true
		}
	}
	return SubagentType{}, false
}

// toolsFor are the parent's tools that typ may use, Task never among them
// (a subagent does not start subagents), nor ExitPlanMode (the plan is
// the parent's to hand over).
func (t *Tasks) toolsFor(typ SubagentType) []tools.Tool {
	var out []tools.Tool
	for _, tool := range t.e.tools {
		name := tool.Name()
		if name == tools.NameTask || name == tools.NameExitPlanMode || (typ.Tools != nil && !slices.ContainsFunc(typ.Tools, func(n string) bool { return strings.EqualFold(n, name) })) {
			continue
		}
		out = append(out, tool)
	}
	return out
}

// RunTask runs one subagent to its final message (tools.TaskRunner).
func (t *Tasks) RunTask(ctx context.Context, p tools.TaskParams) tools.Result {
	e := t.e
	typ, ok := t.lookup(p.Type)
	if !ok {
		return tools.Result{Error: fmt.Sprintf("unknown subagent_type %q; use one of: %s", p.Type, t.names())}
	}
	set := t.toolsFor(typ)
	sess, err := e.cfg.Project.Create(ctx)
	if err != nil {
		return tools.Result{Error: fmt.Sprintf("subagent: %v", err)}
	}
	sess.SetTitle(p.Description)
	log := &sessionLog{sess: sess, tel: e.telemetry()}
	defer func() {
		log.closed = true
		_ = sess.Close() // its index entry: a cache the file rebuilds
	}()
	if err := t.linkTo(ctx, log); err != nil {
		return tools.Result{Error: fmt.Sprintf("subagent: %v", err)}
	}
	info := PromptInfo{Root: e.cfg.Project.Root, Now: e.prompt.Now, Tools: toolDefs(set)}
	system := SystemPrompt(info) + "\n" + subagentPreamble(typ)
	model := e.model
	if typ.Model != "" {
		model = typ.Model
	}
	opt := e.managerOptions(model, system, set)
	// A small window gets the brief forms, as the parent does: the
	// manager decides, by the same rule.
	info.Brief = true
	opt.Brief = &contextmgr.BriefForms{System: SystemPrompt(info) + "\n" + subagentPreamble(typ), Tools: briefDefs(set)}
	mgr, err := contextmgr.New(ctx, log, nil, opt)
	if err != nil {
		return tools.Result{Error: fmt.Sprintf("subagent: build context manager: %v", err)}
	}
	label := "[" + typ.Name + ": " + p.Description + "]"
	// e.sink is Submit's, set before any tool runs and not changed while
	// they do.
	ts := newTaskSink(e.sink, callID(ctx), label)
	var sink Sink = discardSink{}
	if ts != nil {
		sink = ts
	}
	l := &loop{
		conv:     mgr,
		llm:      &budgetLLM{LLM: e.cfg.LLM, limit: taskMaxTokens},
		tools:    set,
		perms:    labeledChecker{inner: e.perms, label: label, asking: &t.ask},
		model:    model,
		maxTurns: taskMaxTurns,
		sink:     sink,
		hook:     e.runHook,
	}
	taskStarted(ts)
	ctx, endTurn := e.telemetry().Turn(ctx, telemetry.Turn{Session: sess.ID(), Model: model, Prompt: p.Prompt, Agent: typ.Name})
	res, err := t.runToStop(ctx, l, p.Prompt, sess)
	endTurn(err)
	t.addUsage(res)
	taskEnded(ctx, ts, res, err)
	return taskResult(ctx, res, err, log)
}

// linkTo links the subagent's session and the current one both ways: its
// first record names the parent and the call, and the parent gets a
// record naming it (parent appends from tasks running at once take
// turns).
func (t *Tasks) linkTo(ctx context.Context, child *sessionLog) error {
	parent, call := t.e.sessions.ID(), callID(ctx)
	if parent == "" || call == "" {
		return fmt.Errorf("%w: a subagent runs for a Task call of a session", ErrNoSession)
	}
	if _, err := child.Append(&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeSubagentStart,
		Subagent: &storage.SubagentInfo{SessionID: parent, ToolUseID: call}}); err != nil {
		return err // the store's errors name the session
	}
	t.link.Lock()
	defer t.link.Unlock()
	if _, err := t.e.log.Append(&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeSubagent,
		Subagent: &storage.SubagentInfo{SessionID: child.sess.ID(), ToolUseID: call}}); err != nil {
		return fmt.Errorf("link subagent session %s: %w", child.sess.ID(), err)
	}
	return nil
}

// addUsage counts a subagent's tokens into the run's (see Submit).
func (t *Tasks) addUsage(res *TurnResult) {
	if res == nil {
		return
	}
	t.link.Lock()
	defer t.link.Unlock()
	t.usage.InputTokens += res.Usage.InputTokens
	t.usage.OutputTokens += res.Usage.OutputTokens
}

// spent is what the subagents of this engine spent so far.
func (t *Tasks) spent() storage.Usage {
	t.link.Lock()
	defer t.link.Unlock()
	return t.usage
}

func (t *Tasks) names() string {
	var names []string
	for _, typ := range t.types {
		names = append(names, typ.Name)
	}
	return strings.Join(names, ", ")
}

// subagentPreamble tells the subagent what it is and how its answer is used.
func subagentPreamble(t SubagentType) string {
	s := "You are a subagent: another agent delegated the task in the user message to you. " +
		"It sees none of your work but your final message, so end with a complete, concise answer " +
		"(file paths, line numbers, the facts found) and do not ask questions back."
	if t.prompt != "" {
		s += "\n\n" + t.prompt
	}
	return s + "\n"
}

// taskResult is the Task tool's result for a subagent's run: its final
// message, cut with a ref to the whole when long, and what it spent.
func taskResult(ctx context.Context, res *TurnResult, err error, log *sessionLog) tools.Result {
	var out tools.Result
	if res != nil {
		spent := res.Usage
		out.Output, out.Spent = res.Text, &spent
	}
	if len(out.Output) > taskAnswerCap {
		out.Output = tools.CapText(out.Output, taskAnswerCap) + "\n" + toolcall.RecallWhole(log.reply, tools.ScopeProject)
	}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		out.Error = interruptedResult
	default:
		out.Error = "the subagent stopped: " + err.Error()
	}
	return out
}

// errTaskBudget stops a subagent that spent its tokens.
var errTaskBudget = errors.New("the subagent's token budget is spent")

// budgetLLM refuses a subagent's next call once its calls have spent
// limit tokens. A loop calls it from one goroutine.
type budgetLLM struct {
	LLM
	limit, used int
}

func (b *budgetLLM) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	if b.used >= b.limit {
		return nil, fmt.Errorf("%w (%d tokens)", errTaskBudget, b.limit)
	}
	resp, err := b.LLM.Stream(ctx, req, onDelta)
	if resp != nil {
		b.used += resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	}
	return resp, err
}

// labeledChecker asks the parent's permissions about a subagent's call,
// the call described with the subagent's label so that the dialog says
// who asks ("[explore: find tests] Bash(go test ./...)").
// Subagents running at once ask one at a time (asking, on the parent's
// one terminal).
type labeledChecker struct {
	inner  permissionChecker
	label  string
	asking *sync.Mutex
}

func (c labeledChecker) Check(ctx context.Context, tool tools.Tool, input json.RawMessage) (string, error) {
	c.asking.Lock()
	defer c.asking.Unlock()
	return c.inner.Check(ctx, labeledTool{Tool: tool, label: c.label}, input)
}

// labeledTool is a tool whose descriptions carry a label; everything else
// is the tool's own (name, per-call permission).
type labeledTool struct {
	tools.Tool
	label string
}

func (t labeledTool) Describe(input json.RawMessage) string {
	return t.label + " " + t.Tool.Describe(input)
}

func (t labeledTool) NeedsPermissionFor(input json.RawMessage) bool {
	return tools.NeedsPermission(t.Tool, input)
}

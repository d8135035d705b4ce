package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/chat"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/hooks"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/telemetry"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// TurnResult summarises one Submit.
type TurnResult struct {
	Text     string // the final answer
	NumTurns int    // model calls made
	// FinishReason is why the last reply ended, as the server said it
	// ("stop", "length" for a reply cut at its max tokens,
	// "content_filter" for one the server's filter stopped).
	FinishReason string
	// Usage is the tokens of the turn's model calls, its subagents' included.
	Usage storage.Usage
}

// interruptedResult is what the model is told about a call that a Ctrl-C
// stopped (or kept from starting).
const interruptedResult = "interrupted by the user before the tool finished"

// conversation is what the loop needs of *contextmgr.Manager.
type conversation interface {
	// AddUser records a user message, with the images it carries.
	AddUser(text string, images ...storage.ImageRef) error
	AddAssistant(resp *llm.Response) error
	// AddToolResult records a call's result; a Task call's carries what
	// its subagent spent.
	AddToolResult(id, output, errText string, spent ...storage.Usage) error
	// AddIncomplete records an answer that stopped before its end.
	AddIncomplete(partial string, interrupted bool, cause string) error
	Request(ctx context.Context) (llm.Request, error)
	// RecoverOverflowFrom gets the server's rejection so that the guard can
	// take the window the server states instead of guessing one.
	RecoverOverflowFrom(ctx context.Context, attempt int, rejection error) (bool, error)
}

var _ conversation = (*contextmgr.Manager)(nil)

// Turns is the engine's part that runs the user's messages through the
// model: Submit runs one to its answer; the model the requests go to is
// shown and set here (/model).
type Turns struct{ e *Engine }

// Submit runs one user message through the loop: model → tools → model …
// until a final answer, MaxTurns, or ctx is cancelled (the front end's way
// to interrupt a turn). Every record is persisted as it happens; sink
// receives the turn's events as they happen (nil: none shown).
func (t *Turns) Submit(ctx context.Context, text string, sink Sink) (*TurnResult, error) {
	return t.SubmitImages(ctx, text, nil, sink)
}

// SubmitImages is Submit of a message that comes with images of its own
// (an editor's image blocks) besides those its text names with @path.
// Each is stored as those are; one that is no image clawdcode sends, or
// too big, is left out with a notice.
func (t *Turns) SubmitImages(ctx context.Context, text string, given []chat.Image, sink Sink) (*TurnResult, error) {
	e := t.e
	if strings.TrimSpace(text) == "" {
		return nil, ErrEmptyMessage
	}
	if sink == nil {
		sink = discardSink{}
	}
	text, err := t.promptHook(ctx, text)
	if err != nil {
		return nil, err
	}
	if err := e.sessions.ensure(ctx, text); err != nil {
		return nil, err
	}
	// After ensure: a new session's SessionStart hooks add theirs.
	for _, n := range e.notes {
		text += "\n\n" + n
	}
	e.notes = nil
	e.refreshDefinitions()
	defer e.skills.endTurn()
	e.mcp.joinTurn(ctx)
	e.sink = sink
	defer func() { e.sink = nil }()
	images, err := t.attachImages(text, sink)
	if err != nil {
		return nil, err
	}
	if images, err = t.attachGiven(images, given, sink); err != nil {
		return nil, err
	}

	l := &loop{
		conv:     e.mgr,
		llm:      e.cfg.LLM,
		tools:    e.tools,
		perms:    e.perms,
		model:    e.model,
		maxTurns: e.cfg.MaxTurns,
		sink:     sink,
		hook:     e.runHook,
		images:   images,
		textOnly: &e.textOnly,
		notes:    []string{e.memory.note},
	}
	if e.cfg.Project != nil {
		home := e.cfg.Project.Store().Home()
		l.storeImage = func(data []byte, mediaType string) (storage.ImageRef, error) {
			return storage.StoreImage(home, data, mediaType)
		}
	}
	before := e.tasks.spent()
	ctx, endTurn := e.telemetry().Turn(ctx, telemetry.Turn{Session: e.sessions.ID(), Model: e.model, Prompt: text})
	res, err := l.run(ctx, text)
	endTurn(err)
	// A turn's usage counts its subagents' tokens too: they were spent on it.
	after := e.tasks.spent()
	res.Usage.InputTokens += after.InputTokens - before.InputTokens
	res.Usage.OutputTokens += after.OutputTokens - before.OutputTokens
	if err == nil {
		e.runHook(ctx, hooks.Stop, "", hooks.Payload{"stop_hook_active": false})
	}
	if id := e.sessions.ID(); e.cfg.AfterTurn != nil && id != "" {
		e.cfg.AfterTurn(id)
	}
	return res, err
}

// Model is the model requests are sent to.
func (t *Turns) Model() string { return t.e.model }

// SetModel switches the model for the next requests and the token counts.
func (t *Turns) SetModel(name string) {
	t.e.model = name
	t.e.mgr.SetModel(name)
}

// ListModels returns the models the server offers.
func (t *Turns) ListModels(ctx context.Context) ([]string, error) {
	return t.e.cfg.LLM.ListModels(ctx)
}

// loop is one Submit's worth of state over the interfaces it needs, so the
// turn logic is testable apart from the store and the context policy.
type loop struct {
	conv     conversation
	llm      LLM
	tools    []tools.Tool
	perms    permissionChecker
	model    string
	maxTurns int
	sink     Sink
	// hook runs the user's hooks of an event (nil = none).
	hook func(ctx context.Context, event, tool string, payload hooks.Payload) hooks.Outcome

	streamed strings.Builder    // the text of the model call under way, as shown
	images   []storage.ImageRef // the images the user message carries
	// textOnly is the engine's: set once the server refused images, so
	// that no later request of the process sends them.
	textOnly *bool
	// storeImage stores an image a tool returned (nil: such images are
	// not sent); toolImages are those of the round under way.
	storeImage func(data []byte, mediaType string) (storage.ImageRef, error)
	toolImages []toolImage
	// userDenied is the call of the answer under way the user said no
	// to ("" = none): the answer's later calls are not run.
	userDenied string
	// final is the answer of a call that ends the turn (tools.Result.Final)
	// among those answered so far; "" = none.
	final string
	// notes go after the conversation of every request of the turn, as
	// system messages ("" = none): the memories changed since the session
	// started.
	notes []string
}

// afterDenial is the result of a call not run because the user denied an
// earlier call of the same answer.
func (l *loop) afterDenial() string {
	return "Not run: the user denied " + l.userDenied + " earlier in this answer, so none of its later calls ran. " +
		"Ask the user how to proceed before trying again."
}

func (l *loop) run(ctx context.Context, text string) (*TurnResult, error) {
	res := &TurnResult{}
	// The conversation's errors name the record they failed to append
	// ("append user record: write <file>: …"); a second "record …" here
	// would only repeat it.
	if err := l.conv.AddUser(text, l.images...); err != nil {
		return res, err
	}
	for {
		resp, err := l.call(ctx)
		if err != nil {
			return res, l.recordIncomplete(err)
		}
		res.NumTurns++
		res.Usage.InputTokens += resp.Usage.PromptTokens
		res.Usage.OutputTokens += resp.Usage.CompletionTokens
		res.Text, res.FinishReason = resp.Content, resp.FinishReason
		if err := l.conv.AddAssistant(resp); err != nil {
			return res, err
		}
		if len(resp.ToolCalls) == 0 {
			return res, nil
		}
		if err := l.runCalls(ctx, resp); err != nil {
			return res, err
		}
		if l.final != "" {
			res.Text = l.final // a call ended the turn (ExitPlanMode)
			return res, nil
		}
		if l.maxTurns > 0 && res.NumTurns >= l.maxTurns {
			return res, fmt.Errorf("%w %d", ErrMaxTurns, l.maxTurns)
		}
	}
}

// recordIncomplete records the answer that a failed or interrupted model
// call left unfinished (what had streamed, and why it stopped), so that
// the next message is sent on its own and not glued to this one, and
// returns cause.
func (l *loop) recordIncomplete(cause error) error {
	interrupted := errors.Is(cause, ErrInterrupted)
	partial := l.streamed.String()
	if errors.Is(cause, llm.ErrReplyTooLong) {
		// A runaway reply is megabytes of junk: only the marker is kept.
		partial = ""
	}
	if err := l.conv.AddIncomplete(partial, interrupted, termtext.FirstLine(serverMessage(cause), 0, "")); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// call makes one model call, walking the manager's overflow recovery when
// the server says the request does not fit.
func (l *loop) call(ctx context.Context) (*llm.Response, error) {
	l.streamed.Reset()
	onDelta := func(d llm.Delta) {
		if d.Retry != nil {
			l.sink.Notice(contextmgr.Notice{Kind: contextmgr.NoticeRetry, Text: d.Retry.String()})
		}
		if d.Reasoning != "" {
			l.sink.Thinking(d.Reasoning)
		}
		if d.Content != "" {
			l.streamed.WriteString(d.Content)
			l.sink.Text(d.Content)
		}
	}
	for attempt := 0; ; {
		req, err := l.conv.Request(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, interrupted(ctx)
			}
			return nil, fmt.Errorf("prepare request: %w", err)
		}
		// The model can change between turns (/model); the manager's idea of
		// it is the same, but the engine's is the one the user set.
		if l.model != "" {
			req.Model = l.model
		}
		if l.textOnly != nil && *l.textOnly {
			req.Messages = withoutImages(req.Messages)
		}
		req.Messages = withNotes(req.Messages, l.notes, l.perms)
		resp, err := l.llm.Stream(ctx, req, onDelta)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, interrupted(ctx)
		}
		if l.textOnly != nil && imagesRefused(err, req) {
			*l.textOnly = true
			l.sink.Notice(contextmgr.Notice{Kind: contextmgr.NoticeWarning,
				Text: "the model does not accept images (" + serverMessage(err) + "): sent without them"})
			continue
		}
		if !llm.IsOverflow(err) {
			return nil, fmt.Errorf("model call: %w", err)
		}
		attempt++
		more := false
		if attempt <= contextmgr.MaxOverflowAttempts {
			var rerr error
			more, rerr = l.conv.RecoverOverflowFrom(ctx, attempt, err)
			if rerr != nil {
				if ctx.Err() != nil {
					return nil, interrupted(ctx)
				}
				return nil, fmt.Errorf("recover from context overflow: %w", rerr)
			}
		}
		if !more {
			return nil, fmt.Errorf("%w: %s", ErrContextOverflow, serverMessage(err))
		}
	}
}

// moder is a permission policy with a mode (*tools.Permissions).
type moder interface {
	Mode() tools.Mode
}

// withNotes adds notes (those not empty) and, in plan mode, the note that
// tells the model so (tools.PlanNote, last) as trailing system messages
// of this request only: they are never recorded, and at the end they
// leave the prefix a server caches (the system prompt and the
// conversation so far) the same as without them.
func withNotes(msgs []chat.Message, notes []string, perms permissionChecker) []chat.Message {
	msgs = slices.Clip(msgs)
	for _, n := range notes {
		if n != "" {
			msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: n})
		}
	}
	if m, ok := perms.(moder); ok && m.Mode() == tools.ModePlan {
		msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: tools.PlanNote})
	}
	return msgs
}

// delegator is a tool that runs another tool (mcphost's MCPCall).
type delegator interface {
	Delegate(ctx context.Context, input json.RawMessage) (tools.Tool, json.RawMessage, error)
}

// lookup finds the tool a call names. Past the lookup the call goes by the
// tool's own name, not the model's spelling of it: "edit" runs, and is
// shown and recorded, as Edit. An unknown tool keeps the model's name.
func (l *loop) lookup(name string) (tools.Tool, string, bool) {
	tool, ok := tools.Lookup(l.tools, name)
	if ok {
		name = tool.Name()
	}
	return tool, name, ok
}

// runCalls answers every tool call of resp in order. When the turn is
// interrupted or a call cannot be decided, the remaining calls are still
// answered so that the session replays into a valid request. Task calls
// next to each other run at the same time (calls.go).
func (l *loop) runCalls(ctx context.Context, resp *llm.Response) error {
	l.userDenied = ""
	for i := 0; i < len(resp.ToolCalls); {
		if ctx.Err() != nil {
			return l.abandon(resp, i, interruptedResult, interrupted(ctx))
		}
		if n := l.taskRun(resp.ToolCalls[i:]); n > 1 {
			if err := l.runParallel(ctx, resp, i, n); err != nil {
				return err
			}
			i += n
			continue
		}
		if l.userDenied != "" {
			// The user said no to a call of this answer: nothing more of
			// it runs or asks (Claude Code's way).
			if err := l.abandon(resp, i, l.afterDenial(), nil); err != nil {
				return err
			}
			break
		}
		p, reason, err := l.prepare(ctx, resp.ToolCalls[i])
		if err != nil {
			return l.abandon(resp, i, reason, err)
		}
		if p.early != nil {
			if tools.IsUserDenial(p.early.Error) {
				l.userDenied = p.tool.Describe(p.input)
			}
			if err := l.refuse(p.id, p.name, p.input, *p.early); err != nil {
				return err
			}
			i++
			continue
		}
		l.sink.ToolStart(p.id, p.name, p.input)
		result := l.afterTool(ctx, p, runTool(withCallID(ctx, p.id), p.tool, p.input, toolStopGrace))
		if ctx.Err() != nil {
			result.Error = interruptedResult
			if err := l.answer(p.id, p.name, result); err != nil {
				return err
			}
			return l.abandon(resp, i+1, interruptedResult, interrupted(ctx))
		}
		if err := l.answer(p.id, p.name, result); err != nil {
			return err
		}
		i++
	}
	return l.addToolImages()
}

// toolStopGrace is how long a cancelled tool may take to return: Bash
// needs its kill grace (SIGTERM, then SIGKILL after 2 s) to end its
// process group.
const toolStopGrace = 5 * time.Second

// runTool runs a call so that the first interrupt always ends it: every
// tool watches ctx, but one stuck in a system call no signal reaches (an
// open(2) or read(2) on a FIFO, a hung network file system) would hold the
// run past every Ctrl-C. Once ctx is done and the grace is over, the call
// is answered as interrupted and left behind; the process is about to
// finish the turn (or exit) anyway.
func runTool(ctx context.Context, tool tools.Tool, input json.RawMessage, grace time.Duration) tools.Result {
	ctx, end := telemetry.From(ctx).Tool(ctx, telemetry.ToolCall{ID: callID(ctx), Name: tool.Name(), Input: input})
	res := runToolBounded(ctx, tool, input, grace)
	end(telemetry.ToolEnd{Error: res.Error})
	return res
}

// runToolBounded is runTool's call, bounded by grace once ctx is done.
func runToolBounded(ctx context.Context, tool tools.Tool, input json.RawMessage, grace time.Duration) tools.Result {
	done := make(chan tools.Result, 1)
	go func() { done <- tool.Run(ctx, input) }()
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case res := <-done:
		return res
	case <-timer.C:
		return tools.Result{Error: interruptedResult}
	}
}

// answer records a call's result and tells the sink.
func (l *loop) answer(id, name string, res tools.Result) error {
	var spent []storage.Usage
	if res.Spent != nil {
		spent = append(spent, *res.Spent)
	}
	if err := l.conv.AddToolResult(id, res.Output, res.Error, spent...); err != nil {
		return fmt.Errorf("%s result: %w", name, err) // which tool: the conversation does not know
	}
	if res.Image != nil {
		l.toolImages = append(l.toolImages, toolImage{name: res.ImageName, img: *res.Image})
	}
	if res.Final != "" {
		l.final = res.Final
	}
	l.sink.ToolEnd(id, name, res)
	return nil
}

// refuse records the result of a call answered without running it and
// tells the sink, which has not seen the call start.
func (l *loop) refuse(id, name string, input json.RawMessage, res tools.Result) error {
	if err := l.conv.AddToolResult(id, res.Output, res.Error); err != nil {
		return fmt.Errorf("%s result: %w", name, err)
	}
	l.sink.ToolRefused(id, name, input, res)
	return nil
}

// abandon answers calls[from:] with reason without running them and
// returns cause (or the error that kept an answer from being recorded).
func (l *loop) abandon(resp *llm.Response, from int, reason string, cause error) error {
	for _, call := range resp.ToolCalls[from:] {
		_, name, _ := l.lookup(call.Name)
		if err := l.refuse(call.ID, name, json.RawMessage(call.Arguments), tools.Result{Error: reason}); err != nil {
			return errors.Join(cause, err)
		}
	}
	return cause
}

func interrupted(ctx context.Context) error {
	return fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
}

// serverMessage is the server's own words about an error, for the user.
func serverMessage(err error) string {
	var le *llm.Error
	if errors.As(err, &le) && le.Message != "" {
		return le.Message
	}
	return err.Error()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// discardSink is used when a caller passes no sink.
type discardSink struct{}

func (discardSink) Text(string)                                               {}
func (discardSink) Thinking(string)                                           {}
func (discardSink) ToolStart(string, string, json.RawMessage)                 {}
func (discardSink) ToolEnd(string, string, tools.Result)                      {}
func (discardSink) ToolRefused(string, string, json.RawMessage, tools.Result) {}
func (discardSink) Notice(contextmgr.Notice)                                  {}
func (discardSink) TaskEvent(string, TaskEvent)                               {}

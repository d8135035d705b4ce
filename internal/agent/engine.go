package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/hooks"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/recall"
	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/skills"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/telemetry"
	"github.com/clawdcode/clawdcode/internal/tokens"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// LLM is what the engine needs of the model server: something that
// streams a chat completion, and lists the models it offers (for /model).
// *llm.Client satisfies it; declared whole, so a wrapper (the CLI's lazy
// client) cannot hide the list by leaving a method out.
type LLM interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error)
	ListModels(ctx context.Context) ([]string, error)
}

var _ LLM = (*llm.Client)(nil)

// Sink receives a turn's events as they happen; the REPL renders them live,
// -p collects them (text / json / stream-json), an editor's front end
// sends them as protocol updates. Calls come from the goroutine
// that called Submit. A tool's name is the tool's own (tools.NameEdit, an MCP
// tool's full name), never the model's spelling of it ("edit"): a front end
// may decide what to show by it.
type Sink interface {
	Text(delta string)                                // assistant text as it streams
	Thinking(delta string)                            // the model's reasoning as it streams (never recorded)
	ToolStart(id, name string, input json.RawMessage) // before a tool runs (after permission)
	ToolEnd(id, name string, res tools.Result)        // after it ran (ToolStart came before)
	// ToolRefused: a call answered without running (an unknown tool, bad
	// arguments, refused by a hook or the permission policy, a failed
	// precheck, abandoned by an interrupt); no ToolStart came before it.
	ToolRefused(id, name string, input json.RawMessage, res tools.Result)
	Notice(n contextmgr.Notice) // compaction and retry notices
	// TaskEvent is one thing a subagent (a Task call) did, tagged with the
	// call's id. It is called from the subagents' goroutines, several at
	// once and while Submit's goroutine calls the other methods, so it
	// must be safe for that; a front end that does not show subagents
	// ignores it.
	TaskEvent(taskID string, ev TaskEvent)
}

// Config is everything an Engine is built from (flags + env resolved by the
// CLI). Project and LLM are required.
type Config struct {
	Model  string
	Window int // 0 = the models table's window for Model
	// WindowExplicit says Window came from a flag, the environment or a
	// config file (it then wins over a window a server taught an earlier
	// run, and /model keeps it); WindowSource says which, for /context.
	WindowExplicit bool
	WindowSource   string
	Threshold      float64
	MaxTurns       int // 0 = unbounded
	Project        *storage.Project
	LLM            LLM
	Permissions    *tools.Permissions // nil = nothing that needs permission may run
	Cache          *storage.CacheStore
	// Prices is the price list in force (zero = the built-in table).
	Prices tokens.Prices

	// Tools overrides the tools offered to the model; nil means the
	// contract tools working in Project.Root (the six file and shell tools,
	// Recall over the project's sessions and TodoWrite).
	Tools []tools.Tool
	// Now is the clock for the date in the system prompt; nil = time.Now.
	Now func() time.Time
	// MCP is the connection to the configured MCP servers (nil = none),
	// connecting in the background: the tools of the servers ready when a
	// turn starts are offered after the built-in tools from that turn on
	// (see MCP.Join); /mcp shows their state. Close closes it.
	MCP *mcphost.Host
	// MCPWait, when positive, is for a run whose one turn would otherwise
	// never see the tools of servers still connecting (-p): its turns offer
	// them through MCPSearch and MCPCall, whose first use waits for the
	// servers, at most this long, and reports those that did not answer
	// (see MCP.joinTurn); a command about the servers (/mcp) waits as
	// long. 0: nothing waits, the servers' tools join when ready (the
	// REPL).
	MCPWait time.Duration
	// Logger is the diagnostic log (nil = none).
	Logger *slog.Logger
	// Hooks runs the user's hook commands (nil = none).
	Hooks *hooks.Runner
	// Skills are the Agent Skills offered through the Skill tool (nil =
	// none); the front end chose their folders (a project's only when it
	// is trusted).
	Skills *skills.Set
	// EnvPassthrough and SecretEnv shape the environment of tools'
	// commands: secret-looking variables handed over all the same, and
	// more variables kept from them (see secrets.ChildEnv).
	EnvPassthrough, SecretEnv []string
	// TextReader and TextWriter hold the text files Read, Edit and Write
	// read and write, Terminal runs Bash's foreground commands and
	// WatchOutput sees a local command's output as it comes: an editor's
	// buffers and terminals, and its view of a running call (see
	// tools.Env's UseTextFiles, UseTerminal and WatchOutput). Each nil:
	// this process's disk and shells.
	TextReader  tools.TextReader
	TextWriter  tools.TextWriter
	Terminal    tools.Terminal
	WatchOutput func(ctx context.Context, chunk []byte)
	// Sandbox runs the Bash tool's commands (nil: plain child processes).
	Sandbox tools.ShellSandbox
	// Warn receives each warning about a session being resumed: the lines
	// of its live context that could not be parsed and are left out
	// (CONTRACT.md section 4 wants the user told). nil drops them.
	Warn func(msg string)
	// About is what /status shows of the run beyond the engine.
	About About
	// AppendSystem is added at the end of the system prompt
	// (--append-system-prompt).
	AppendSystem string
	// Dirs are more directories the tools may read and write, as the
	// project (--add-dir); the permissions and the sandbox have them
	// already. AddWritable, when set, lets the sandbox's commands write
	// under a directory added while running (/add-dir).
	Dirs        []string
	AddWritable func(dir string)
	// AfterTurn, when set, is told the session's id at the end of each
	// turn (Submit) that has a session, its records in the session file:
	// sync's push of the turn ([sync] auto, internal/sessionsync.Auto).
	// It must return at once — the turn's result waits for it.
	AfterTurn func(sessionID string)
	// Telemetry is told of turns, tool calls, permission decisions and
	// compactions (nil = telemetry.Off).
	Telemetry telemetry.Hooks
}

// Engine is the session engine the front ends (the REPL, -p, an editor)
// drive: one current session, its context manager, the tools and the
// loop. A front end never uses the Engine whole: it takes the parts it
// drives — Sessions, Turns, Context, Permissions, Tasks, Shells, Memory,
// Checkpoints, MCP — each a small type with the methods of one concern,
// and declares, where it uses one, the interface of what it calls.
type Engine struct {
	cfg   Config
	model string
	tools []tools.Tool
	// builtin is the head of tools that changes only with the definition
	// files (skills, subagent types: refreshDefinitions); base is its
	// fixed part, the contract's tools. ExitPlanMode (planTool) follows
	// builtin in a turn that starts in plan mode, then the MCP servers'
	// offer (offer).
	builtin  []tools.Tool
	base     []tools.Tool
	planTool tools.Tool
	env      *tools.Env // nil when Config.Tools replaced the contract tools
	perms    permissionChecker
	system   string
	// briefSystem is system's brief form, for a session whose window is
	// small (the context manager chooses: contextmgr.BriefForms).
	briefSystem string
	// prompt is what system is built from, memories apart.
	prompt PromptInfo
	// textOnly is set once the server refused a request with images.
	textOnly bool
	// notes go to the model after the user's next message (a directory
	// /add-dir added), then are dropped.
	notes []string

	// log.sess is the current session: nil until the first message of a
	// new session is submitted. mgr writes through log; it is never nil
	// once New returned.
	log          *sessionLog
	pendingTitle string
	// nextID is the id a new session not created yet will have, once
	// Sessions.NextID chose it ("" = a random one at creation).
	nextID string
	mgr    *contextmgr.Manager
	// sink receives the manager's notices while a Submit runs.
	sink Sink

	sessions    Sessions
	turns       Turns
	context     Context
	permissions Permissions
	tasks       Tasks
	shells      Shells
	memory      Memory
	checkpoints Checkpoints
	mcp         MCP
	skills      Skills
}

// permissionChecker is what the loop needs of *tools.Permissions.
type permissionChecker interface {
	Check(ctx context.Context, tool tools.Tool, input json.RawMessage) (denied string, err error)
}

// sessionScoped is a permission policy with answers that belong to one
// session ("always"), forgotten when another session is entered.
type sessionScoped interface {
	ResetSession()
}

var _ sessionScoped = (*tools.Permissions)(nil)

var _ permissionChecker = (*tools.Permissions)(nil)

// New builds an engine with no session open yet; the first message
// submitted creates one (Sessions.StartNew and Resume choose another). It
// fails when no context manager can be built for a session, e.g. a window
// too small for the system prompt and the tools
// (*contextmgr.WindowTooSmallError).
func New(cfg Config) (*Engine, error) {
	e := &Engine{cfg: cfg, model: cfg.Model}
	e.sessions.e, e.turns.e, e.context.e, e.permissions.p, e.permissions.e = e, e, e, cfg.Permissions, e
	e.tasks.e, e.shells.e, e.memory.e, e.checkpoints.e, e.mcp.e, e.skills.e = e, e, e, e, e, e
	e.tools = cfg.Tools
	if e.tools == nil {
		e.env = tools.NewEnv(cfg.Project.Root)
		e.env.Protect(cfg.Project.Store().Home())
		e.env.PassEnv, e.env.SecretEnv = cfg.EnvPassthrough, cfg.SecretEnv
		e.env.UseTextFiles(cfg.TextReader, cfg.TextWriter)
		e.env.UseTerminal(cfg.Terminal)
		e.env.WatchOutput(cfg.WatchOutput)
		e.env.Sandbox = cfg.Sandbox
		e.base = append(tools.Set(e.env), tools.NewRecall(&recall.Searcher{
			Store:   cfg.Project.Store(),
			Project: cfg.Project,
			Session: e.sessions.ID,
			Index:   search.New(cfg.Project.Store(), cfg.Warn),
		}), tools.NewTodoWrite())
		e.tasks.dirs = agentDirs(cfg.Project)
		e.tasks.refresh(cfg.Warn)
		e.skills.tool = skills.NewTool(cfg.Skills, e.skills.grant)
		e.tools = e.builtinTools()
	}
	e.builtin = slices.Clip(e.tools)
	e.planTool = tools.NewExitPlanMode(planHandler{&e.permissions})
	if cfg.Permissions != nil {
		e.perms = cfg.Permissions
	} else {
		e.perms = tools.NewPermissions(tools.PermissionsConfig{Root: cfg.Project.Root})
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	if e.env != nil {
		e.env.OnBeforeChange(e.checkpoints.save)
		e.env.OnAfterChange(e.checkpoints.wrote)
		if cfg.Permissions != nil {
			// What a deny rule keeps from Read, Grep and Glob pass over.
			e.env.HideFromSearch(cfg.Permissions.DeniesRead)
		}
	}
	e.prompt = PromptInfo{Root: cfg.Project.Root, Now: now(), Tools: toolDefs(e.tools), Dirs: cfg.Dirs, Append: cfg.AppendSystem}
	e.memory.book = memory.Open(cfg.Project)
	e.system = e.systemPrompt()
	// A manager for a new session does no I/O and cannot block, so a
	// background context is enough here.
	e.log = &sessionLog{}
	mgr, err := e.newManager(context.Background(), e.log, nil)
	if err != nil {
		return nil, err
	}
	e.mgr = mgr
	// Registered once the engine is whole: a change rebuilds the manager.
	e.memory.book.OnChange(e.memory.changed)
	return e, nil
}

// Sessions is the part that opens, names and branches sessions.
func (e *Engine) Sessions() *Sessions { return &e.sessions }

// Turns is the part that runs the user's messages through the model.
func (e *Engine) Turns() *Turns { return &e.turns }

// Context is the part that shows and steers the current session's context.
func (e *Engine) Context() *Context { return &e.context }

// Permissions is the part that reads and changes the permission policy.
func (e *Engine) Permissions() *Permissions { return &e.permissions }

// Tasks is the part that knows the subagent types and runs them.
func (e *Engine) Tasks() *Tasks { return &e.tasks }

// Shells is the part that lists the commands running in the background.
func (e *Engine) Shells() *Shells { return &e.shells }

// Memory is the part that holds the memories and their suggestions.
func (e *Engine) Memory() *Memory { return &e.memory }

// Checkpoints is the part that undoes, rewinds and diffs the files the
// session's tools changed.
func (e *Engine) Checkpoints() *Checkpoints { return &e.checkpoints }

// MCP is the part that shows the MCP servers and joins their tools.
func (e *Engine) MCP() *MCP { return &e.mcp }

// Skills is the part that lists the Agent Skills offered.
func (e *Engine) Skills() *Skills { return &e.skills }

// About is the run's About, as the front end gave it (/status, /config).
func (e *Engine) About() About { return e.cfg.About }

// Close ends the run: the background commands are killed (their whole
// process groups, whatever ends the run — /exit, the end of -p, a signal,
// a terminal hang-up), then the current session is closed (index written,
// lock released), then the MCP servers.
func (e *Engine) Close() error {
	e.shells.stop()
	err := e.closeSession()
	if merr := e.cfg.MCP.Close(); err == nil {
		err = merr
	}
	return err
}

// briefDefs are the brief forms of set's definitions (for small windows).
func briefDefs(set []tools.Tool) []chat.ToolDef {
	defs := make([]chat.ToolDef, len(set))
	for i, t := range set {
		defs[i] = tools.BriefDefinition(t)
	}
	return defs
}

func toolDefs(set []tools.Tool) []chat.ToolDef {
	defs := make([]chat.ToolDef, len(set))
	for i, t := range set {
		defs[i] = t.Definition()
	}
	return defs
}

// telemetry is the hooks the engine reports to (telemetry.Off when none).
func (e *Engine) telemetry() telemetry.Hooks {
	if e.cfg.Telemetry == nil {
		return telemetry.Off
	}
	return e.cfg.Telemetry
}

// newManager builds a context manager over log (whose session is nil for a
// session not yet created; live nil = no records yet).
func (e *Engine) newManager(ctx context.Context, log *sessionLog, live *storage.Live) (*contextmgr.Manager, error) {
	log.tel = e.telemetry()
	opt := e.managerOptions(e.model, e.system, e.tools)
	opt.Notify, opt.Hooks = e.notify, compactHooks{e}
	opt.Brief = &contextmgr.BriefForms{System: e.briefSystem, Tools: briefDefs(append(slices.Clip(e.tools), e.planTool))}
	m, err := contextmgr.New(ctx, log, live, opt)
	if err != nil {
		return nil, fmt.Errorf("build context manager: %w", err)
	}
	return m, nil
}

// managerOptions is the context policy's configuration for a session on
// model with this system prompt and these tools: the current session's,
// or a subagent's (subagent.go).
func (e *Engine) managerOptions(model, system string, set []tools.Tool) contextmgr.Options {
	return contextmgr.Options{
		Model:          model,
		Window:         e.cfg.Window,
		WindowExplicit: e.cfg.WindowExplicit,
		WindowSource:   e.cfg.WindowSource,
		Threshold:      e.cfg.Threshold,
		System:         system,
		Tools:          toolDefs(set),
		Root:           e.cfg.Project.Root,
		Instructions:   ProjectInstructions(e.cfg.Project.Root),
		LLM:            e.cfg.LLM,
		Counter:        tokens.NewCounter(model),
		Cache:          e.cfg.Cache,
		Prices:         e.cfg.Prices,
		Logger:         e.cfg.Logger,
	}
}

// offer makes the tools of the next requests: the built-in ones,
// ExitPlanMode when plan mode is on, then extra (the MCP servers' tools
// ready now). It is called when a turn starts (and by a command about
// the MCP servers), never during one, so every request of a turn carries
// the same tools. The tool definitions lead each request: a change starts
// the model server's prompt cache over once, which is why ExitPlanMode is
// not offered outside plan mode (nor listed in the system prompt).
func (e *Engine) offer(extra []tools.Tool) {
	base := e.builtin
	if e.permissions.Mode() == tools.ModePlan {
		base = append(slices.Clip(base), e.planTool)
	}
	// One name, one tool: an MCP tool that a built-in's name takes is
	// refused with a warning, once (MCP's among themselves were refused
	// by mcphost).
	next := tools.UniqueNames(append(slices.Clip(base), extra...), e.mcp.warnOnce)
	before, _ := json.Marshal(toolDefs(e.tools))
	after, _ := json.Marshal(toolDefs(next))
	e.tools = next
	if string(before) != string(after) {
		e.mgr.SetTools(toolDefs(next))
		if e.cfg.Logger != nil {
			e.cfg.Logger.Info("tools offered", "tools", len(next), "mcp", len(extra))
		}
	}
}

// notify forwards the manager's notices to the sink of the running Submit;
// outside a Submit (a slash command) the command reports the outcome itself.
func (e *Engine) notify(n contextmgr.Notice) {
	if e.sink != nil {
		e.sink.Notice(n)
	}
}

// systemPrompt builds the system prompt of a session that starts now: the
// base prompt and the memories checked against the project at this moment
// (the ones given are remembered for recordUse). Its brief form, for a
// small window, is kept in e.briefSystem.
func (e *Engine) systemPrompt() string {
	info := e.prompt
	info.Memories = e.memory.forPrompt(e.model)
	brief := info
	brief.Brief = true
	e.briefSystem = SystemPrompt(brief)
	return SystemPrompt(info)
}

// enter makes log and mgr, just built for another session, the current
// session, closing the one before; live is that session's live context
// (nil for a session not created yet). It returns closing's error: the
// new session is current all the same.
func (e *Engine) enter(log *sessionLog, mgr *contextmgr.Manager, live *storage.Live) error {
	closeErr := e.closeSession()
	e.log, e.mgr = log, mgr
	e.pendingTitle, e.nextID = "", ""
	e.enterSession(live)
	return closeErr
}

// enterSession gives the tools and the permissions the state of the
// session just opened: nothing from the one before — no "always" answer,
// no file seen — and, for a resumed session, the files its records show
// were read or written and are unchanged since (see restoreSeen).
func (e *Engine) enterSession(live *storage.Live) {
	if s, ok := e.perms.(sessionScoped); ok {
		s.ResetSession()
	}
	if e.env == nil {
		return
	}
	e.env.Forget()
	if live != nil {
		restoreSeen(e.env, live)
	}
}

func (e *Engine) closeSession() error {
	sess := e.log.sess
	if sess == nil || e.log.closed {
		return nil
	}
	// The id stays readable (the -p result names it after Close); the
	// manager can no longer write. StartNew and Resume replace both.
	e.log.closed = true
	if e.log.written {
		// The end of a session: what it did may be worth remembering.
		e.memory.derive(context.Background(), sess, e.log.from)
	}
	return sess.Close() // its errors name the session
}

// compactHooks runs the PreCompact and PostCompact hooks for the manager.
type compactHooks struct{ e *Engine }

func (h compactHooks) PreCompact(ctx context.Context, trigger, instructions string) string {
	return h.e.runHook(ctx, hooks.PreCompact, "", hooks.Payload{"trigger": trigger, "custom_instructions": instructions}).Context
}

func (h compactHooks) PostCompact(ctx context.Context, trigger string, receipt *storage.Receipt) {
	if h.e.log.sess != nil && h.e.log.written {
		h.e.memory.derive(ctx, h.e.log.sess, h.e.log.from)
	}
	h.e.runHook(ctx, hooks.PostCompact, "", hooks.Payload{"trigger": trigger, "receipt": receipt})
}

// runHook runs the hooks of event for the current session.
func (e *Engine) runHook(ctx context.Context, event, tool string, payload hooks.Payload) hooks.Outcome {
	if !e.cfg.Hooks.Has(event) {
		return hooks.Outcome{}
	}
	common := hooks.Common{Cwd: e.cfg.Project.Root}
	if m, ok := e.perms.(moder); ok {
		common.PermissionMode = m.Mode().String()
	}
	if e.log.sess != nil {
		common.SessionID, common.TranscriptPath = e.log.sess.ID(), e.log.sess.Path()
	}
	return e.cfg.Hooks.Run(ctx, event, tool, common, payload)
}

// warn reports a problem that does not stop the session.
func (e *Engine) warn(msg string) {
	if e.cfg.Warn != nil {
		e.cfg.Warn(msg)
	}
	if e.cfg.Logger != nil {
		e.cfg.Logger.Warn(msg)
	}
}

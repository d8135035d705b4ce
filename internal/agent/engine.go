package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/checkpoint"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/hooks"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/recall"
	"github.com/clawdcode/clawdcode/internal/search"
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
// -p collects them (text / json / stream-json). Calls come from the goroutine
// that called Submit. A tool's name is the tool's own (tools.NameEdit, an MCP
// tool's full name), never the model's spelling of it ("edit"): a front end
// may decide what to show by it.
type Sink interface {
	Text(delta string)                                // assistant text as it streams
	ToolStart(id, name string, input json.RawMessage) // before a tool runs (after permission)
	ToolEnd(id, name string, res tools.Result)        // after it ran (ToolStart came before)
	// ToolRefused: a call answered without running (an unknown tool, bad
	// arguments, refused by a hook or the permission policy, a failed
	// precheck, abandoned by an interrupt); no ToolStart came before it.
	ToolRefused(id, name string, input json.RawMessage, res tools.Result)
	Notice(n contextmgr.Notice) // compaction and retry notices
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
	// (see JoinMCPTools); /mcp shows their state. Close closes it.
	MCP *mcphost.Host
	// MCPWait, when positive, makes the first turn wait for the servers
	// still connecting, at most this long, and report those that did not
	// answer (-p, whose one turn would otherwise never see their tools).
	// 0: a turn never waits (the REPL).
	MCPWait time.Duration
	// Logger is the diagnostic log (nil = none).
	Logger *slog.Logger
	// Hooks runs the user's hook commands (nil = none).
	Hooks *hooks.Runner
	// EnvPassthrough and SecretEnv shape the environment of tools'
	// commands: secret-looking variables handed over all the same, and
	// more variables kept from them (see secrets.ChildEnv).
	EnvPassthrough, SecretEnv []string
	// Warn receives each warning about a session being resumed: the lines
	// of its live context that could not be parsed and are left out
	// (CONTRACT.md section 4 wants the user told). nil drops them.
	Warn func(msg string)
	// About is what /status shows of the run beyond the engine.
	About About
	// Telemetry is told of turns, tool calls, permission decisions and
	// compactions (nil = telemetry.Off).
	Telemetry telemetry.Hooks
}

// Engine is the session engine both front ends (REPL and -p) drive: one
// current session, its context manager, the tools and the loop.
type Engine struct {
	cfg   Config
	model string
	tools []tools.Tool
	// builtin is the head of tools that never changes; the MCP servers'
	// offer follows it. mcpSettled says MCPWait was waited.
	builtin    []tools.Tool
	mcpSettled bool
	warned     map[string]bool // warnings given once (warnOnce)
	env        *tools.Env      // nil when Config.Tools replaced the contract tools
	perms      permissionChecker
	system     string
	// briefSystem is system's brief form, for a session whose window is
	// small (the context manager chooses: contextmgr.BriefForms).
	briefSystem string
	// prompt is what system is built from, memories apart.
	prompt PromptInfo

	// mem is the project's and the user's memories; memGiven the ones in
	// system; suggested what was derived from this engine's sessions.
	mem       *memory.Book
	memGiven  []string
	suggested []memory.Suggestion

	// log.sess is the current session: nil until the first message of a
	// new session is submitted. mgr writes through log.
	log          *sessionLog
	pendingTitle string
	mgr          *contextmgr.Manager
	// mgrErr is why mgr could not be built (New has no error to return it).
	mgrErr error

	// sink receives the manager's notices while a Submit runs.
	sink Sink
	// textOnly is set once the server refused a request with images.
	textOnly bool
	// agentTypes are the subagent types Task offers (built-in, custom).
	agentTypes []SubagentType
	// taskAsk lets one subagent at a time ask for a permission; taskLink
	// one at a time append its link to the current session.
	taskAsk, taskLink sync.Mutex
	// taskUsage is what the subagents spent (under taskLink).
	taskUsage storage.Usage
}

// telemetry is the hooks the engine reports to (telemetry.Off when none).
func (e *Engine) telemetry() telemetry.Hooks {
	if e.cfg.Telemetry == nil {
		return telemetry.Off
	}
	return e.cfg.Telemetry
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

// New builds an engine with no session open yet.
func New(cfg Config) *Engine {
	e := &Engine{cfg: cfg, model: cfg.Model}
	e.tools = cfg.Tools
	if e.tools == nil {
		e.env = tools.NewEnv(cfg.Project.Root)
		e.env.Protect(cfg.Project.Store().Home())
		e.env.PassEnv, e.env.SecretEnv = cfg.EnvPassthrough, cfg.SecretEnv
		e.tools = append(tools.Set(e.env), tools.NewRecall(&recall.Searcher{
			Store:   cfg.Project.Store(),
			Project: cfg.Project,
			Session: e.SessionID,
			Index:   search.New(cfg.Project.Store(), cfg.Warn),
		}), tools.NewTodoWrite())
		// Task comes last and needs the rest: a subagent gets the tools
		// before it (general) or fewer, never Task itself.
		e.agentTypes = loadAgentTypes(agentDirs(cfg.Project), cfg.Warn)
		e.tools = append(e.tools, tools.NewTask(e, e.taskTypes()))
	}
	e.builtin = slices.Clip(e.tools)
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
		e.env.OnBeforeChange(e.checkpoint)
		e.env.OnAfterChange(e.checkpointWritten)
	}
	e.prompt = PromptInfo{Root: cfg.Project.Root, Now: now(), Tools: toolDefs(e.tools)}
	e.mem = memory.Open(cfg.Project)
	e.system = e.systemPrompt()
	// A manager for a new session does no I/O and cannot block, so a
	// background context is enough here.
	e.log = &sessionLog{}
	e.mgr, e.mgrErr = e.newManager(context.Background(), e.log, nil)
	// Registered once the engine is whole: a change rebuilds the manager.
	e.mem.OnChange(e.memoriesChanged)
	return e
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

// newManager builds a context manager over log (whose session is nil for a
// session not yet created; live nil = no records yet).
func (e *Engine) newManager(ctx context.Context, log *sessionLog, live *storage.Live) (*contextmgr.Manager, error) {
	log.tel = e.telemetry()
	opt := e.managerOptions(e.model, e.system, e.tools)
	opt.Notify, opt.Hooks = e.notify, compactHooks{e}
	opt.Brief = &contextmgr.BriefForms{System: e.briefSystem, Tools: briefDefs(e.tools)}
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

// notify forwards the manager's notices to the sink of the running Submit;
// outside a Submit (a slash command) the command reports the outcome itself.
func (e *Engine) notify(n contextmgr.Notice) {
	if e.sink != nil {
		e.sink.Notice(n)
	}
}

// sessionLog is a manager's Log. Each manager has its own, bound to one
// session for good: a manager someone kept after /new or /switch can only
// ever write to its own (closed) session, never into the current one. The
// session is nil until the first message of a new session creates it.
type sessionLog struct {
	sess   *storage.Session
	closed bool
	// written says a record was appended through this log: only then can
	// the session suggest memories it did not suggest before; from is the
	// offset of the first, where the suggestions start reading (a resumed
	// session's earlier records were read when it ended before).
	written bool
	from    int64

	// turn is the uuid of the last user record written: the turn that
	// Write and Edit checkpoints belong to.
	turn string
	// reply is the uuid of the last assistant record written: a
	// subagent's answer, which the parent can open with Recall.
	reply string
	// cp is the session's checkpoint store, built on first use.
	cp *checkpoint.Store
	// tel is told of the records appended (compactions); nil = nobody.
	tel telemetry.Hooks
}

func (l *sessionLog) Append(r *storage.Record) (int64, error) {
	switch {
	case l.sess == nil:
		return 0, ErrNoSession
	case l.closed:
		return 0, fmt.Errorf("session %s: %w", l.sess.ID(), ErrClosed)
	}
	off, err := l.sess.Append(r)
	if err == nil {
		l.wrote(off)
		l.observe(r)
	}
	return off, err
}

// wrote notes a record appended at off.
func (l *sessionLog) wrote(off int64) {
	if !l.written {
		l.written, l.from = true, off
	}
}

func (l *sessionLog) observe(recs ...*storage.Record) {
	if l.tel != nil {
		l.tel.Records(l.sess.ID(), recs)
	}
	for _, r := range recs {
		switch {
		case r.Type == storage.TypeUser && !r.IsCompactSummary:
			l.turn = r.UUID
		case r.Type == storage.TypeAssistant:
			l.reply = r.UUID
		}
	}
}

// checkpoints is the session's checkpoint store (nil before the session
// exists).
func (l *sessionLog) checkpoints(p *storage.Project) *checkpoint.Store {
	if l.sess == nil {
		return nil
	}
	if l.cp == nil {
		l.cp = checkpoint.New(checkpoint.Dir(p.Store().Home(), p.Dir, l.sess.ID()), p.Root)
	}
	return l.cp
}

// AppendBatch writes records that belong together (a compaction's boundary
// and summary) with one write, as storage.Session.AppendBatch does, so that
// the context manager can ask for it through this log as well.
func (l *sessionLog) AppendBatch(recs ...*storage.Record) ([]int64, error) {
	switch {
	case l.sess == nil:
		return nil, ErrNoSession
	case l.closed:
		return nil, fmt.Errorf("session %s: %w", l.sess.ID(), ErrClosed)
	}
	offs, err := l.sess.AppendBatch(recs...)
	if err == nil && len(offs) > 0 {
		l.wrote(offs[0])
		l.observe(recs...)
	}
	return offs, err
}

// SetTokens passes the context manager's latest request size on to the
// session's index entry.
func (l *sessionLog) SetTokens(n int) {
	if l.sess != nil && !l.closed {
		l.sess.SetTokens(n)
	}
}

// StartNew makes the next submitted message start a new session titled
// title (empty = from that message); the current one is closed and stays
// resumable.
func (e *Engine) StartNew(ctx context.Context, title string) error {
	log := &sessionLog{}
	e.system = e.systemPrompt()
	mgr, err := e.newManager(ctx, log, nil)
	if err != nil {
		return err
	}
	if err := e.closeSession(); err != nil {
		return err
	}
	e.log, e.mgr, e.mgrErr = log, mgr, nil
	e.pendingTitle = title
	e.enterSession(nil)
	return nil
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
		restoreSeen(e.env, e.tools, live)
	}
}

// Resume opens an existing session (full id) and restores its live context.
// The previous session is closed only once the new one is open, so a failed
// resume (ErrSessionBusy, ErrNotFound...) leaves the engine as it was. Lines
// of the live context that cannot be parsed are skipped and each reported
// to Config.Warn once the session is loaded.
func (e *Engine) Resume(ctx context.Context, id string) error {
	if e.log.sess != nil && !e.log.closed && e.log.sess.ID() == id {
		return nil
	}
	sess, err := e.cfg.Project.Open(ctx, id)
	if err != nil {
		// The store's errors already name the session.
		return fmt.Errorf("resume: %w", err)
	}
	live, err := sess.LoadLive(ctx)
	if err != nil {
		sess.Close()
		return fmt.Errorf("resume: %w", err) // "load session <id>: …"
	}
	if e.cfg.Warn != nil {
		for _, w := range live.Warnings {
			e.cfg.Warn(w)
		}
	}
	// The manager may append repair records (answers to calls a crash left
	// unanswered) while it is built: its log is the new session already.
	log := &sessionLog{sess: sess}
	e.system = e.systemPrompt()
	mgr, err := e.newManager(ctx, log, live)
	if err != nil {
		sess.Close()
		return fmt.Errorf("restore session %s: %w", id, err)
	}
	closeErr := e.closeSession()
	e.log, e.mgr, e.mgrErr = log, mgr, nil
	e.pendingTitle = ""
	e.recordMemoryUse(ctx)
	e.runHook(ctx, hooks.SessionStart, "", hooks.Payload{"source": "resume"})
	e.enterSession(live)
	return closeErr
}

// ensureSession creates the session on disk for the first message of a new
// session; title is used when no /new title was given.
func (e *Engine) ensureSession(ctx context.Context, firstMessage string) error {
	if e.log.sess != nil {
		return nil
	}
	sess, err := e.cfg.Project.Create(ctx)
	if err != nil {
		return err // the store's errors begin "create session"
	}
	if e.pendingTitle != "" {
		// A title the user chose goes into the file, so that it survives
		// a rebuild of the index; one derived from the message does not
		// need to (a rebuild derives it again).
		if err := sess.SaveTitle(e.pendingTitle); err != nil {
			_ = sess.Close()
			return fmt.Errorf("save the title of new session %s: %w", sess.ID(), err)
		}
	} else if storage.Title(firstMessage) != "" {
		// Whole, so that the store redacts a secret before cutting it.
		sess.SetTitle(firstMessage)
	}
	e.log.sess, e.pendingTitle = sess, ""
	e.recordMemoryUse(ctx)
	e.runHook(ctx, hooks.SessionStart, "", hooks.Payload{"source": "startup"})
	return nil
}

// compactHooks runs the PreCompact and PostCompact hooks for the manager.
type compactHooks struct{ e *Engine }

func (h compactHooks) PreCompact(ctx context.Context, trigger, instructions string) string {
	return h.e.runHook(ctx, hooks.PreCompact, "", hooks.Payload{"trigger": trigger, "custom_instructions": instructions}).Context
}

func (h compactHooks) PostCompact(ctx context.Context, trigger string, receipt *storage.Receipt) {
	if h.e.log.sess != nil && h.e.log.written {
		h.e.suggestMemories(ctx, h.e.log.sess, h.e.log.from)
	}
	h.e.runHook(ctx, hooks.PostCompact, "", hooks.Payload{"trigger": trigger, "receipt": receipt})
}

// runHook runs the hooks of event for the current session.
func (e *Engine) runHook(ctx context.Context, event, tool string, payload hooks.Payload) hooks.Outcome {
	if !e.cfg.Hooks.Has(event) {
		return hooks.Outcome{}
	}
	common := hooks.Common{Cwd: e.cfg.Project.Root}
	if e.log.sess != nil {
		common.SessionID, common.TranscriptPath = e.log.sess.ID(), e.log.sess.Path()
	}
	return e.cfg.Hooks.Run(ctx, event, tool, common, payload)
}

// ListModels returns the models the server offers.
func (e *Engine) ListModels(ctx context.Context) ([]string, error) {
	return e.cfg.LLM.ListModels(ctx)
}

// Title is the current session's title ("" when it has none yet).
func (e *Engine) Title() string {
	if e.log.sess == nil {
		return e.pendingTitle
	}
	return e.log.sess.Info().Title
}

// Rename sets the current session's title; it is kept in the session file
// (so a rebuilt index keeps it). Before the first message of a new session
// it becomes the title the session is created with.
func (e *Engine) Rename(title string) error {
	title = storage.Title(title)
	if title == "" {
		return fmt.Errorf("rename: %w", ErrEmptyMessage)
	}
	if e.log.sess == nil {
		e.pendingTitle = title
		return nil
	}
	if err := e.log.sess.SaveTitle(title); err != nil {
		return fmt.Errorf("rename session %s: %w", e.log.sess.ID(), err)
	}
	return nil
}

// SessionID is the current session's id ("" before the first message of a
// new session is stored). It stays readable after Close.
func (e *Engine) SessionID() string {
	if e.log.sess == nil {
		return ""
	}
	return e.log.sess.ID()
}

// Context exposes the current session's context manager (for /context,
// /compact, /cost and the JSON result). It is nil only when the manager
// could not be built; Submit then returns why.
func (e *Engine) Context() *contextmgr.Manager { return e.mgr }

// Model shows the model requests are sent to.
func (e *Engine) Model() string { return e.model }

// SetModel switches the model for the next requests and the token counts.
func (e *Engine) SetModel(name string) {
	e.model = name
	if e.mgr != nil {
		e.mgr.SetModel(name)
	}
}

// MCPServers is the state of the configured MCP servers, for /mcp.
func (e *Engine) MCPServers() []mcphost.Status { return e.cfg.MCP.Status() }

// Project is the current project (for /sessions, /switch).
func (e *Engine) Project() *storage.Project { return e.cfg.Project }

// Shells describes the commands the model started in the background
// (Bash with run_in_background), for /bashes.
func (e *Engine) Shells() []tools.ShellInfo {
	if e.env == nil {
		return nil
	}
	return e.env.Shells()
}

// Close ends the run: the background commands are killed (their whole
// process groups, whatever ends the run — /exit, the end of -p, a signal,
// a terminal hang-up), then the current session is closed (index written,
// lock released).
func (e *Engine) Close() error {
	if e.env != nil {
		e.env.StopBackground()
	}
	err := e.closeSession()
	if merr := e.cfg.MCP.Close(); err == nil {
		err = merr
	}
	return err
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
		e.suggestMemories(context.Background(), sess, e.log.from)
	}
	return sess.Close() // its errors name the session
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/config"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/secrets"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/telemetry"
	"github.com/clawdcode/clawdcode/internal/tokens"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// contextFigures is what -p's result object reports of the context
// (*agent.Context).
type contextFigures interface {
	Usage() contextmgr.Usage
	Compactions() int
}

var _ contextFigures = (*agent.Context)(nil)

// printRun is -p: one prompt (or one slash command) through the engine,
// then the answer or the result object. Every failure after flag parsing
// still produces the result object in the json formats.
func printRun(ctx context.Context, f *Factory, opts *RootOptions) error {
	started := time.Now()
	var eng *agent.Engine
	sink := newPrintSink(f.IO, opts.OutputFormat, func() initEvent {
		e := initEvent{Type: "system", Subtype: "init", Model: opts.Model, Tools: contractTools}
		if p, err := f.Project(); err == nil {
			e.CWD = p.Root
		}
		if eng != nil {
			e.SessionID = eng.Sessions().ID()
		}
		return e
	})

	answer, turn, err := func() (answer string, turn *agent.TurnResult, err error) {
		prompt, err := readPrompt(ctx, f.IO, opts.Prompt, stdinLimit(opts.Window))
		if err != nil {
			return "", nil, err
		}
		var registry *slash.Registry
		isSlash := false
		if slash.IsCommand(prompt) {
			registry = f.Commands()
			if expanded, ok := registry.Expand(prompt); ok {
				prompt = expanded
			} else {
				isSlash = true
			}
		}
		// A slash command may need no model at all (/help, /sessions), so
		// the client is built only when one is called.
		name, _, _ := slash.Parse(prompt)
		// /mcp lists the servers, /context counts their tools, /status and
		// /doctor say their states: all start them, as a turn does.
		eng, err = openEngine(ctx, f, opts, nil, !isSlash, !isSlash || name == "mcp" || name == "context" || name == "status" || name == "doctor")
		if err != nil {
			return "", nil, err
		}
		if isSlash {
			eng.MCP().Join(ctx)
			out, err := runSlash(ctx, f.IO, opts.OutputFormat, registry, slash.PartsOf(eng), prompt, f.redactor.Load())
			return out, nil, err
		}
		turn, err = eng.Turns().Submit(ctx, prompt, sink)
		if turn != nil {
			answer = turn.Text
		}
		return answer, turn, err
	}()

	// The session's figures are read before Close, which forgets the session.
	var (
		sessionID   string
		contextUse  = ResultContext{Window: opts.Window}
		compactions int
	)
	if eng != nil {
		sessionID = eng.Sessions().ID()
		contextUse, compactions = resultFigures(eng.Context())
		if cerr := eng.Close(); err == nil {
			err = cerr
		}
		noteSuggestions(f.IO.ErrOut, eng.Memory())
	}
	res := newResult(answer, err, context.Cause(ctx))
	if res.IsError {
		res.Result = f.redactString(res.Result) // as the error line: see Run
	}
	res.SessionID, res.Context, res.Compactions = sessionID, contextUse, compactions
	if turn != nil {
		res.NumTurns = turn.NumTurns
		res.Usage = ResultUsage{InputTokens: turn.Usage.InputTokens, OutputTokens: turn.Usage.OutputTokens}
	}
	sink.finish(res, started)
	if sink.planned && !res.IsError {
		fmt.Fprintln(f.IO.ErrOut, "clawdcode: plan mode: the answer is the model's plan, not carried out; to carry it out, continue in another mode:")
		fmt.Fprintf(f.IO.ErrOut, "  clawdcode -r %s -p \"Carry out the plan\" --permission-mode acceptEdits\n", sessionID)
	}
	return err
}

// resultFigures are the context's figures of the result object.
func resultFigures(c contextFigures) (ResultContext, int) {
	u := c.Usage()
	return ResultContext{Tokens: u.Tokens, Window: u.Window}, c.Compactions()
}

// readPrompt joins the positional prompt and, when stdin is not a terminal,
// what it carries: up to limit bytes, then a marker (and a warning on
// stderr) saying it was cut. Reading stops at EOF (a closed or /dev/null
// stdin gives it at once), at the limit, or when ctx is cancelled.
func readPrompt(ctx context.Context, ios *iostreams.IOStreams, positional string, limit int) (string, error) {
	prompt := strings.TrimSpace(positional)
	if !ios.IsStdinTTY() && ios.In != nil {
		piped, cut, err := readStdin(ctx, ios.In, limit)
		if err != nil {
			return "", err
		}
		piped = strings.TrimSpace(piped)
		if cut {
			piped += "\n" + stdinCutMarker(limit)
			warnTo(ios.ErrOut)(fmt.Sprintf("stdin is longer than %s: the prompt has its first %s and says it was cut", sizeText(limit), sizeText(limit)))
		}
		if piped != "" {
			if prompt == "" {
				prompt = piped
			} else {
				prompt += "\n\n" + piped
			}
		}
	}
	if prompt == "" {
		return "", usageErrorf("-p needs a prompt: pass it as an argument or on stdin")
	}
	return prompt, nil
}

// runSlash runs a slash command against the engine. In the json formats its
// output becomes the result text instead of going to stdout. What it prints
// passes through red first: a command may quote a server's error (a failed
// compaction's summary call) that quotes the key.
func runSlash(ctx context.Context, ios *iostreams.IOStreams, format string, reg *slash.Registry, parts slash.Parts, line string, red *secrets.Redactor) (string, error) {
	env := &slash.Env{Parts: parts, IO: ios}
	var captured *strings.Builder
	if format == FormatText {
		// The same rule as the answer: shown, not obeyed, on a terminal;
		// the exact bytes when redirected. stderr is always a person's.
		safeIO := *ios
		safeOut, safeErr := ios.TermOut(), ios.TermErr()
		defer safeOut.Flush()
		defer safeErr.Flush()
		safeIO.Out, safeIO.ErrOut = safeOut, safeErr
		env.IO = &safeIO
	}
	if format != FormatText {
		capIO, _, _, _ := iostreams.Test()
		captured = &strings.Builder{}
		capIO.In, capIO.Out, capIO.ErrOut = ios.In, captured, ios.ErrOut
		env.IO = capIO
	}
	redIO := *env.IO
	redOut, redErr := red.Writer(env.IO.Out), red.Writer(env.IO.ErrOut)
	redIO.Out, redIO.ErrOut = redOut, redErr
	env.IO = &redIO
	err := reg.Run(ctx, env, line)
	// Before the terminal-safe writers' deferred Flush.
	_ = redOut.Flush()
	_ = redErr.Flush()
	if errors.Is(err, slash.ErrExit) {
		err = nil
	}
	if captured == nil {
		return "", err
	}
	return strings.TrimRight(captured.String(), "\n"), err
}

// openEngine builds the engine for opts and opens its session: the one
// -c/-r name, else a new one. eagerLLM builds the client first so that a
// missing key stops the run before anything is written. A window the
// server's cached answer gave that the run cannot use (too small for the
// system prompt and tools) is forgotten and the server asked again, once.
func openEngine(ctx context.Context, f *Factory, opts *RootOptions, asker tools.Asker, eagerLLM, withMCP bool) (*agent.Engine, error) {
	eng, cachedWindow, err := openEngineOnce(ctx, f, opts, asker, eagerLLM, withMCP)
	if small := (*contextmgr.WindowTooSmallError)(nil); cachedWindow && errors.As(err, &small) {
		if cfg, cerr := f.Config(); cerr == nil {
			f.ForgetServerWindow(cfg, opts.Model)
		}
		opts.Window, opts.WindowSource = tokens.WindowFor(opts.Model), "the models table"
		eng, _, err = openEngineOnce(ctx, f, opts, asker, eagerLLM, withMCP)
	}
	if err != nil {
		return nil, windowTooSmall(opts, err)
	}
	return eng, nil
}

// openEngineOnce is openEngine's one attempt; cachedWindow is set when
// opts.Window came from servers.json.
func openEngineOnce(ctx context.Context, f *Factory, opts *RootOptions, asker tools.Asker, eagerLLM, withMCP bool) (eng *agent.Engine, cachedWindow bool, err error) {
	p, err := f.Project()
	if err != nil {
		return nil, false, err
	}
	cfg, err := f.Config()
	if err != nil {
		return nil, false, err
	}
	perms, err := f.Permissions(opts, asker)
	if err != nil {
		return nil, false, err
	}
	sb, err := f.Sandbox(perms)
	if err != nil {
		return nil, false, err
	}
	id, err := sessionToOpen(f, opts)
	if err != nil {
		return nil, false, err
	}
	client, tel, err := f.runLLM(eagerLLM)
	if err != nil {
		return nil, false, err
	}
	// A model the table does not know, with no window set anywhere: the
	// server is asked (CONTRACT §8), so the first request is sized right.
	if !opts.WindowExplicit && !tokens.Lookup(opts.Model).Known {
		if n, source, cached, ok := f.ServerWindow(ctx, cfg, opts.Model); ok {
			opts.Window, opts.WindowSource, cachedWindow = n, source, cached
		}
	}
	host, mcpWait := f.runMCP(ctx, cfg, p.Root, opts, withMCP)
	engCfg := agent.Config{
		MCP:            host,
		MCPWait:        mcpWait,
		Hooks:          f.Hooks(cfg, p.Root),
		Skills:         f.Skills(ctx),
		AppendSystem:   opts.AppendSystemPrompt,
		Dirs:           opts.AddDirs,
		AddWritable:    sb.AddWritable,
		Logger:         f.Logger(),
		Model:          opts.Model,
		Window:         opts.Window,
		WindowExplicit: opts.WindowExplicit,
		WindowSource:   opts.WindowSource,
		Threshold:      opts.Threshold,
		MaxTurns:       opts.MaxTurns,
		Project:        p,
		LLM:            client,
		Permissions:    perms,
		Cache:          f.Cache(),
		Prices:         tokens.NewPrices(cfg.Prices),
		EnvPassthrough: cfg.EnvPassthrough,
		SecretEnv:      []string{cfg.APIKeyEnv},
		Sandbox:        sb,
		Warn:           warnTo(f.IO.ErrOut),
		About:          f.about(cfg, p, sb),
		AfterTurn:      f.afterTurn(p),
		Telemetry:      hooksOf(tel),
	}
	if f.engineExtras != nil {
		f.engineExtras(&engCfg)
	}
	eng, err = agent.New(engCfg)
	if err != nil {
		host.Close()
		return nil, cachedWindow, err
	}
	if tel != nil {
		tel.SessionFallback(eng.Sessions().ID)
	}
	if err := openSession(ctx, f, opts, eng.Sessions(), id); err != nil {
		_ = eng.Close()
		return nil, cachedWindow, err
	}
	return eng, cachedWindow, nil
}

// runLLM is a run's model client: built now when eager (a missing key
// stops the run before anything is written), else on the first call; and
// wrapped by the telemetry, when it is on.
func (f *Factory) runLLM(eager bool) (agent.LLM, *telemetry.Telemetry, error) {
	var client agent.LLM = &lazyLLM{f: f}
	if eager {
		c, err := f.LLM()
		if err != nil {
			return nil, nil, err
		}
		client = c
	}
	tel := f.Telemetry()
	if tel != nil {
		client = tel.WrapLLM(client)
	}
	return client, tel, nil
}

// runMCP starts the MCP servers (in the background) of a run that may
// call their tools or list them, nil otherwise, and says how long its
// first request waits for them: a run nobody watches (-p, an editor's)
// waits, the REPL does not.
func (f *Factory) runMCP(ctx context.Context, cfg *config.Config, root string, opts *RootOptions, withMCP bool) (*mcphost.Host, time.Duration) {
	var host *mcphost.Host
	if withMCP && len(cfg.MCPServers)+len(f.extraMCP) > 0 {
		host = f.StartMCP(ctx, cfg, root)
	}
	if !f.IO.Interactive() || opts.Print {
		return host, printMCPWait
	}
	return host, 0
}

// sessionOpener is what the start of a run needs of the engine's sessions
// (*agent.Sessions).
type sessionOpener interface {
	StartNew(ctx context.Context, title string) error
	Resume(ctx context.Context, id string) error
	Fork(ctx context.Context, id, title string) (string, error)
}

var _ sessionOpener = (*agent.Sessions)(nil)

// openSession puts the engine in the session the flags chose: a fork of
// id, id itself, or a new one.
func openSession(ctx context.Context, f *Factory, opts *RootOptions, sessions sessionOpener, id string) error {
	switch {
	case id != "" && opts.ForkSession:
		// The original is only read: it may even be open in another process.
		_, err := sessions.Fork(ctx, id, "")
		return err
	case id != "":
		err := resumeChosen(f, opts, id, func(id string) error { return sessions.Resume(ctx, id) })
		if errors.Is(err, storage.ErrSessionBusy) {
			err = withHint(err, busyHintResume)
		}
		return err
	}
	return sessions.StartNew(ctx, "")
}

// printMCPWait bounds how long a run nobody watches (-p, or input that is
// not a terminal) waits at its first request for MCP servers still
// connecting: their tools would otherwise be missing from the whole run.
// A server that has not answered by then is reported and skipped.
const printMCPWait = 10 * time.Second

// windowTooSmall makes a window too small for the system prompt and the
// tools a usage error (exit 2) that names where the window came from.
func windowTooSmall(opts *RootOptions, err error) error {
	var small *contextmgr.WindowTooSmallError
	if !errors.As(err, &small) {
		return err
	}
	return &UsageError{Err: err, Message: fmt.Sprintf("%s %d is too small: the system prompt and tool definitions alone take %d tokens; the smallest usable window is %d tokens (at --compact-threshold %v)",
		opts.WindowSource, small.Window, small.Fixed, small.Min, opts.Threshold)}
}

// resumeChosen resumes the session sessionToOpen chose. -c names no
// session: when the one it chose is removed before it can be opened (a
// racing `sessions rm`), it continues the next most recent one instead, a
// few times at most. -r names one, so its removal is the error, which
// storage words in one line naming the session.
func resumeChosen(f *Factory, opts *RootOptions, id string, resume func(id string) error) error {
	err := resume(id)
	for tries := 0; opts.Continue && errors.Is(err, storage.ErrNotFound) && tries < 3; tries++ {
		if id, err = sessionToOpen(f, opts); err == nil {
			err = resume(id)
		}
	}
	return err
}

// errNothingToContinue is -c in a project without sessions.
var errNothingToContinue = errors.New("no session to continue in this project")

// sessionToOpen resolves -c/-r to a session id ("" = start a new session).
func sessionToOpen(f *Factory, opts *RootOptions) (string, error) {
	switch {
	case opts.Resume != "":
		_, id, err := resolveSession(f, opts.Resume)
		var usage *UsageError
		if errors.As(err, &usage) && errors.Is(err, storage.ErrNotFound) {
			if p, perr := f.Project(); perr == nil {
				if hints := enclosingHints(p, strings.TrimSpace(opts.Resume)); hints != nil {
					usage.Hints = hints
				}
			}
		}
		return id, err
	case opts.Continue:
		p, err := f.Project()
		if err != nil {
			return "", err
		}
		id, err := p.Latest()
		if err != nil {
			if errors.Is(err, storage.ErrNotFound) {
				if hints := enclosingHints(p, ""); hints != nil {
					return "", withHint(errNothingToContinue, hints...)
				}
				return "", withHint(errNothingToContinue, "start one with `clawdcode` or `clawdcode -p`")
			}
			return "", err
		}
		return id, nil
	}
	return "", nil
}

// lazyLLM builds the client on the first model call, for runs that may
// never make one.
type lazyLLM struct{ f *Factory }

func (l *lazyLLM) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	c, err := l.f.LLM()
	if err != nil {
		return nil, err
	}
	return c.Stream(ctx, req, onDelta)
}

func (l *lazyLLM) ListModels(ctx context.Context) ([]string, error) {
	c, err := l.f.LLM()
	if err != nil {
		return nil, err
	}
	return c.ListModels(ctx)
}

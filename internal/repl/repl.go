package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/secrets"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Turns is what the REPL sends the user's messages to (*agent.Turns): the
// rest of the engine it shows and its commands drive through the parts
// the slash commands declare (slash.Parts).
type Turns interface {
	Submit(ctx context.Context, text string, sink agent.Sink) (*agent.TurnResult, error)
}

// Commands is what the REPL needs of the slash commands (*slash.Registry):
// run a command line, expand a custom command into its prompt, and list
// the commands' names for completion on Tab.
type Commands interface {
	Run(ctx context.Context, env *slash.Env, line string) error
	Expand(line string) (prompt string, ok bool)
	Commands() []slash.Command
}

var (
	_ Turns    = (*agent.Turns)(nil)
	_ Commands = (*slash.Registry)(nil)
)

// Modes is the permission policy's mode (the engine's Permissions part):
// the REPL only reads and sets it; what a mode allows is the policy's.
type Modes interface {
	Mode() tools.Mode
	CycleMode() tools.Mode
	SetMode(tools.Mode) bool
}

var _ Modes = (*agent.Permissions)(nil)

// Options configure the interactive session.
type Options struct {
	IO *iostreams.IOStreams
	// Parts are the engine's parts the REPL shows and its commands drive
	// (slash.PartsOf); Turns runs the user's messages.
	Parts       slash.Parts
	Turns       Turns
	Commands    Commands
	HistoryPath string // $CLAWDCODE_HOME/history; "" keeps no history
	FirstPrompt string // positional prompt, sent as the first message
	// SearchSessions, when set, lets the /resume picker filter sessions on
	// their content (a full-text search of the store).
	SearchSessions SessionSearch
	// SkipPermissions is --dangerously-skip-permissions: the status line
	// says so in red for as long as it holds (when Modes is nil).
	SkipPermissions bool
	// Modes is the permission mode the engine's tools are checked in:
	// Shift-Tab cycles it and the status line shows it (nil: no modes).
	// A plan the model hands over in plan mode is put to the user by the
	// Asker (agent.PlanApprover), which the caller gives the engine.
	Modes Modes
	// Hints are the lines of advice shown under an error (the same as
	// -p gives: the front end's one mapping); nil = none.
	Hints func(error) []string
	// Redactor takes credentials out of what slash commands print (nil =
	// none to take out).
	Redactor *secrets.Redactor
	// Asker is the permission prompt the engine's tools ask through, if
	// any: Run links it to its turns for as long as it runs, so that the
	// prompt stops the spinner before it writes.
	Asker *Asker
	// WatchMCP, when set, registers a function to call after each change
	// of an MCP server's state (nil unregisters): the status line, which
	// shows the servers still connecting or failed, is drawn again.
	WatchMCP func(onChange func())
	// PickSession opens the /resume picker before the first prompt (a bare
	// -r); without a terminal /resume lists the sessions instead.
	PickSession bool
	// Spend, when set, is today's cost for the status line: refreshed
	// when the REPL starts and after each turn (nil: not shown).
	Spend Spend
}

// Spend is a figure the status line shows (*usage.Today): Figure is read
// on every draw and must not block; Refresh recomputes it in the
// background.
type Spend interface {
	Figure() string
	Refresh(done func())
}

const (
	promptMain = "> "
	promptMore = "… "
)

// session is one Run's state.
type session struct {
	opts  Options
	io    *iostreams.IOStreams
	con   *console
	input lineSource
	cs    colorScheme
	kb    *keyboard // the terminal's keys; nil when input is not a terminal
	// pending holds the output of !commands for the next message.
	pending []string
	// offered are the memory suggestions already asked about in this run.
	offered map[string]bool

	interrupts interruptRouter
}

// Run is the REPL: it returns nil on /exit, Ctrl-D or a second Ctrl-C at
// an empty prompt, and ctx.Err() when ctx ends. Ctrl-C while a turn or a
// command runs cancels only that (see the package doc for the signal rule).
func Run(ctx context.Context, opts Options) error {
	if opts.IO == nil || opts.Turns == nil || opts.Parts.Sessions == nil || opts.Commands == nil {
		return errors.New("repl options: IO, Turns, Parts and Commands are required")
	}
	s := &session{opts: opts, io: opts.IO, cs: colorScheme{on: opts.IO.IsStderrTTY()}}

	if err := s.openInput(); err != nil {
		return err
	}
	defer s.input.Close()
	if opts.Spend != nil {
		opts.Spend.Refresh(s.redrawStatus)
	}
	if opts.WatchMCP != nil && s.kb != nil {
		opts.WatchMCP(s.kb.redraw)
		defer opts.WatchMCP(nil)
	}
	if opts.Asker != nil {
		opts.Asker.attach(s.con)
		defer opts.Asker.attach(nil)
	}
	stopInterrupts := s.interrupts.listen(ctx)
	defer stopInterrupts()

	s.welcome()
	if opts.Parts.Sessions.ID() != "" {
		s.replaySession(ctx, s.io.ErrOut) // -c or -r
	}
	defer s.goodbye()
	if opts.PickSession {
		if err := s.dispatch(ctx, "/resume"); err != nil {
			return s.leave(err)
		}
	}
	if opts.FirstPrompt != "" {
		if s.kb != nil { // shown as if typed, so the answer has its question
			fmt.Fprintln(s.io.Out, strings.Join(echoRows(promptMain, safe(opts.FirstPrompt), s.width(), s.cs), "\n"))
		}
		if err := s.dispatch(ctx, opts.FirstPrompt); err != nil {
			return s.leave(err)
		}
	}
	return s.loop(ctx)
}

// loop reads and runs entries until the user leaves (nil), or ctx ends.
func (s *session) loop(ctx context.Context) error {
	interrupts := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		entry, err := s.readEntry(ctx)
		switch {
		case errors.Is(err, errInterrupt):
			if entry != "" { // Ctrl-C clears a half-typed line; it is not a request to leave
				interrupts = 0
				continue
			}
			interrupts++
			if interrupts >= 2 {
				return nil
			}
			s.say(styleWords(s.cs.dim, "(press Ctrl-C again or Ctrl-D to exit)"))
			continue
		case errors.Is(err, io.EOF): // Ctrl-D at an empty prompt, or the input ended
			return nil
		case errors.Is(err, errRewind): // Esc Esc at an empty prompt
			interrupts = 0
			if err := s.dispatch(ctx, "/rewind"); err != nil {
				return s.leave(err)
			}
			continue
		case err != nil:
			return err
		}
		interrupts = 0
		if strings.TrimSpace(entry) == "" {
			continue
		}
		s.input.AddHistory(entry)
		if err := s.dispatch(ctx, entry); err != nil {
			return s.leave(err)
		}
	}
}

// openInput sets up where entries come from: the line editor on a
// terminal (with history, completion, the status line and its keys),
// else plain lines.
func (s *session) openInput() error {
	opts := s.opts
	var hist *history
	if opts.HistoryPath != "" {
		h, err := openHistory(opts.HistoryPath)
		if err != nil {
			// History is a convenience: say why it is off and carry on.
			fmt.Fprintf(s.io.ErrOut, "%s\n", s.cs.warn("history disabled: "+err.Error()))
		} else {
			hist = h
		}
	}
	s.con = &console{}
	if !opts.IO.Interactive() {
		s.input = newPlainSource(opts.IO, hist)
		return nil
	}
	src, err := newTermSource(opts.IO, hist, s.cs)
	if err != nil {
		return fmt.Errorf("start line editor: %w", err)
	}
	src.ed.complete = s.completer()
	src.ed.status = s.statusLine
	if opts.Modes != nil {
		src.ed.backTab = func() { opts.Modes.CycleMode() }
	}
	if p := opts.Parts.Sessions.Project(); p != nil && p.Store() != nil {
		dir := filepath.Join(p.Store().Home(), "tmp")
		src.ed.clipImage = func() (string, error) {
			return pasteImage(context.Background(), dir, os.Getenv, exec.LookPath)
		}
	}
	src.ed.onKey = map[rune]func(){
		'o': func() { writeExpanded(s.io.ErrOut, s.cs, s.con.last(), s.width()) },
		'z': src.suspend,
	}
	s.input, s.kb = src, src.kb
	s.con.kb, s.con.width, s.con.height = src.kb, src.width, src.height
	return nil
}

// leave turns the error that ends the loop into Run's result.
func (s *session) leave(err error) error {
	if errors.Is(err, slash.ErrExit) {
		return nil
	}
	return err
}

// readEntry reads one request: a line, continued over further lines while
// each ends with a backslash. On Ctrl-C it returns what was typed so far.
// Before the prompt — a calm moment, no turn running — it asks about the
// memory suggestions not yet offered.
func (s *session) readEntry(ctx context.Context) (string, error) {
	s.offerSuggestions(ctx)
	var parts []string
	prompt := promptMain
	for {
		line, err := s.input.ReadLine(ctx, prompt)
		if err != nil {
			if errors.Is(err, errInterrupt) {
				return strings.Join(append(parts, line), "\n"), err
			}
			if errors.Is(err, io.EOF) && (len(parts) > 0 || line != "") {
				return strings.Join(append(parts, line), "\n"), nil
			}
			return "", err
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			parts = append(parts, cont)
			prompt = promptMore
			continue
		}
		return strings.Join(append(parts, line), "\n"), nil
	}
}

// dispatch runs one entry — a slash command or a message for the model —
// with Ctrl-C bound to cancelling just that entry. Only errors that must end
// the REPL are returned (slash.ErrExit, or ctx ending).
func (s *session) dispatch(parent context.Context, entry string) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	s.interrupts.route(cancel)
	defer s.interrupts.route(nil)
	if s.kb != nil {
		s.kb.beginTurn(&turnKeys{cancel: cancel, expand: s.expandLive, typed: s.showTyped})
		defer s.kb.endTurn()
	}

	text := strings.TrimSpace(entry)
	var err error
	if cmdline, ok := strings.CutPrefix(text, "!"); ok && s.kb != nil && strings.TrimSpace(cmdline) != "" {
		err = s.shellCommand(ctx, strings.TrimSpace(cmdline))
	} else if note, ok := memoryLine(entry); ok {
		err = s.remember(ctx, note)
	} else if prompt, ok := s.expand(text); ok {
		err = s.turn(ctx, prompt)
	} else if slash.IsCommand(text) {
		err = s.command(ctx, text)
	} else {
		err = s.turn(ctx, entry)
	}
	switch {
	case err == nil:
	case errors.Is(err, slash.ErrExit):
		return err
	case parent.Err() != nil:
		return parent.Err()
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		fmt.Fprintln(s.io.ErrOut, s.cs.warn("interrupted"))
	default:
		s.printError(err)
	}
	return nil
}

// printError shows err and, under it, the hints the front end has for it.
func (s *session) printError(err error) {
	s.say(styleWords(s.cs.err, "error: "+err.Error()))
	if s.opts.Hints == nil {
		return
	}
	for _, h := range s.opts.Hints(err) {
		s.say("  " + termtext.Line(h))
	}
}

// interruptRouter owns SIGINT for the whole of Run and cancels the entry
// that is running, if any. Outside the line editor the terminal is in
// cooked mode, so Ctrl-C arrives as a signal rather than as a key; keeping
// the handler for all of Run (not only during entries) means a Ctrl-C in
// the instant between two prompts is ignored instead of killing the process.
type interruptRouter struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

// listen routes SIGINT until ctx ends; the returned function stops it and
// waits for the routing goroutine.
func (r *interruptRouter) listen(ctx context.Context) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-sigs:
				r.mu.Lock()
				if r.cancel != nil {
					r.cancel()
				}
				r.mu.Unlock()
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		cancel()
		<-done
	}
}

// route makes SIGINT cancel the running entry (nil: nothing to cancel).
func (r *interruptRouter) route(cancel context.CancelFunc) {
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
}

// redrawStatus draws the entry and its status line again (a figure in it
// changed), when the input is a terminal.
func (s *session) redrawStatus() {
	if s.kb != nil {
		s.kb.redraw()
	}
}

// turn sends text to the model and renders the reply as it streams.
func (s *session) turn(ctx context.Context, text string) error {
	out := newTurnOutput(s.io, s.projectRoot(), ctx.Done(), s.con)
	s.con.setActive(out)
	defer s.con.setActive(nil)

	if s.kb != nil {
		text = s.withContext(text)
	}
	out.waiting("thinking")
	_, err := s.opts.Turns.Submit(ctx, text, out)
	out.finish()
	if s.opts.Spend != nil {
		s.opts.Spend.Refresh(s.redrawStatus)
	}
	if err == nil && ctx.Err() == nil {
		s.contextWarning()
	}
	return err
}

// expand turns a custom command line into the prompt it stands for.
func (s *session) expand(line string) (string, bool) { return s.opts.Commands.Expand(line) }

// command runs a slash command line. What it prints (titles, pins,
// summaries, search snippets, server messages) goes through termtext: the
// commands add no styling of their own, so all of it is shown, not obeyed.
func (s *session) command(ctx context.Context, line string) error {
	cmdIO, flush := s.commandIO()
	defer flush()
	env := &slash.Env{Parts: s.opts.Parts, IO: cmdIO, Width: s.width()}
	env.Expand = func() { writeExpanded(s.io.ErrOut, s.cs, s.con.last(), s.width()) }
	hitShown := false
	switch {
	case s.kb != nil:
		env.Pick = s.pickSession
		env.PickHit = s.pickHit
		env.ShowHit = func(ctx context.Context, query string, h search.Hit) {
			s.showHit(ctx, query, h)
			hitShown = true
		}
		env.Choose = s.chooseKey
		env.Confirm = s.confirmKey
		env.Ask = func(ctx context.Context, question string) (string, error) {
			s.con.kb.beginDialog()
			defer s.con.kb.endDialog()
			return readOneLine(ctx, s.con, s.io.ErrOut, s.cs, question)
		}
		if ts, ok := s.input.(*termSource); ok {
			env.Edit = s.editor(ts.handOver)
			env.Draft = func(text string) { ts.ed.draftNext = text }
		}
	case s.io.IsStdinTTY():
		env.Pick = func(ctx context.Context, sessions []storage.SessionInfo) (string, error) {
			return pick(ctx, s.io, sessions)
		}
		env.Choose = func(ctx context.Context, question string, items []string) (int, error) {
			return chooseItem(ctx, s.io, question, items)
		}
		env.Confirm = func(ctx context.Context, question string) (bool, error) {
			return confirm(ctx, s.io, question)
		}
		env.Edit = s.editor(nil)
	}
	before := s.opts.Parts.Sessions.ID()
	err := s.opts.Commands.Run(ctx, env, line)
	if after := s.opts.Parts.Sessions.ID(); after != before && after != "" && !hitShown {
		s.replaySession(ctx, s.io.ErrOut) // a /switch or /resume: show where the user is
	}
	return err
}

// commandIO is the streams a slash command writes to: credentials taken
// out first (a server error quoting the key), then what is left made safe
// to show, then each line broken at words to the terminal's width (on a
// terminal). The terminal flags are the session's, so TermOut and the
// TTY checks answer as for the session's own streams. flush sends what
// the writers hold back, in that order, when the command ends.
func (s *session) commandIO() (*iostreams.IOStreams, func()) {
	fitOut := &fitWriter{w: s.io.Out, width: s.fitWidth(s.io.IsStdoutTTY())}
	fitErr := &fitWriter{w: s.io.ErrOut, width: s.fitWidth(s.io.IsStderrTTY())}
	safeOut, safeErr := termtext.NewWriter(fitOut), termtext.NewWriter(fitErr)
	redOut, redErr := s.opts.Redactor.Writer(safeOut), s.opts.Redactor.Writer(safeErr)
	cmdIO := *s.io
	cmdIO.Out, cmdIO.ErrOut = redOut, redErr
	return &cmdIO, func() {
		for _, w := range []interface{ Flush() error }{redOut, redErr, safeOut, safeErr, fitOut, fitErr} {
			w.Flush()
		}
	}
}

// editor is slash.Env.Edit: the user's $VISUAL/$EDITOR on a temporary
// file under CLAWDCODE_HOME. suspend, when set, hands the terminal over
// for the editor's run (the raw-mode keyboard would take its keys) and
// returns how to take it back.
func (s *session) editor(suspend func() func() error) func(ctx context.Context, text string) (string, error) {
	p := s.opts.Parts.Sessions.Project()
	if p == nil || p.Store() == nil {
		return nil
	}
	dir := filepath.Join(p.Store().Home(), "tmp")
	return func(ctx context.Context, text string) (string, error) {
		if suspend != nil {
			resume := suspend()
			defer func() {
				if err := resume(); err != nil {
					fmt.Fprintf(s.io.ErrOut, "clawdcode: take the terminal back after the editor: %v\n", err)
				}
			}()
		}
		return editText(ctx, dir, text)
	}
}

// contextWarning tells the user when the next auto-compaction is near.
func (s *session) contextWarning() {
	if msg, ok := s.opts.Parts.Context.Usage().Warning(); ok {
		s.say(styleWords(s.cs.dim, msg))
	}
}

func (s *session) projectRoot() string {
	if p := s.opts.Parts.Sessions.Project(); p != nil {
		return p.Root
	}
	return ""
}

// welcome prints one short status line: model, session, directory.
func (s *session) welcome() {
	sess := "new session"
	if id := s.opts.Parts.Sessions.ID(); id != "" {
		sess = "session " + termtext.ShortID(id)
	}
	parts := []string{"clawdcode", s.opts.Parts.Model.Model(), sess}
	if root := s.projectRoot(); root != "" {
		parts = append(parts, tildePath(root))
	}
	line := strings.Join(parts, " · ")
	if s.io.IsStdinTTY() {
		line += "  " + styleWords(s.cs.dim, "(/help for commands, Ctrl-D to exit)")
	}
	s.say(line)
}

// goodbye tells the user how to come back to the session they leave, and
// which background commands end with the REPL (the engine's Close stops
// them, as Claude Code does on exit).
func (s *session) goodbye() {
	if n := runningShells(s.opts.Parts); n > 0 {
		var names []string
		for _, sh := range s.opts.Parts.Shells.List() {
			if sh.Running {
				names = append(names, sh.ID+" ("+termtext.FirstLine(sh.Command, 40, termtext.Ellipsis)+")")
			}
		}
		s.say(styleWords(s.cs.warn, fmt.Sprintf("Stopping %s still running, with everything it started: %s",
			plural(n, "background command"), strings.Join(names, ", "))))
	}
	if id := s.opts.Parts.Sessions.ID(); id != "" {
		s.say(styleWords(s.cs.dim, "Resume this session with: clawdcode -r "+id))
	}
}

func tildePath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, home); ok && (rest == "" || rest[0] == '/') {
		return "~" + rest
	}
	return p
}

// width is the terminal's width (100 when not a terminal).
func (s *session) width() int {
	if s.con != nil && s.con.width != nil {
		return s.con.width()
	}
	return 100
}

// showTyped shows what was typed ahead under the running turn's spinner.
func (s *session) showTyped(preview string) {
	s.con.mu.Lock()
	t := s.con.active
	s.con.mu.Unlock()
	if t != nil {
		t.showQueued(preview)
	}
}

// expandLive is Ctrl-O during a turn: the running subagents' recent
// calls, or the last tool output in full.
func (s *session) expandLive() {
	if t := s.con.current(); t != nil {
		t.expand()
	}
}

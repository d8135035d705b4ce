package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// maxAttempts bounds how often a prompt repeats after an answer it does not understand.
const maxAttempts = 3

// Asker is the TTY permission prompt (allow once / always / deny).
//
// It reads its answer as a plain line from io.In between the line editor's
// reads (the terminal is in cooked mode then), so Ctrl-C at the prompt is
// the same SIGINT that cancels the turn: Ask then returns Deny and the
// context's error. End of input is a Deny without error.
//
// The CLI builds the Asker before the engine (whose permission policy
// holds it) and hands the same value to Run in Options.Asker; while that
// Run shows a turn's spinner, Ask stops it before writing. Ask is called
// on the goroutine running the turn; the link Run sets is guarded, so the
// Asker is safe to share between them.
type Asker struct {
	io *iostreams.IOStreams
	cs colorScheme

	// Propose gives the rules an "always" would add for a call (shown to
	// the user before they choose it); nil: "always" covers the tool.
	Propose func(tool tools.Tool, input json.RawMessage) []string
	// Root is the project root; a Write or Edit outside it is flagged.
	Root string
	// Notify, when set, is called as a question is put, with the tool's
	// name (the Notification hooks: the user is needed).
	Notify func(ctx context.Context, tool string)

	mu  sync.Mutex
	con *console // the running Run's turns, nil outside Run
}

var _ tools.Asker = (*Asker)(nil)

// NewAsker returns the permission prompt on io.
func NewAsker(io *iostreams.IOStreams) *Asker {
	return &Asker{io: io, cs: colorScheme{on: io.IsStderrTTY()}}
}

// attach links the asker to a Run's console (nil unlinks it).
func (a *Asker) attach(c *console) {
	a.mu.Lock()
	a.con = c
	a.mu.Unlock()
}

// pauseTurn stops the spinner of the turn that asks, if a Run shows one.
func (a *Asker) pauseTurn() {
	a.mu.Lock()
	c := a.con
	a.mu.Unlock()
	c.pause()
}

// resumeTurn ends pauseTurn: the turn's spinner is back.
func (a *Asker) resumeTurn() {
	a.mu.Lock()
	c := a.con
	a.mu.Unlock()
	c.resume()
}

// linked returns the console of the Run the asker is linked to.
func (a *Asker) linked() *console {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.con
}

func (a *Asker) Ask(ctx context.Context, tool tools.Tool, input json.RawMessage) (tools.Decision, error) {
	d, _, err := a.AskNote(ctx, tool, input)
	return d, err
}

// AskNote is Ask with what the user said to do instead of a denied call
// (tools.NotingAsker): the terminal's dialog offers it; lines do not.
func (a *Asker) AskNote(ctx context.Context, tool tools.Tool, input json.RawMessage) (tools.Decision, string, error) {
	a.pauseTurn()
	defer a.resumeTurn()
	if a.Notify != nil {
		a.Notify(ctx, tool.Name())
	}
	if c := a.linked(); c != nil && c.kb != nil {
		return a.askKey(ctx, c, tool, input)
	}
	d, err := a.askLines(ctx, tool, input)
	return d, "", err
}

// askLines asks on a terminal without raw keys: an answer per line.
func (a *Asker) askLines(ctx context.Context, tool tools.Tool, input json.RawMessage) (tools.Decision, error) {
	w := a.io.ErrOut
	headline := tool.Describe(input)
	fmt.Fprintf(w, "%s %s\n", a.cs.warn("?"), a.cs.bold(termtext.Safe(headline)))
	writePreview(w, a.cs, tool.Name(), headline, input)
	for range maxAttempts {
		fmt.Fprint(w, "  Allow? [y]es once / [a]lways this session / [n]o: ")
		line, err := readLine(ctx, a.io)
		if err != nil {
			fmt.Fprintln(w)
			if errors.Is(err, io.EOF) {
				return tools.Deny, nil
			}
			return tools.Deny, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return tools.AllowOnce, nil
		case "a", "always":
			return tools.AllowAlways, nil
		case "n", "no", "":
			return tools.Deny, nil
		}
	}
	return tools.Deny, nil
}

// previewLines bounds each part of a preview.
const previewLines = 8

// writePreview shows what a Write or Edit would change, or the whole of a
// command, so the user decides on the content and not a name. Everything
// shown is made safe first: a command cannot hide its tail behind a
// carriage return or redraw the prompt with escape codes.
// headline is the one-line description already shown above it.
func writePreview(w io.Writer, cs colorScheme, name, headline string, input json.RawMessage) {
	var args struct {
		Content   string `json:"content"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Command   string `json:"command"`
		// Background is Bash's run_in_background.
		Background bool `json:"run_in_background"`
	}
	if json.Unmarshal(input, &args) != nil {
		return
	}
	switch name {
	case tools.NameWrite:
		previewBlock(w, "  │ ", args.Content, cs.dim)
	case tools.NameEdit:
		previewBlock(w, "  - ", args.OldString, cs.err)
		previewBlock(w, "  + ", args.NewString, func(s string) string { return cs.wrap("\x1b[32m", styleFgReset, s) })
	case tools.NameBash:
		// A command the headline shows whole and as it is needs no block;
		// one it cut (long, several lines, a CR) or had to make safe does.
		if cmd := strings.TrimSpace(args.Command); headline != name+"("+cmd+")" || termtext.Safe(cmd) != cmd {
			commandBlock(w, args.Command, cs.dim)
		}
		if args.Background {
			fmt.Fprintln(w, cs.warn("  ⏵ runs in the background: it keeps running (/bashes shows it and can stop it)"))
		}
	}
}

// commandWidth is where commandBlock wraps a long line: the whole command
// is shown, never cut, and a wrapped line's continuations are marked so
// they do not read as separate lines.
const commandWidth = 100

// commandBlock shows every line of a command, wrapped, control characters
// visible.
func commandBlock(w io.Writer, command string, style func(string) string) {
	for _, line := range strings.Split(termtext.Safe(strings.TrimRight(command, "\n")), "\n") {
		for i, part := range wrapRunes(line, commandWidth) {
			gutter := "  │ "
			if i > 0 {
				gutter = "  ┆ "
			}
			fmt.Fprintln(w, style(gutter+part))
		}
	}
}

// wrapRunes cuts s into pieces of at most width runes (one empty piece for
// an empty s).
func wrapRunes(s string, width int) []string {
	r := []rune(s)
	parts := make([]string, 0, len(r)/width+1)
	for len(r) > width {
		parts = append(parts, string(r[:width]))
		r = r[width:]
	}
	return append(parts, string(r))
}

func previewBlock(w io.Writer, gutter, text string, style func(string) string) {
	text = termtext.Safe(strings.TrimRight(text, "\n"))
	if text == "" {
		fmt.Fprintln(w, style(strings.TrimRight(gutter, " "))+" (empty)")
		return
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if i == previewLines {
			more := len(lines) - previewLines
			word := "lines"
			if more == 1 {
				word = "line"
			}
			fmt.Fprintln(w, style(fmt.Sprintf("%s… %d more %s", gutter, more, word)))
			return
		}
		fmt.Fprintln(w, style(gutter+clip(l, 120)))
	}
}

// pick is the session picker of /resume: a numbered list, then a number
// (or an id prefix) read from the terminal. An empty answer or end of
// input cancels: it returns "" and no error.
func pick(ctx context.Context, ios *iostreams.IOStreams, sessions []storage.SessionInfo) (string, error) {
	w := ios.ErrOut
	if len(sessions) == 0 {
		fmt.Fprintln(w, "no sessions to resume")
		return "", nil
	}
	width := len(strconv.Itoa(len(sessions)))
	for i, s := range sessions {
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(w, "  %*d  %s  %s  %s\n", width, i+1, termtext.ShortID(s.ID),
			s.Updated.Local().Format("2006-01-02 15:04"), termtext.Safe(clip(termtext.FirstLine(title, 0, " …"), 60)))
	}
	for range maxAttempts {
		fmt.Fprint(w, "Resume which session? (number, id or title, Enter to cancel): ")
		line, err := readLine(ctx, ios)
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(w)
			return "", nil
		}
		if err != nil {
			fmt.Fprintln(w)
			return "", err
		}
		answer := strings.TrimSpace(line)
		if answer == "" {
			return "", nil
		}
		id, err := choose(sessions, answer)
		if err == nil {
			return id, nil
		}
		fmt.Fprintln(w, termtext.Safe(err.Error()))
	}
	return "", nil
}

// choose maps a 1-based number of the list, or what storage.Match takes
// (an id, its prefix, the start of a title), to a session id.
func choose(sessions []storage.SessionInfo, answer string) (string, error) {
	if n, err := strconv.Atoi(answer); err == nil {
		if n >= 1 && n <= len(sessions) {
			return sessions[n-1].ID, nil
		}
		return "", fmt.Errorf("%d is not one of the listed sessions", n)
	}
	s, err := storage.Match(sessions, answer)
	return s.ID, err
}

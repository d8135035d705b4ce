package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/chzyer/readline"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/slash"
)

// lineSource is where the REPL reads what the user types.
type lineSource interface {
	// ReadLine shows prompt and returns one line without its newline;
	// errInterrupt (with the half-typed line) on Ctrl-C, io.EOF at end.
	ReadLine(ctx context.Context, prompt string) (string, error)
	AddHistory(entry string)
	Close() error
}

// readlineSource edits lines on a terminal. The editor puts the terminal in
// raw mode only while a line is being read and stops reading stdin once the
// line is entered, so between prompts the terminal is cooked: Ctrl-C is a
// SIGINT again and the permission prompt can read a plain line.
type readlineSource struct {
	rl    *readline.Instance
	stdin *readline.CancelableStdin
	hist  *history
	last  string // the latest history line, not stored twice in a row
}

func newReadlineSource(ios *iostreams.IOStreams, hist *history, cmds Commands) (*readlineSource, error) {
	stdin := readline.NewCancelableStdin(ios.In)
	cfg := &readline.Config{
		Prompt:                 promptMain,
		Stdin:                  stdin,
		Stdout:                 ios.Out,
		Stderr:                 ios.ErrOut,
		HistoryLimit:           historyKeep,
		DisableAutoSaveHistory: true, // entries are saved whole (multi-line) by AddHistory
		InterruptPrompt:        "^C",
		EOFPrompt:              "\n", // readline's spelling of "print nothing"
		FuncIsTerminal:         ios.Interactive,
	}
	if lister, ok := cmds.(interface{ Commands() []slash.Command }); ok {
		cfg.AutoComplete = &slashCompleter{list: lister.Commands}
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		stdin.Close()
		return nil, err
	}
	src := &readlineSource{rl: rl, stdin: stdin, hist: hist}
	if hist != nil {
		entries, err := hist.Entries()
		if err != nil {
			fmt.Fprintf(ios.ErrOut, "clawdcode: %v\n", err)
		}
		for _, e := range entries {
			_ = rl.SaveHistory(e) // in memory only: the editor has no file of its own
		}
		if len(entries) > 0 {
			src.last = entries[len(entries)-1]
		}
	}
	return src, nil
}

func (s *readlineSource) ReadLine(ctx context.Context, prompt string) (string, error) {
	s.rl.SetPrompt(prompt)
	// The editor cannot watch ctx itself; closing it is the only way to end
	// a pending read, and after ctx ends the REPL reads no more anyway.
	stop := context.AfterFunc(ctx, s.close)
	defer stop()
	line, err := s.rl.Readline()
	switch {
	case errors.Is(err, readline.ErrInterrupt):
		return line, errInterrupt
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return line, err // io.EOF on Ctrl-D
	}
	return line, nil
}

func (s *readlineSource) AddHistory(entry string) {
	line := historyLine(entry)
	if line == "" || line == s.last {
		return
	}
	s.last = line
	_ = s.rl.SaveHistory(line)
	if s.hist != nil {
		_ = s.hist.Add(entry) // losing one history line is not worth interrupting the user
	}
}

// close ends a pending read: stdin first, since the editor's reader may be
// blocked on it and the editor's Close waits for that reader.
func (s *readlineSource) close() {
	s.stdin.Close()
	s.rl.Close()
}

func (s *readlineSource) Close() error {
	s.close()
	if s.hist != nil {
		return s.hist.Close()
	}
	return nil
}

// plainSource reads lines from a stdin that is not a terminal (a pipe, a
// file, a test buffer): no editing, no prompt unless stdin is a terminal.
type plainSource struct {
	ios  *iostreams.IOStreams
	hist *history
}

func newPlainSource(ios *iostreams.IOStreams, hist *history) *plainSource {
	return &plainSource{ios: ios, hist: hist}
}

func (s *plainSource) ReadLine(ctx context.Context, prompt string) (string, error) {
	if s.ios.IsStdinTTY() {
		fmt.Fprint(s.ios.ErrOut, prompt)
	}
	return readLine(ctx, s.ios)
}

func (s *plainSource) AddHistory(entry string) {
	if s.hist != nil && s.ios.IsStdinTTY() { // piped scripts are not history
		_ = s.hist.Add(entry)
	}
}

func (s *plainSource) Close() error {
	if s.hist != nil {
		return s.hist.Close()
	}
	return nil
}

// readLine reads one line from ios.In a byte at a time, so that nothing
// past the newline is consumed: the REPL, the permission prompt and the
// session picker take turns on the same input. On a terminal it waits for
// input while watching ctx; on a pipe ctx is checked only between reads.
func readLine(ctx context.Context, ios *iostreams.IOStreams) (string, error) {
	if fd := ios.StdinFd(); fd >= 0 && ios.IsStdinTTY() {
		if err := waitReadable(ctx, fd); err != nil {
			return "", err
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var line []byte
	var b [1]byte
	for {
		n, err := ios.In.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				return strings.TrimSuffix(string(line), "\r"), nil
			}
			line = append(line, b[0])
			continue
		}
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				return string(line), nil
			}
			return "", io.EOF
		}
		if err != nil {
			return "", fmt.Errorf("read input: %w", err)
		}
	}
}

// slashCompleter completes command names after a leading slash. The list
// is asked for at the first Tab, not at start-up.
type slashCompleter struct {
	list  func() []slash.Command
	names []string
}

func (c *slashCompleter) Do(line []rune, pos int) ([][]rune, int) {
	typed := string(line[:pos])
	if !strings.HasPrefix(typed, "/") || strings.ContainsAny(typed, " \t") {
		return nil, 0
	}
	if c.names == nil {
		for _, cmd := range c.list() {
			c.names = append(c.names, cmd.Name)
		}
	}
	prefix := typed[1:]
	var out [][]rune
	for _, name := range c.names {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			out = append(out, []rune(rest+" "))
		}
	}
	return out, len([]rune(prefix))
}

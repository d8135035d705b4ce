package repl

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/clawdcode/clawdcode/internal/iostreams"
)

// Terminal modes the REPL asks for while it runs, and their undoing:
// bracketed paste (a paste arrives as one event, its newlines never
// submit) and the kitty keyboard protocol's "disambiguate" level (so
// Shift-Enter differs from Enter where the terminal supports it; others
// ignore the request).
const (
	modesOn  = "\x1b[?2004h\x1b[>1u"
	modesOff = "\x1b[<u\x1b[?2004l"
)

// termSource is the lineSource of a terminal: the keyboard goroutine, the
// editor, and the terminal's modes, set for the whole of a Run.
type termSource struct {
	ios  *iostreams.IOStreams
	raw  *rawTerminal
	kb   *keyboard
	ed   *editor
	hist *history

	stop context.CancelFunc
	done chan struct{}
	once sync.Once
}

func newTermSource(ios *iostreams.IOStreams, hist *history, cs colorScheme) (*termSource, error) {
	fd := ios.StdinFd()
	raw, err := enterRaw(fd)
	if err != nil {
		return nil, err
	}
	kb := newKeyboard(fd, ios.In)
	src := &termSource{ios: ios, raw: raw, kb: kb, hist: hist}
	src.ed = newEditor(ios.Out, kb, src.width, cs)
	io.WriteString(ios.Out, modesOn)
	src.start()
	if hist != nil {
		entries, err := hist.Entries()
		if err != nil {
			fmt.Fprintf(ios.ErrOut, "clawdcode: %v\n", err)
		}
		for _, e := range entries {
			src.ed.addHistory(e)
		}
	}
	return src, nil
}

// width is the terminal's width now: asked on every draw, so a resized
// terminal is followed at once.
func (s *termSource) width() int { return terminalWidth(s.ios.StdinFd(), 80) }

// height is the terminal's height in rows now.
func (s *termSource) height() int { return terminalHeight(s.ios.StdinFd(), 24) }

func (s *termSource) ReadLine(ctx context.Context, prompt string) (string, error) {
	return s.ed.read(ctx, prompt)
}

func (s *termSource) AddHistory(entry string) {
	if entry == s.ed.text() {
		entry = s.ed.shown() // a collapsed paste is remembered as its chip
	}
	line := historyLine(entry)
	if line == "" || (len(s.ed.hist) > 0 && s.ed.hist[len(s.ed.hist)-1] == line) {
		return
	}
	s.ed.addHistory(line)
	if s.hist != nil {
		_ = s.hist.Add(entry) // losing one history line is not worth interrupting the user
	}
}

// suspend is Ctrl-Z at the prompt: the terminal given back as it was, the
// process stopped until the shell continues it, then the REPL's modes
// again.
func (s *termSource) suspend() {
	io.WriteString(s.ios.Out, modesOff)
	if err := s.raw.suspend(); err != nil {
		fmt.Fprintf(s.ios.ErrOut, "clawdcode: %v\n", err)
	}
	io.WriteString(s.ios.Out, modesOn)
}

// Close stops the keyboard and gives the terminal back as it was found.
func (s *termSource) Close() error {
	s.once.Do(func() {
		s.stop()
		<-s.done
		io.WriteString(s.ios.Out, modesOff)
		s.raw.restore()
	})
	if s.hist != nil {
		return s.hist.Close()
	}
	return nil
}

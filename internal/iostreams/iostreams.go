// Package iostreams is clawdcode's one IO type: where data (Out), status
// (ErrOut) and input (In) go, and whether each is a terminal. Nothing under
// internal/ writes to os.Stdout or os.Stderr directly. TermOut and
// TermErr are where text that did not come from clawdcode goes: they decide,
// in this one place, when it is made safe (termtext) and when it is data.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// IOStreams bundles the process's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY, outTTY, errTTY bool
	inFd                  int
}

// System returns the process's real streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		inTTY:  isTerminal(os.Stdin),
		outTTY: isTerminal(os.Stdout),
		errTTY: isTerminal(os.Stderr),
		inFd:   int(os.Stdin.Fd()),
	}
}

// Test returns streams backed by buffers (never TTYs), and the buffers.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, inFd: -1}, in, out, errOut
}

// IsStdinTTY reports whether input is an interactive terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.inTTY }

// IsStdoutTTY reports whether data output goes to a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// IsStderrTTY reports whether status output goes to a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// SetTTY overrides terminal detection (tests).
func (s *IOStreams) SetTTY(in, out, err bool) { s.inTTY, s.outTTY, s.errTTY = in, out, err }

// StdinFd is the input's file descriptor, -1 when it has none.
func (s *IOStreams) StdinFd() int { return s.inFd }

// Interactive reports whether a person is at the keyboard (stdin and
// stdout are both terminals).
func (s *IOStreams) Interactive() bool { return s.inTTY && s.outTTY }

// TermOut is where text that did not come from clawdcode itself goes on
// Out: shown, not obeyed (termtext), when Out is a terminal; byte for byte
// when it is redirected, where it is data. This is the one place that
// decision is made. Flush it at the end.
func (s *IOStreams) TermOut() *termtext.Writer { return termtext.For(s.Out, s.outTTY) }

// TermErr is the same for ErrOut, made safe whatever it is: status
// output is always for a person to read.
func (s *IOStreams) TermErr() *termtext.Writer { return termtext.NewWriter(s.ErrOut) }

func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

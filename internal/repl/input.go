package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawdcode/clawdcode/internal/iostreams"
)

// lineSource is where the REPL reads what the user types.
type lineSource interface {
	// ReadLine shows prompt and returns one line without its newline;
	// errInterrupt (with the half-typed line) on Ctrl-C, io.EOF at end.
	ReadLine(ctx context.Context, prompt string) (string, error)
	AddHistory(entry string)
	Close() error
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

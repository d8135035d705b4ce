//go:build !unix

package repl

import (
	"errors"
	"os"
)

type rawTerminal struct{}

// enterRaw is unsupported here: the REPL falls back to reading plain lines.
func enterRaw(fd int) (*rawTerminal, error) {
	return nil, errors.New("raw terminal input is not supported on this platform")
}

func (r *rawTerminal) restore() {}

func terminalWidth(fd, fallback int) int { return fallback }

func terminalHeight(fd, fallback int) int { return fallback }

func notifyResize(c chan os.Signal) (stop func()) { return func() {} }

func (r *rawTerminal) suspend() error { return nil }

//go:build unix

package repl

import (
	"fmt"
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// rawTerminal is the terminal in the REPL's input mode for the whole of a
// Run: keys arrive one by one (no line discipline, no echo, Ctrl-C and
// Ctrl-Z as bytes rather than signals) while output post-processing stays
// on, so "\n" still moves to the start of the next line for every writer.
// Keeping the terminal raw between prompts is what lets Esc interrupt a
// turn, lets keys typed during a turn wait for the next prompt instead of
// landing on the spinner line, and lets dialogs answer on one key.
type rawTerminal struct {
	fd    int
	saved *unix.Termios
}

// enterRaw switches fd to the REPL's input mode; restore undoes it.
func enterRaw(fd int) (*rawTerminal, error) {
	saved, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, fmt.Errorf("read terminal mode: %w", err)
	}
	raw := *saved
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Oflag |= unix.OPOST | unix.ONLCR
	raw.Cc[unix.VMIN] = 1
	raw.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return nil, fmt.Errorf("set terminal mode: %w", err)
	}
	return &rawTerminal{fd: fd, saved: saved}, nil
}

func (r *rawTerminal) restore() {
	if r != nil {
		_ = unix.IoctlSetTermios(r.fd, ioctlSetTermios, r.saved)
	}
}

// terminalWidth is the width of the terminal on fd, or fallback when it
// cannot be known.
func terminalWidth(fd, fallback int) int {
	if fd < 0 {
		return fallback
	}
	w, _, err := term.GetSize(fd)
	if err != nil || w <= 0 {
		return fallback
	}
	return w
}

// terminalHeight is the height of the terminal on fd in rows, or
// fallback when it cannot be known.
func terminalHeight(fd, fallback int) int {
	if fd < 0 {
		return fallback
	}
	_, h, err := term.GetSize(fd)
	if err != nil || h <= 0 {
		return fallback
	}
	return h
}

// notifyResize sends on c when the terminal is resized (SIGWINCH); stop
// undoes it.
func notifyResize(c chan os.Signal) (stop func()) {
	signal.Notify(c, unix.SIGWINCH)
	return func() { signal.Stop(c) }
}

// suspend stops the process as Ctrl-Z would in a cooked terminal (the
// terminal's own modes restored first) and, once it is continued, puts
// the REPL's input mode back.
func (r *rawTerminal) suspend() error {
	r.restore()
	if err := unix.Kill(unix.Getpid(), unix.SIGTSTP); err != nil {
		return fmt.Errorf("suspend: %w", err)
	}
	// Here again after SIGCONT (fg).
	again, err := enterRaw(r.fd)
	if err != nil {
		return err
	}
	r.saved = again.saved
	return nil
}

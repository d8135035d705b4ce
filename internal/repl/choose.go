package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// chooseItem is the numbered picker of /rewind: the items, then a number
// read from the terminal. An empty answer or end of input cancels (-1).
func chooseItem(ctx context.Context, ios *iostreams.IOStreams, question string, items []string) (int, error) {
	w := ios.ErrOut
	width := len(strconv.Itoa(len(items)))
	for i, it := range items {
		fmt.Fprintf(w, "  %*d  %s\n", width, i+1, termtext.Safe(it))
	}
	for range maxAttempts {
		fmt.Fprintf(w, "%s (number, Enter to cancel): ", question)
		line, err := readLine(ctx, ios)
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(w)
			return -1, nil
		}
		if err != nil {
			fmt.Fprintln(w)
			return -1, err
		}
		answer := strings.TrimSpace(line)
		if answer == "" {
			return -1, nil
		}
		if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(items) {
			return n - 1, nil
		}
		fmt.Fprintf(w, "%q is not one of the listed numbers\n", answer)
	}
	return -1, nil
}

// confirm asks a yes/no question; anything but y/yes is no.
func confirm(ctx context.Context, ios *iostreams.IOStreams, question string) (bool, error) {
	fmt.Fprintf(ios.ErrOut, "%s [y/N] ", termtext.Safe(question))
	line, err := readLine(ctx, ios)
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(ios.ErrOut)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

// editText lets the user edit text in $VISUAL or $EDITOR (else vi), in a
// temporary file under dir (inside CLAWDCODE_HOME: clawdcode writes
// nowhere else), removed afterwards. The editor gets the terminal.
func editText(ctx context.Context, dir, text string) (string, error) {
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "summary-*.md")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	// Through the shell, so that EDITOR="code --wait" works.
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", editor+` "$1"`, "editor", f.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w", editor, err)
	}
	b, err := os.ReadFile(f.Name())
	return string(b), err
}

package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
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

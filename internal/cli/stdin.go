package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/tokens"
)

// stdinBytesPerToken sizes what -p reads of stdin from the context window:
// text averages about 4 bytes a token, so more than 4 bytes per token of
// the window could never be sent whole, and reading it only costs time and
// memory (a 13 MB stdin took 30 s and 1.2 GB before it was bounded).
const stdinBytesPerToken = 4

// Bounds of stdinLimit, whatever the window says.
const (
	minStdinBytes = 256 << 10
	maxStdinBytes = 8 << 20
)

// stdinLimit is how many bytes of stdin -p takes into the prompt for a
// window of that many tokens (0 = unknown: tokens.FallbackWindow's share).
func stdinLimit(window int) int {
	if window <= 0 {
		window = tokens.FallbackWindow
	}
	return min(maxStdinBytes, max(minStdinBytes, window*stdinBytesPerToken))
}

// readStdin reads r up to limit bytes in the background, so an interrupt
// is not held up by a writer that never closes the pipe, and a writer that
// never stops (`yes | clawdcode -p …`) cannot hold the run either. A read
// error (stdin closed by the parent) ends the input like EOF. When there
// was more than limit, cut says so: the text ends at the last line end
// within the limit (or the last whole character), and the rest is not read.
func readStdin(ctx context.Context, r io.Reader, limit int) (text string, cut bool, err error) {
	type read struct {
		s   string
		cut bool
	}
	done := make(chan read, 1)
	go func() {
		var b strings.Builder
		n, _ := io.Copy(&b, io.LimitReader(r, int64(limit)+1))
		if n <= int64(limit) {
			done <- read{s: b.String()}
			return
		}
		done <- read{s: cutText(b.String()[:limit]), cut: true}
	}()
	select {
	case <-ctx.Done():
		return "", false, context.Cause(ctx)
	case rd := <-done:
		return rd.s, rd.cut, nil
	}
}

// cutText ends s at its last line end, when one is in its last quarter,
// else at its last whole UTF-8 character.
func cutText(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= len(s)*3/4 {
		return s[:i+1]
	}
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// stdinCutMarker ends a stdin that was cut, in the prompt, so the model
// knows the text stops there and why.
func stdinCutMarker(limit int) string {
	return fmt.Sprintf("\n[clawdcode: stdin was cut here: it is longer than the %s that -p reads (4 bytes per token of the context window); the rest was not read]", sizeText(limit))
}

// sizeText is a byte count as a person reads it.
func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

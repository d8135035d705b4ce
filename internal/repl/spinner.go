package repl

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// spinner animates one status line on a terminal while nothing else is
// being printed. Stop erases the line and returns only after the animating
// goroutine has finished writing, so output that follows never interleaves
// with a frame. A nil *spinner (not a terminal) does nothing.
type spinner struct {
	w        io.Writer
	width    func() int
	interval time.Duration

	mu   sync.Mutex
	stop chan struct{}
	done chan struct{}
	// note is a dim line drawn under the frame while it is not empty: what
	// the user typed ahead during the turn ("queued: …").
	note string
	// rows, when set, gives lines drawn between the frame and the note
	// (the running subagents' board), each fitting in width-1 columns.
	rows func(width int) []string
}

// SetRows draws rows(width) under the frame from the next frame on (nil:
// none). Like the note, it outlives Stop and Start.
func (s *spinner) SetRows(rows func(width int) []string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.rows = rows
	s.mu.Unlock()
}

// SetNote shows note on a line under the spinner from the next frame on
// ("" removes it). It outlives Stop and Start: the turn's spinner keeps it.
func (s *spinner) SetNote(note string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.note = note
	s.mu.Unlock()
}

// below are the rows drawn under the frame: the board's, then the note.
func (s *spinner) below(width int) []string {
	s.mu.Lock()
	rows, note := s.rows, s.note
	s.mu.Unlock()
	var out []string
	if rows != nil {
		out = rows(width)
	}
	if note != "" {
		out = append(out, dim(clipWidth(note, width-1)))
	}
	return out
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newSpinner(w io.Writer, width func() int) *spinner {
	return &spinner{w: w, width: width, interval: 100 * time.Millisecond}
}

// Start shows label until Stop or ctxDone is closed (the turn's ctx.Done());
// a running spinner is replaced.
func (s *spinner) Start(ctxDone <-chan struct{}, label string) {
	if s == nil {
		return
	}
	s.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	stop, finished := make(chan struct{}), make(chan struct{})
	s.stop, s.done = stop, finished
	go s.run(ctxDone, label, stop, finished)
}

// Stop erases the spinner line; it is safe to call when not running.
func (s *spinner) Stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	stop, done := s.stop, s.done
	s.stop, s.done = nil, nil
	s.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-done
}

func (s *spinner) run(ctxDone <-chan struct{}, label string, stop, done chan struct{}) {
	defer close(done)
	start := time.Now()
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	drawn, under := false, 0 // under: rows drawn below the frame
	for frame := 0; ; frame++ {
		select {
		case <-stop:
		case <-ctxDone:
		case <-tick.C:
			// The first frame waits one interval: fast answers never flash a spinner.
			elapsed := time.Since(start).Truncate(time.Second)
			width := s.width()
			out := "\r\x1b[2K" + spinnerFrame(spinnerFrames[frame%len(spinnerFrames)], label, elapsed, width)
			rows := s.below(width)
			fmt.Fprint(s.w, out+redrawBelow(rows, under))
			drawn, under = true, len(rows)
			continue
		}
		if drawn {
			fmt.Fprint(s.w, "\r\x1b[2K"+redrawBelow(nil, under))
		}
		return
	}
}

// redrawBelow draws rows on the lines under the frame, clears the rest of
// the before rows drawn last time, and takes the cursor back up to the
// frame's row, where the next frame and the output start.
func redrawBelow(rows []string, before int) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("\n\x1b[2K" + r)
	}
	for range before - len(rows) {
		b.WriteString("\n\x1b[2K")
	}
	if n := max(len(rows), before); n > 0 {
		fmt.Fprintf(&b, "\x1b[%dA\r", n)
	}
	return b.String()
}

func dim(s string) string { return styleDim + s + styleNormal }

// spinnerFrame is one frame that fits in width-1 columns, so that it never
// wraps: a wrapped frame would leave a row behind on every redraw. The
// hint goes first, then the label is shortened.
func spinnerFrame(glyph, label string, elapsed time.Duration, width int) string {
	room := width - 1
	head := glyph + " " + label + "…"
	hint := fmt.Sprintf(" (%s · esc to interrupt)", elapsed)
	if visibleWidth(head+hint) > room {
		hint = fmt.Sprintf(" (%s)", elapsed)
	}
	if visibleWidth(head+hint) > room {
		hint = ""
	}
	head = clipWidth(head, room)
	return styleCode + head + styleFgReset + dim(hint)
}

package repl

import (
	"fmt"
	"io"
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

func (s *spinner) currentNote() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.note
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
	drawn, noted := false, false
	for frame := 0; ; frame++ {
		select {
		case <-stop:
		case <-ctxDone:
		case <-tick.C:
			// The first frame waits one interval: fast answers never flash a spinner.
			elapsed := time.Since(start).Truncate(time.Second)
			width := s.width()
			out := "\r\x1b[2K" + spinnerFrame(spinnerFrames[frame%len(spinnerFrames)], label, elapsed, width)
			note := s.currentNote()
			switch {
			case note != "":
				// The note's row is below the frame's; the cursor goes back up
				// to the frame, where the next frame and the output start.
				out += "\n\x1b[2K" + dim(clipWidth(note, width-1)) + "\x1b[1A\r"
				noted = true
			case noted:
				out += "\n\x1b[2K\x1b[1A\r"
				noted = false
			}
			fmt.Fprint(s.w, out)
			drawn = true
			continue
		}
		switch {
		case noted:
			fmt.Fprint(s.w, "\r\x1b[2K\n\x1b[2K\x1b[1A\r")
		case drawn:
			fmt.Fprint(s.w, "\r\x1b[2K")
		}
		return
	}
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

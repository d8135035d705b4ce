package repl

import (
	"context"
	"io"
	"os"
)

// handOver gives the terminal to another program (an editor): the keyboard
// stops reading, so it cannot take that program's keys, and the terminal
// leaves the REPL's input mode. resume takes it back; call it once.
func (s *termSource) handOver() (resume func() error) {
	s.stop()
	<-s.done
	io.WriteString(s.ios.Out, modesOff)
	s.raw.restore()
	return func() error {
		raw, err := enterRaw(s.ios.StdinFd())
		if err != nil {
			return err
		}
		s.raw = raw
		io.WriteString(s.ios.Out, modesOn)
		s.kb.clearEnd()
		s.start()
		return nil
	}
}

// start runs the keyboard and follows the terminal's size until stop.
func (s *termSource) start() {
	ctx, stop := context.WithCancel(context.Background())
	s.stop, s.done = stop, make(chan struct{})
	winch := make(chan os.Signal, 1)
	stopWinch := notifyResize(winch)
	go func() {
		defer close(s.done)
		s.kb.run(ctx)
	}()
	go func() {
		defer stopWinch()
		for {
			select {
			case <-winch:
				s.kb.resized()
			case <-ctx.Done():
				return
			}
		}
	}()
}

// clearEnd forgets why input ended when the reader was stopped on purpose
// (handOver), so that the restarted reader's keys are read again.
func (k *keyboard) clearEnd() {
	k.mu.Lock()
	k.err = nil
	k.signal()
	k.mu.Unlock()
}

package repl

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"time"
)

// escWait is how long a lone ESC byte waits for the rest of a sequence
// before it counts as the Escape key.
const escWait = 30 * time.Millisecond

// keyboard is the one reader of a terminal's input for the whole of a Run.
// Its goroutine decodes keys and routes them: while a turn (or a command)
// runs, Esc and Ctrl-C cancel it and Ctrl-O shows the last tool output at
// once, and every other key waits in the queue for the next prompt
// (typed-ahead input, previewed under the spinner through turnKeys.typed);
// while a dialog asks, its keys go to the dialog and the typed-ahead keys
// are kept aside. The editor, dialogs and
// pickers take keys with next, one consumer at a time.
type keyboard struct {
	fd int
	in io.Reader

	mu      sync.Mutex
	queue   []key
	wake    chan struct{} // closed and replaced when queue or err changes
	err     error         // why input ended
	turn    *turnKeys     // the running entry, if any
	dialog  int           // dialogs open (nested: a picker inside a command)
	stashed [][]key       // typed-ahead keys kept aside per open dialog
}

// turnKeys are what keys do while an entry runs.
type turnKeys struct {
	cancel func()
	expand func() // Ctrl-O; nil: nothing to expand
	// typed is told what was typed ahead so far, as text, after each key
	// that waits for the prompt; nil: not shown.
	typed func(preview string)
}

func newKeyboard(fd int, in io.Reader) *keyboard {
	return &keyboard{fd: fd, in: in, wake: make(chan struct{})}
}

// run reads until ctx ends or the input does.
func (k *keyboard) run(ctx context.Context) {
	var dec keyDecoder
	buf := make([]byte, 4096)
	for {
		if err := waitReadable(ctx, k.fd); err != nil {
			k.fail(err)
			return
		}
		n, err := k.in.Read(buf)
		dec.feed(buf[:n], k.deliver)
		for dec.incomplete() && err == nil {
			if !readableWithin(k.fd, escWait) {
				dec.flush(k.deliver)
				break
			}
			n, err = k.in.Read(buf)
			dec.feed(buf[:n], k.deliver)
		}
		if err != nil {
			dec.flush(k.deliver)
			if errors.Is(err, io.EOF) {
				k.fail(io.EOF)
			} else {
				k.fail(err)
			}
			return
		}
	}
}

func (k *keyboard) fail(err error) {
	k.mu.Lock()
	if k.err == nil {
		k.err = err
	}
	k.signal()
	k.mu.Unlock()
}

// signal wakes a waiting next; k.mu is held.
func (k *keyboard) signal() {
	close(k.wake)
	k.wake = make(chan struct{})
}

func (k *keyboard) deliver(c key) {
	k.mu.Lock()
	turn, inDialog := k.turn, k.dialog > 0
	interrupt := c.kind == keyEsc || (c.kind == keyCtrl && c.r == 'c')
	switch {
	case turn != nil && !inDialog && interrupt:
		k.mu.Unlock()
		turn.cancel()
		return
	case turn != nil && !inDialog && c.kind == keyCtrl && c.r == 'o':
		k.mu.Unlock()
		if turn.expand != nil {
			turn.expand()
		}
		return
	case turn != nil && inDialog && c.kind == keyCtrl && c.r == 'c':
		// Ctrl-C in a dialog ends the whole entry, as it does outside one.
		k.queue = append(k.queue, c)
		k.signal()
		k.mu.Unlock()
		turn.cancel()
		return
	}
	k.queue = append(k.queue, c)
	k.signal()
	var preview string
	show := turn != nil && !inDialog && turn.typed != nil
	if show {
		preview = typedPreview(k.queue)
	}
	k.mu.Unlock()
	if show {
		turn.typed(preview)
	}
}

// typedPreview is the text that keys typed ahead will put in the entry,
// as far as the editing keys among them can be told without the editor:
// characters and pastes, newlines as ↵, Backspace and Ctrl-W undone.
func typedPreview(keys []key) string {
	var r []rune
	for _, k := range keys {
		switch k.kind {
		case keyRune:
			r = append(r, k.r)
		case keyPaste:
			r = append(r, []rune(strings.ReplaceAll(k.text, "\n", "↵"))...)
		case keyNewline, keyEnter:
			r = append(r, '↵')
		case keyBackspace:
			r = r[:max(len(r)-1, 0)]
		case keyWordBack:
			word := strings.TrimRight(string(r), " ")
			r = []rune(word[:strings.LastIndex(word, " ")+1])
		}
	}
	return string(r)
}

// resized tells an idle editor to redraw at the new width; a turn or a
// dialog draws at the width of the moment anyway.
func (k *keyboard) resized() { k.redraw() }

// redraw tells an idle editor to draw its entry and status line again
// (the terminal was resized, an MCP server's state changed).
func (k *keyboard) redraw() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.turn != nil || k.dialog > 0 {
		return
	}
	for _, q := range k.queue {
		if q.kind == keyResize {
			return // one redraw is enough
		}
	}
	k.queue = append(k.queue, key{kind: keyResize})
	k.signal()
}

// next returns the next key, or the input's end (io.EOF) or ctx's error.
func (k *keyboard) next(ctx context.Context) (key, error) {
	for {
		k.mu.Lock()
		if len(k.queue) > 0 {
			c := k.queue[0]
			k.queue = k.queue[1:]
			k.mu.Unlock()
			return c, nil
		}
		err, wake := k.err, k.wake
		k.mu.Unlock()
		if err != nil {
			return key{}, err
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return key{}, ctx.Err()
		}
	}
}

// beginTurn routes keys to the running entry until endTurn.
func (k *keyboard) beginTurn(t *turnKeys) {
	k.mu.Lock()
	k.turn = t
	k.mu.Unlock()
}

func (k *keyboard) endTurn() {
	k.mu.Lock()
	k.turn = nil
	k.mu.Unlock()
}

// beginDialog gives the following keys to a dialog; what was typed ahead
// waits for the prompt instead of answering the dialog by accident.
func (k *keyboard) beginDialog() {
	k.mu.Lock()
	k.stashed = append(k.stashed, k.queue)
	k.queue = nil
	k.dialog++
	k.mu.Unlock()
}

func (k *keyboard) endDialog() {
	k.mu.Lock()
	if k.dialog > 0 {
		k.dialog--
		k.queue = k.stashed[len(k.stashed)-1]
		k.stashed = k.stashed[:len(k.stashed)-1]
	}
	k.mu.Unlock()
}

package secrets

import (
	"bytes"
	"io"
)

// Writer passes what is written to it on with every secret its Redactor
// knows replaced. It holds back the last unfinished line (a secret never
// spans lines: values are trimmed, and a line break ends one), so a secret
// split across two writes is still caught; Flush sends what is held.
type Writer struct {
	r    *Redactor
	w    io.Writer
	held []byte
}

// Writer returns a Writer onto w. With a nil or empty Redactor it still
// holds lines back, so callers Flush it the same way.
func (r *Redactor) Writer(w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Write sends the complete lines of what was written so far, redacted.
func (w *Writer) Write(p []byte) (int, error) {
	w.held = append(w.held, p...)
	i := bytes.LastIndexByte(w.held, '\n')
	if i < 0 {
		return len(p), nil
	}
	line := w.held[:i+1]
	_, err := w.w.Write(w.r.Redact(line))
	w.held = append(w.held[:0], w.held[i+1:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush sends the unfinished line held back, redacted.
func (w *Writer) Flush() error {
	if len(w.held) == 0 {
		return nil
	}
	_, err := w.w.Write(w.r.Redact(w.held))
	w.held = w.held[:0]
	return err
}

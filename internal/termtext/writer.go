package termtext

import "io"

// Writer passes everything written to it on to a terminal made safe (see
// Safe). A write may be held back by a few bytes (a trailing carriage
// return, an incomplete character) until the next write or Flush; call
// Flush at the end. It is not safe for concurrent use.
type Writer struct {
	w  io.Writer
	st Stream
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write makes p safe and writes it on. It reports len(p) on success: the
// caller's bytes were all taken, whatever the visible form's length.
func (t *Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, t.st.Next(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what earlier writes held back.
func (t *Writer) Flush() error {
	_, err := io.WriteString(t.w, t.st.Flush())
	return err
}

package termtext

import "io"

// Writer passes everything written to it on to a terminal made safe (see
// Safe). A write may be held back by a few bytes (a trailing carriage
// return, an incomplete character) until the next write or Flush; call
// Flush at the end. It is not safe for concurrent use.
type Writer struct {
	w    io.Writer
	st   Stream
	data bool // pass the bytes on as they are
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// For returns a Writer to w that makes the text safe when w is a terminal
// and passes it on byte for byte when it is not: the one rule for output
// that is data when redirected (an answer written to a file, a transcript
// piped on) and read when shown. iostreams.IOStreams.TermOut applies it.
func For(w io.Writer, terminal bool) *Writer { return &Writer{w: w, data: !terminal} }

// Write makes p safe and writes it on. It reports len(p) on success: the
// caller's bytes were all taken, whatever the visible form's length.
func (t *Writer) Write(p []byte) (int, error) {
	if t.data {
		return t.w.Write(p)
	}
	if _, err := io.WriteString(t.w, t.st.Next(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what earlier writes held back.
func (t *Writer) Flush() error {
	if t.data {
		return nil
	}
	_, err := io.WriteString(t.w, t.st.Flush())
	return err
}

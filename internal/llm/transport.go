package llm

import (
	"bufio"
	"context"
	"io"
	"net/http"
)

// attemptState is what the HTTP layer learns about one attempt that
// go-openai does not pass on: the response headers (Retry-After lives
// there, and go-openai's APIError drops them) and a heartbeat for the idle
// timer. It travels in the request's context; Do runs on the caller's
// goroutine, so header and status need no lock.
type attemptState struct {
	header http.Header
	status int
	touch  func() // called whenever bytes arrive from the server
	// head is the start of a 2xx body as the server sent it (before the
	// SSE filter), to tell an answer that is no event stream at all from
	// a stream that was cut.
	head []byte
}

// headSize is how much of a 2xx body attemptState keeps.
const headSize = 256

type attemptKey struct{}

func withAttempt(ctx context.Context, st *attemptState) context.Context {
	return context.WithValue(ctx, attemptKey{}, st)
}

// observingDoer wraps the caller's *http.Client (go-openai accepts any
// Doer), so the client itself is never modified.
type observingDoer struct {
	client *http.Client
}

func (d observingDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(req)
	st, _ := req.Context().Value(attemptKey{}).(*attemptState)
	if err != nil || st == nil {
		return resp, err
	}
	st.header = resp.Header
	st.status = resp.StatusCode
	st.touch()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		resp.Body = newSSEFilter(resp.Body, st)
	}
	return resp, nil
}

// sseFilter drops SSE comment lines (": OPENROUTER PROCESSING") from a
// response body and collapses the blank lines around them to one.
// go-openai counts every line that is not "data:" as an empty message,
// keeps its text in an error buffer that only grows, and aborts the stream
// after 300 of them in a row — so a long wait filled with keep-alives would
// kill a healthy stream. One blank line after each event is kept: go-openai
// needs the line after a `data: {"error":…}` event to report the error
// without waiting for more. Other non-data lines pass through, so a server
// that answers a stream request with a plain JSON error body still reaches
// go-openai's error decoding.
//
// The filter streams byte by byte through a bufio.Reader and never holds a
// whole line, so arbitrarily long data lines cost no extra memory.
type sseFilter struct {
	r           *bufio.Reader
	body        io.Closer
	atLineStart bool
	skipping    bool // inside a comment line
	lastBlank   bool // the last line let through was blank (or none was yet)
	err         error
}

func newSSEFilter(body io.ReadCloser, st *attemptState) *sseFilter {
	return &sseFilter{
		r:           bufio.NewReader(touchReader{body, st}),
		body:        body,
		atLineStart: true,
		lastBlank:   true,
	}
}

func (f *sseFilter) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		// Hand back what we have rather than block for more.
		if n > 0 && f.r.Buffered() == 0 {
			break
		}
		if f.err != nil {
			break
		}
		b, err := f.r.ReadByte()
		if err != nil {
			f.err = err
			break
		}
		switch {
		case f.skipping:
			if b == '\n' {
				f.skipping = false
				f.atLineStart = true
			}
		case f.atLineStart && b == ':':
			f.skipping = true
		case f.atLineStart && b == '\r':
			// the CR of a CRLF line ending; go-openai trims it anyway
		case f.atLineStart && b == '\n':
			if !f.lastBlank {
				p[n] = b
				n++
				f.lastBlank = true
			}
		default:
			p[n] = b
			n++
			f.atLineStart = b == '\n'
			f.lastBlank = false
		}
	}
	if n > 0 {
		return n, nil
	}
	return 0, f.err
}

func (f *sseFilter) Close() error { return f.body.Close() }

// touchReader tells the attempt of every byte that arrives (the idle
// timer) and keeps the first headSize of them.
type touchReader struct {
	r  io.Reader
	st *attemptState
}

func (t touchReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		if room := headSize - len(t.st.head); room > 0 {
			t.st.head = append(t.st.head, p[:min(n, room)]...)
		}
		t.st.touch()
	}
	return n, err
}

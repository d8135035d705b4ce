package llm

import (
	"context"
	"io"
	"net/http"
)

// attemptState is what the HTTP layer learns about one streaming attempt:
// the response headers (Retry-After lives there), the status, the start of
// the body, and a heartbeat for the idle timer. It travels in the request's context; Do runs on the caller's
// goroutine, so header and status need no lock.
type attemptState struct {
	header http.Header
	status int
	touch  func() // called when the response arrives and for each event of the reply
	// head is the start of a 2xx body as the server sent it, to tell an answer that is no event stream at all from
	// a stream that was cut.
	head []byte
}

// headSize is how much of a 2xx body attemptState keeps: enough for a web
// page's <title> after its <head>'s usual meta and link tags.
const headSize = 4 << 10

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
		resp.Body = headReader{resp.Body, st}
	}
	return resp, nil
}

// headReader keeps the first headSize bytes of a 2xx body in the
// attempt's state. It does not touch the idle timer: bytes are not
// content (a stream of keep-alives is all bytes), so the stream reader
// touches it for each event that carries the reply.
type headReader struct {
	io.ReadCloser
	st *attemptState
}

func (h headReader) Read(p []byte) (int, error) {
	n, err := h.ReadCloser.Read(p)
	if room := headSize - len(h.st.head); n > 0 && room > 0 {
		h.st.head = append(h.st.head, p[:min(n, room)]...)
	}
	return n, err
}

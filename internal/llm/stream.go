package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// wireDecoder turns one wire API's stream events into a reply: the chat
// completions chunks (chatDecoder) or the Responses API's typed events
// (responsesDecoder). Everything else about a stream — the request, the
// timers, the bounds and how a stream that did not complete is classified
// — is streamAttempt's, the same for both.
type wireDecoder interface {
	// event folds one event in. A failure the event reports (an error
	// event, a chunk that is not JSON) is returned as an *Error.
	event(ev sseEvent) (step, error)
	// finished reports whether the reply came to its end (a finish
	// reason, response.completed): only then is there a Response.
	finished() bool
	// size is the bytes of text and tool calls received, for the bound.
	size() int
	response() *Response
}

// step is what one event did.
type step struct {
	text string // to show the user at once
	// reasoning is the model's reasoning the event carried, shown as it
	// comes and never part of the reply.
	reasoning string
	content   bool // the event carried the reply (a keep-alive does not)
	end       bool // nothing more is to be read ([DONE], response.completed)
}

// keepAliveEvents are the event names servers and proxies send to keep a
// stream open; like SSE comments they carry nothing and reset nothing.
var keepAliveEvents = map[string]bool{"ping": true, "keepalive": true, "keep-alive": true}

// streamAttempt makes one streaming POST to path and reads its events to
// the end through dec. It returns a Response only for a finished reply;
// every failure is an *Error, except the caller's cancellation (ctx's
// error). The idle timer counts content only: keep-alives — SSE comments,
// ping events — hold no attempt past IdleTimeout.
func (c *Client) streamAttempt(ctx context.Context, path string, body *body, dec wireDecoder, bound replyBound, onDelta func(Delta)) (*Response, error) {
	a := c.beginAttempt(ctx)
	defer a.stop()
	resp, err := c.post(a.ctx, path, body)
	if err != nil {
		return nil, c.requestOutcome(ctx, a, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, httpError(resp)
	}
	r := newSSEReader(resp.Body)
	events, emitted := 0, false
	for {
		ev, err := r.next()
		if err != nil {
			if dec.finished() && !a.idled.Load() {
				// The reply was complete; only the usage chunk or [DONE]
				// was lost, and the reply is worth more than its count.
				return dec.response(), nil
			}
			return nil, c.streamOutcome(ctx, a, r, events, emitted, err)
		}
		if keepAliveEvents[ev.name] {
			continue
		}
		s, err := dec.event(ev)
		if err != nil {
			return nil, partial(err, emitted)
		}
		if s.content {
			a.st.touch()
			events++
			if le := bound.check(dec.size(), events); le != nil {
				return nil, partial(le, emitted)
			}
		}
		if s.reasoning != "" && onDelta != nil {
			onDelta(Delta{Reasoning: s.reasoning})
		}
		if s.text != "" {
			emitted = true
			if onDelta != nil {
				onDelta(Delta{Content: s.text})
			}
		}
		if s.end {
			break
		}
	}
	if !dec.finished() {
		return nil, c.streamOutcome(ctx, a, r, events, emitted, io.EOF)
	}
	return dec.response(), nil
}

// partial marks an attempt's *Error with whether text had been shown.
func partial(err error, emitted bool) error {
	var le *Error
	if errors.As(err, &le) {
		le.Partial = emitted
	}
	return err
}

// post sends one streaming request of the JSON body to c.base+path. The
// body's length is known, and so is how to read it again should the HTTP
// client have to resend it.
func (c *Client) post(ctx context.Context, path string, body *body) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, body.reader())
	if err != nil {
		return nil, err
	}
	hreq.ContentLength = body.size
	hreq.GetBody = func() (io.ReadCloser, error) { return body.reader(), nil }
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	hreq.Header.Set("Cache-Control", "no-cache")
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	return c.doer.Do(hreq)
}

// httpError is the *Error of a failure response, whichever envelope its
// body uses.
func httpError(resp *http.Response) *Error {
	raw := readHead(resp.Body, 1<<20)
	se := parseErrorBody(raw)
	se.status = resp.StatusCode
	if se.message == "" {
		se.message = http.StatusText(resp.StatusCode)
	}
	if page, ok := webPage(resp.Header.Get("Content-Type"), raw); ok {
		e := webPageError(resp.StatusCode, kindOf(se), page)
		e.RetryAfter = retryAfter(resp.Header, time.Now())
		return e
	}
	return &Error{Kind: kindOf(se), StatusCode: se.status, Message: se.message, Code: se.code,
		RetryAfter: retryAfter(resp.Header, time.Now())}
}

// eventError is the *Error of an error reported inside a 200 stream
// ({"error": …}). OpenRouter and vLLM put the HTTP status in an integer
// code; inside a 200 stream that is the only status there is.
func eventError(data []byte) *Error {
	se := parseErrorBody(data)
	if n, err := strconv.Atoi(se.code); err == nil && n >= 400 && n < 600 {
		se.status = n
	}
	return &Error{Kind: kindOf(se), StatusCode: se.status, Message: se.message, Code: se.code}
}

// isErrorEnvelope reports whether data is a JSON object with an "error".
func isErrorEnvelope(data []byte) bool {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	return json.Unmarshal(data, &env) == nil && len(env.Error) > 0 && string(env.Error) != "null"
}

// requestOutcome classifies an attempt that got no response: its own
// timers (total time, idle), the connection, or a request that could not
// be built.
func (c *Client) requestOutcome(ctx context.Context, a *attemptCtx, err error) error {
	switch {
	case a.clock.expired.Load() && ctx.Err() == nil:
		return overtime(c.maxTime)
	case a.idled.Load():
		// Err is the sentinel, not err: the attempt's own cancellation
		// shows as context.Canceled, which callers read as the user's.
		return &Error{Kind: KindNetwork, Message: fmt.Sprintf("no response from the server within %v", c.idle), Err: ErrIdleTimeout}
	case isNetworkError(err) || errors.Is(err, context.Canceled):
		return &Error{Kind: KindNetwork, Message: err.Error(), Err: err}
	}
	// The request itself could not be made; retrying cannot help.
	return &Error{Kind: KindBadRequest, Message: err.Error(), Err: err}
}

// streamOutcome is the one classification, for both wire APIs, of a 200
// stream that ended (err: io.EOF or the read's error) without a finished
// reply: the attempt ran out of time, went idle, was cancelled by the
// caller, met an event over maxEventBytes, was never an event stream (a
// JSON error body, a web page), or was cut.
func (c *Client) streamOutcome(ctx context.Context, a *attemptCtx, r *sseReader, events int, emitted bool, err error) error {
	var le *Error
	switch {
	case a.clock.expired.Load() && ctx.Err() == nil:
		le = overtime(c.maxTime)
	case a.idled.Load():
		le = &Error{Kind: KindNetwork, Message: fmt.Sprintf("the server sent nothing for %v in the middle of the reply", c.idle), Err: ErrIdleTimeout}
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, bufio.ErrTooLong):
		le = &Error{Kind: KindServer, Message: fmt.Sprintf("a stream event exceeded %d bytes", maxEventBytes), Err: err}
	case events == 0 && isErrorEnvelope(r.stray):
		le = eventError(r.stray) // a JSON error body on a 200 stream
	case events == 0 && notEventStream(a.st) != nil:
		return notEventStream(a.st)
	case errors.Is(err, io.EOF):
		msg := "the server closed the stream before the reply was complete"
		if events == 0 {
			msg = "the server closed the stream without sending a reply"
		}
		le = &Error{Kind: KindStreamCut, StatusCode: a.st.status, Message: msg, Err: io.ErrUnexpectedEOF}
	default:
		le = &Error{Kind: KindStreamCut, Message: fmt.Sprintf("the stream broke after %d events: %v", events, err), Err: err}
	}
	le.Partial = emitted
	return le
}

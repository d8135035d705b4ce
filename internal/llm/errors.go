package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrMissingAPIKey is returned by New when the endpoint is OpenAI's and no
// key was given. It names the variable the user has to set.
var ErrMissingAPIKey = errors.New("OPENAI_API_KEY is not set: the default endpoint " + DefaultBaseURL +
	" needs an API key (set OPENAI_BASE_URL to use a local server without one)")

// ErrIdleTimeout is wrapped by the KindNetwork *Error of an attempt that
// ended because the server sent nothing for Config.IdleTimeout. It is not
// a context error: the caller's context was not cancelled.
var ErrIdleTimeout = errors.New("idle timeout")

// Kind classifies an error from the server.
type Kind int

const (
	KindUnknown    Kind = iota
	KindOverflow        // the request does not fit the model's context window
	KindRateLimit       // 429 rate limit (retried)
	KindQuota           // insufficient_quota / billing (not retried)
	KindAuth            // 401/403 (not retried)
	KindServer          // 5xx, mid-stream server error (retried)
	KindBadRequest      // other 4xx
	KindStreamCut       // the stream ended before the reply was complete
	KindNetwork         // connection errors, timeouts
	// KindNotStream is a 2xx answer that is not an event stream at all (a
	// proxy's or web UI's HTML page, a JSON body): the base URL is most
	// likely not an OpenAI-compatible endpoint. Not retried — like a 404
	// from a wrong base path, asking again gets the same page.
	KindNotStream
	// KindNotAPI is an answer that is a web page (webpage.go): the base
	// URL names a web server, not an OpenAI-compatible API — most often
	// its /v1 is missing. Not retried.
	KindNotAPI
)

var kindNames = [...]string{
	KindUnknown:    "unknown",
	KindOverflow:   "overflow",
	KindRateLimit:  "rate_limit",
	KindQuota:      "quota",
	KindAuth:       "auth",
	KindServer:     "server",
	KindBadRequest: "bad_request",
	KindStreamCut:  "stream_cut",
	KindNetwork:    "network",
	KindNotStream:  "not_stream",
	KindNotAPI:     "not_api",
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// retryable reports whether another attempt can reasonably succeed.
func (k Kind) retryable() bool {
	switch k {
	case KindRateLimit, KindServer, KindNetwork, KindStreamCut:
		return true
	}
	return false
}

// Error is a classified LLM error.
type Error struct {
	Kind       Kind
	StatusCode int    // HTTP status; 0 for errors inside a 200 stream or without a response
	Message    string // the server's own message (or a description when there is none)
	Code       string // the server's error code ("context_length_exceeded", "400", …) when it sent one
	RetryAfter time.Duration
	// Attempts is how many requests were made before giving up.
	Attempts int
	// Partial is set when text had already been passed to onDelta in the
	// attempt that failed: the user saw an unfinished reply.
	Partial bool
	Err     error
}

// Error renders a one-line message for the user: what went wrong, the
// status, the server's words, and a hint where one helps.
func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "the server gave no reason"
	}
	var s string
	status := ""
	if e.StatusCode != 0 {
		status = fmt.Sprintf(" (%d)", e.StatusCode)
	}
	switch e.Kind {
	case KindOverflow:
		s = "context window exceeded" + status + ": " + msg
	case KindRateLimit:
		s = "rate limited" + status + ": " + msg
	case KindQuota:
		s = "quota exceeded" + status + ": " + msg + "; check the plan and billing of this API key"
	case KindAuth:
		s = "authentication failed" + status + ": " + msg + "; check OPENAI_API_KEY"
	case KindServer:
		s = "server error" + status + ": " + msg
	case KindBadRequest:
		s = "request rejected" + status + ": " + msg
	case KindStreamCut:
		s = "stream cut: " + msg
	case KindNetwork:
		s = "network error: " + msg
	case KindNotAPI:
		s = msg
	case KindNotStream:
		s = msg
		if e.Attempts > 1 {
			s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
		}
		return s + " — is OPENAI_BASE_URL an OpenAI-compatible /v1 endpoint?"
	default:
		s = msg
		if status != "" {
			s = "error" + status + ": " + msg
		}
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// IsOverflow reports whether err (anywhere in its chain) is a context-overflow error.
func IsOverflow(err error) bool { return IsKind(err, KindOverflow) }

// IsKind reports whether err (anywhere in its chain) is an *Error of kind k.
func IsKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

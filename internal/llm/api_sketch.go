package llm

// THIS FILE IS THE AGREED API SKETCH. The llm helper replaces the bodies (and
// may split the file); the signatures are what other packages compile against.

import (
	"context"
	"net/http"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// DefaultBaseURL is OpenAI's endpoint; with it an API key is required.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures the OpenAI-compatible client.
type Config struct {
	BaseURL    string       // OPENAI_BASE_URL; DefaultBaseURL when empty
	APIKey     string       // OPENAI_API_KEY
	HTTPClient *http.Client // nil = a default client with sane timeouts
	Retry      RetryPolicy  // zero = DefaultRetryPolicy
}

// RetryPolicy bounds retries of rate-limit (429), 5xx and mid-stream server errors.
type RetryPolicy struct {
	MaxAttempts int           // total attempts including the first
	BaseDelay   time.Duration // first backoff
	MaxDelay    time.Duration // cap for backoff and for Retry-After
	Sleep       func(ctx context.Context, d time.Duration) error // nil = real sleep honouring ctx
}

// Request is one chat-completions call.
type Request struct {
	Model               string
	Messages            []chat.Message
	Tools               []chat.ToolDef
	MaxCompletionTokens int // 0 = not sent
}

// Response is a complete, fully-received reply. A stream that ends without
// a finish (cut) never yields a Response: it yields an *Error of KindStreamCut.
type Response struct {
	Content      string
	ToolCalls    []chat.ToolCall
	FinishReason string
	Model        string
	Usage        Usage // zero when the server did not report usage
}

// Usage as reported by the server (stream_options.include_usage).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Delta is streamed output as it arrives: text for the user to see.
type Delta struct {
	Content string
}

// Client is the OpenAI-compatible adapter (go-openai inside).
type Client struct{}

// New builds the client. With the default base URL and no API key it returns
// ErrMissingAPIKey before any network call.
func New(cfg Config) (*Client, error) { panic("unimplemented") }

// Stream sends req with streaming and include_usage, calls onDelta for text
// as it arrives, accumulates tool-call deltas by index, retries per the
// policy, and returns the complete reply or a classified *Error.
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	panic("unimplemented")
}

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
)

// Error is a classified LLM error.
type Error struct {
	Kind       Kind
	StatusCode int
	Message    string // the server's message, for the user
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// IsOverflow reports whether err (anywhere in its chain) is a context-overflow error.
func IsOverflow(err error) bool { panic("unimplemented") }

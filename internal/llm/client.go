package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// DefaultBaseURL is OpenAI's endpoint; with it an API key is required.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultIdleTimeout is how long an attempt may go without a response from
// the server, or without an event of the reply once it streams (keep-alives
// do not count). Reasoning
// models can think for a long while before the first token, and some
// servers send no keep-alives while they do.
const DefaultIdleTimeout = 120 * time.Second

// maxTimeoutRetries bounds the retries of attempts that timed out,
// whatever RetryPolicy.MaxAttempts allows: a server that said nothing for
// a whole IdleTimeout twice in a row is hung, not busy, and each further
// try would cost the user another IdleTimeout.
const maxTimeoutRetries = 1

// Config configures the OpenAI-compatible client.
type Config struct {
	BaseURL    string       // OPENAI_BASE_URL; DefaultBaseURL when empty
	APIKey     string       // OPENAI_API_KEY
	HTTPClient *http.Client // nil = a default client with sane timeouts
	Retry      RetryPolicy  // zero = DefaultRetryPolicy
	// IdleTimeout ends an attempt (as a KindNetwork error wrapping
	// ErrIdleTimeout) when the server sends nothing of its answer for this
	// long (keep-alives are nothing). 0 =
	// DefaultIdleTimeout. A timed-out attempt is retried once at most.
	IdleTimeout time.Duration
	// MaxReplyTime ends an attempt still streaming after this long (an
	// error wrapping ErrReplyTooLong, not retried). 0 = DefaultMaxReplyTime.
	MaxReplyTime time.Duration
	// MaxReplyBytes bounds what a reply may stream when the request sets
	// no max tokens (and caps the bound when it does). 0 = DefaultMaxReplyBytes.
	MaxReplyBytes int
	// WireAPI is WireChat (the default when empty) or WireResponses.
	WireAPI string
	// Logger receives one record per attempt (model, sizes, timing,
	// status, token counts — never a body or the key) and one per retry;
	// nil = none.
	Logger *slog.Logger
}

// Request is one chat-completions call.
type Request struct {
	Model               string
	Messages            []chat.Message
	Tools               []chat.ToolDef
	MaxCompletionTokens int // 0 = not sent
	// ToolChoice is ToolChoiceNone to offer Tools without letting the
	// model call one ("" = not sent: the model may call any): a request
	// that shares the agent's prefix (its tools included, so a prompt
	// cache serves it) but wants text only.
	ToolChoice string
}

// ToolChoiceNone is Request.ToolChoice's "no tool calls".
const ToolChoiceNone = "none"

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
	// CachedTokens is the part of PromptTokens the server served from
	// its prompt cache, when it says.
	CachedTokens int
}

// Delta is streamed output as it arrives: text for the user to see.
type Delta struct {
	Content string
	// Reasoning is the model's reasoning as it streams, for a front end
	// to show apart from the answer (a thought); it is never part of the
	// Response. Servers send it as reasoning_content (DeepSeek, vLLM,
	// xAI), reasoning (OpenRouter, Ollama) or, on the Responses API, as
	// reasoning text and summary events.
	Reasoning string
	// Retry, when set, says that the attempt failed and another follows
	// after a wait: a delta carrying no text, so a front end can tell the
	// user instead of falling silent.
	Retry *Retry
}

// Retry describes a retry about to happen.
type Retry struct {
	Kind        Kind
	StatusCode  int
	Wait        time.Duration
	Attempt     int // the attempt about to be made, from 2
	MaxAttempts int
}

// String is the notice a user reads: "rate limited, retrying in 2 s (2/4)".
func (r Retry) String() string {
	why := "request failed"
	switch r.Kind {
	case KindRateLimit:
		why = "rate limited"
	case KindServer:
		why = "server error"
		if r.StatusCode > 0 {
			why = fmt.Sprintf("server error %d", r.StatusCode)
		}
	case KindNetwork:
		why = "network error"
	case KindStreamCut:
		why = "the answer was cut off"
	}
	secs := int((r.Wait + time.Second/2) / time.Second)
	return fmt.Sprintf("%s, retrying in %d s (%d/%d)", why, secs, r.Attempt, r.MaxAttempts)
}

// Client is the OpenAI-compatible adapter (go-openai inside).
type Client struct {
	api   *openai.Client
	wire  string
	base  string
	key   string
	doer  observingDoer
	log   *slog.Logger
	retry RetryPolicy
	idle  time.Duration
	// maxTime and maxBytes bound one attempt's streaming (see replyBound).
	maxTime  time.Duration
	maxBytes int
	// noUsage is set once the server rejected stream_options (older Azure
	// API versions and some proxies do); usage is then simply not reported.
	noUsage atomic.Bool
}

// New builds the client. With the default base URL and no API key it returns
// ErrMissingAPIKey before any network call.
func New(cfg Config) (*Client, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("invalid base URL %q: want e.g. http://localhost:11434/v1", cfg.BaseURL)
	}
	if cfg.APIKey == "" && strings.EqualFold(u.Hostname(), "api.openai.com") {
		return nil, ErrMissingAPIKey
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = base
	doer := observingDoer{client: hc}
	oc.HTTPClient = doer
	idle := cfg.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	wire := cfg.WireAPI
	switch wire {
	case "":
		wire = WireChat
	case WireChat, WireResponses:
	default:
		return nil, fmt.Errorf("invalid wire API %q: want %q or %q", cfg.WireAPI, WireChat, WireResponses)
	}
	maxTime := cfg.MaxReplyTime
	if maxTime <= 0 {
		maxTime = DefaultMaxReplyTime
	}
	maxBytes := cfg.MaxReplyBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxReplyBytes
	}
	return &Client{api: openai.NewClientWithConfig(oc), wire: wire, base: base, key: cfg.APIKey,
		doer: doer, log: logOrDiscard(cfg.Logger), retry: cfg.Retry.withDefaults(), idle: idle,
		maxTime: maxTime, maxBytes: maxBytes}, nil
}

// defaultHTTPClient has no overall timeout — a long answer may stream for
// minutes — and relies on the idle timer for a server that stops talking.
func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 15 * time.Second
	return &http.Client{Transport: t}
}

// Stream sends req with streaming and include_usage, calls onDelta for text
// as it arrives, accumulates tool-call deltas by index, retries per the
// policy, and returns the complete reply or a classified *Error. A reply
// is bounded — in bytes (by req.MaxCompletionTokens with a margin, else
// Config.MaxReplyBytes) and in time (Config.MaxReplyTime) — so a server that
// streams without end fails the attempt (ErrReplyTooLong) instead of
// growing memory without limit.
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	oreq := toOpenAIRequest(req)
	if c.noUsage.Load() {
		oreq.StreamOptions = nil
	}
	body, err := c.requestBody(req, oreq)
	if err != nil {
		return nil, err
	}
	bound := boundFor(req.MaxCompletionTokens, c.maxBytes)
	timeouts := 0
	for attempt := 1; ; attempt++ {
		var resp *Response
		var err error
		start := time.Now()
		if c.wire == WireResponses {
			resp, err = c.streamAttempt(ctx, "/responses", body, &responsesDecoder{}, bound, onDelta)
		} else {
			resp, err = c.streamAttempt(ctx, "/chat/completions", body, &chatDecoder{}, bound, onDelta)
		}
		c.logAttempt(req, attempt, time.Since(start), resp, err)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("chat completion: %w", ctx.Err())
		}
		var le *Error
		if !errors.As(err, &le) {
			return nil, err
		}
		le.Attempts = attempt
		if c.wire == WireChat && le.Kind == KindBadRequest && oreq.StreamOptions != nil && strings.Contains(le.Message, "stream_options") {
			c.noUsage.Store(true)
			oreq.StreamOptions = nil
			if body, err = c.requestBody(req, oreq); err != nil {
				return nil, err
			}
			continue
		}
		if errors.Is(le, ErrIdleTimeout) {
			timeouts++
		}
		if le.Partial || !le.Kind.retryable() || errors.Is(le, ErrReplyTooLong) ||
			attempt >= c.retry.MaxAttempts || timeouts > maxTimeoutRetries {
			return nil, le
		}
		wait := c.retry.delay(attempt, le.RetryAfter)
		if onDelta != nil {
			onDelta(Delta{Retry: &Retry{Kind: le.Kind, StatusCode: le.StatusCode, Wait: wait, Attempt: attempt + 1, MaxAttempts: c.retry.MaxAttempts}})
		}
		c.log.Info("llm retry", "kind", le.Kind.String(), "status", le.StatusCode, "attempt", attempt, "of", c.retry.MaxAttempts, "wait_ms", wait.Milliseconds())
		if err := c.retry.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("chat completion: waiting to retry after %v: %w", le, err)
		}
	}
}

// logAttempt records one attempt: what was asked (sizes, not content),
// how long it took and how it ended.
func (c *Client) logAttempt(req Request, attempt int, took time.Duration, resp *Response, err error) {
	attrs := []any{"wire", c.wire, "model", req.Model, "messages", len(req.Messages), "tools", len(req.Tools),
		"attempt", attempt, "ms", took.Milliseconds()}
	if resp != nil {
		c.log.Info("llm request", append(attrs, "status", 200, "prompt_tokens", resp.Usage.PromptTokens,
			"completion_tokens", resp.Usage.CompletionTokens, "cached_tokens", resp.Usage.CachedTokens,
			"tool_calls", len(resp.ToolCalls), "finish", resp.FinishReason)...)
		return
	}
	var le *Error
	if errors.As(err, &le) {
		c.log.Warn("llm request failed", append(attrs, "status", le.StatusCode, "kind", le.Kind.String(), "partial", le.Partial)...)
		return
	}
	c.log.Info("llm request ended", append(attrs, "error", errorClass(err))...)
}

// errorClass names an error that is not the server's without its text,
// which could quote a URL with credentials in it.
func errorClass(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	}
	return fmt.Sprintf("%T", err)
}

func logOrDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// attemptCtx is one attempt's context, cancelled when the server says
// nothing for the idle timeout (idled) or the attempt outlives its total
// time (clock.expired), carrying the state the HTTP layer fills in (st).
type attemptCtx struct {
	ctx   context.Context
	st    *attemptState
	clock *attemptClock
	idled atomic.Bool
	stop  func()
}

// beginAttempt starts an attempt's timers; stop releases them.
func (c *Client) beginAttempt(ctx context.Context) *attemptCtx {
	actx, cancel := context.WithCancel(ctx)
	a := &attemptCtx{clock: startClock(c.maxTime, cancel)}
	timer := time.AfterFunc(c.idle, func() {
		a.idled.Store(true)
		cancel()
	})
	a.st = &attemptState{touch: func() { timer.Reset(c.idle) }}
	a.ctx = withAttempt(actx, a.st)
	a.stop = func() {
		timer.Stop()
		a.clock.stop()
		cancel()
	}
	return a
}

// requestBody is the JSON body of req on the client's wire API (oreq is
// req as a chat completions request).
func (c *Client) requestBody(req Request, oreq openai.ChatCompletionRequest) (*body, error) {
	if c.wire == WireResponses {
		b, err := json.Marshal(toResponsesRequest(req))
		if err != nil {
			return nil, fmt.Errorf("responses request: %w", err)
		}
		return wholeBody(b), nil
	}
	oreq.Stream = true
	b, err := chatBody(oreq)
	if err != nil {
		return nil, fmt.Errorf("chat completion request: %w", err)
	}
	return b, nil
}

// chatDecoder reads a chat completions stream: a JSON chunk per event,
// folded into the accumulator, up to [DONE].
type chatDecoder struct {
	acc accumulator
}

func (d *chatDecoder) event(ev sseEvent) (step, error) {
	switch {
	case len(ev.data) == 0:
		return step{}, nil
	case string(ev.data) == "[DONE]":
		return step{end: true}, nil
	case bytes.HasPrefix(ev.data, []byte(`{"error"`)) && isErrorEnvelope(ev.data):
		return step{}, eventError(ev.data)
	}
	var chunk openai.ChatCompletionStreamResponse
	if err := json.Unmarshal(ev.data, &chunk); err != nil {
		return step{}, &Error{Kind: KindServer, Message: fmt.Sprintf("malformed stream chunk: %v", err), Err: err}
	}
	text := d.acc.add(&chunk)
	// The reasoning is shown, never kept in the reply, but it counts
	// toward the reply's size: it is part of what the server streams, and
	// of the tokens a max tokens allows.
	reasoning := reasoningDelta(&chunk, ev.data)
	d.acc.size += len(reasoning)
	return step{text: text, reasoning: reasoning, content: true}, nil
}

// reasoningDelta is the reasoning a chunk's first choice carries: DeepSeek's
// reasoning_content (vLLM and xAI send it too), or the "reasoning" that
// OpenRouter and Ollama stream instead, which the client library's chunk
// type does not have: only a chunk that names it is decoded twice.
func reasoningDelta(chunk *openai.ChatCompletionStreamResponse, data []byte) string {
	var reasoning string
	for i := range chunk.Choices {
		if chunk.Choices[i].Index == 0 {
			reasoning = chunk.Choices[i].Delta.ReasoningContent
		}
	}
	if !bytes.Contains(data, []byte(`"reasoning"`)) {
		return reasoning
	}
	var other struct {
		Choices []struct {
			Index int `json:"index"`
			Delta struct {
				Reasoning string `json:"reasoning"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &other) != nil {
		return reasoning
	}
	for _, c := range other.Choices {
		if c.Index == 0 {
			reasoning += c.Delta.Reasoning
		}
	}
	return reasoning
}

func (d *chatDecoder) finished() bool      { return d.acc.finished() }
func (d *chatDecoder) size() int           { return d.acc.size }
func (d *chatDecoder) response() *Response { return d.acc.response() }

// notEventStream explains an attempt whose 2xx answer yielded no chunk
// because it was never an event stream — a proxy's or a web UI's HTML
// page, a plain JSON body: "stream cut" would send the user looking at the
// network instead of at OPENAI_BASE_URL. It is nil when the body is empty
// or starts like SSE (a stream that really was cut).
func notEventStream(st *attemptState) *Error {
	head := bytes.TrimLeft(bytes.TrimPrefix(st.head, []byte("\uFEFF")), " \t\r\n")
	if len(head) == 0 || looksLikeSSE(head) {
		return nil
	}
	if page, ok := webPage(st.header.Get("Content-Type"), st.head); ok {
		return webPageError(st.status, KindNotAPI, page)
	}
	mt, _, _ := mime.ParseMediaType(st.header.Get("Content-Type"))
	var msg string
	switch mt {
	case "":
		msg = "the server answered without a content type instead of an event stream"
	case "text/event-stream":
		// Labelled right, but the bytes say otherwise.
		msg = fmt.Sprintf("the server answered with something that is not an event stream (it begins %q)", firstLine(head, 60))
	default:
		msg = fmt.Sprintf("the server answered with %s instead of an event stream", mt)
	}
	return &Error{Kind: KindNotStream, StatusCode: st.status, Message: msg}
}

// looksLikeSSE reports whether b starts with an SSE field or comment.
func looksLikeSSE(b []byte) bool {
	for _, p := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}

// firstLine is b's first line, cut to at most n bytes.
func firstLine(b []byte, n int) string {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// toOpenAIRequest maps clawdcode's vocabulary onto go-openai's. Content
// that go-openai would omit when empty (its fields are omitempty) is
// replaced where the API requires it, so a valid history stays valid.
func toOpenAIRequest(req Request) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{
		Model:               req.Model,
		MaxCompletionTokens: req.MaxCompletionTokens,
		StreamOptions:       &openai.StreamOptions{IncludeUsage: true},
		Messages:            make([]openai.ChatCompletionMessage, 0, len(req.Messages)),
	}
	for _, m := range req.Messages {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, Name: m.Name, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: args},
			})
		}
		if om.Content == "" && len(om.ToolCalls) == 0 {
			om.Content = EmptyContent
		}
		if len(m.Images) > 0 {
			om.MultiContent, om.Content = imageParts(om.Content, m.Images), ""
		}
		out.Messages = append(out.Messages, om)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, openai.Tool{
			Type:     openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	if req.ToolChoice != "" && len(req.Tools) > 0 {
		out.ToolChoice = req.ToolChoice
	}
	return out
}

// EmptyContent stands in for an empty message content: go-openai drops an
// empty content field, and the API rejects a user, system or tool message
// (or an assistant message without tool calls) that has none.
const EmptyContent = "(empty)"

// imageParts is a user message with images as the chat-completions API
// documents it: content is an array, the text part first, then one
// image_url part per image with the bytes in a data: URL.
func imageParts(text string, images []chat.Image) []openai.ChatMessagePart {
	parts := []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: text}}
	for _, img := range images {
		parts = append(parts, openai.ChatMessagePart{
			Type:     openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: img.DataURL()},
		})
	}
	return parts
}

package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// Options configure a Server at start.
type Options struct {
	// Window, when positive, is the context window in tokens: a request
	// whose estimate plus its max_completion_tokens exceeds it is answered
	// 400 context_length_exceeded.
	Window int
	// OverflowMessage, when set, is the message of the 400
	// context_length_exceeded answer to a request over Window, in place of
	// OpenAI's chat-completions wording that states the window: some
	// servers do not say it (OpenAI's Responses API: "Your input exceeds
	// the context window of this model…").
	OverflowMessage string
	// Tokens estimates a request's prompt tokens; nil = EstimateTokens.
	Tokens func(Request) int
	// RejectConsecutiveUser answers 400 when two user messages follow each
	// other. The real API allows it; clawdcode is meant to merge such turns.
	RejectConsecutiveUser bool
	// APIKey, when set, must arrive as "Authorization: Bearer <APIKey>";
	// anything else is answered 401 like OpenAI answers a bad key.
	APIKey string
	// Family, when set (FamilyVLLM, …), makes the server answer that
	// family's metadata endpoints with Window as the context window of the
	// model FamilyModel; every other metadata path is 404.
	Family      string
	FamilyModel string
	// FamilyWindow, when set, is the window the metadata states in place
	// of Window: a misconfigured server (1, a byte count) that enforces
	// another.
	FamilyWindow int
	// PromptCache meters a prefix cache as providers keep one: the
	// longest prefix (the tools, then the messages in order, each compared
	// whole) a request shares with the previous accepted request of the
	// same model counts as cached, and its tokens are reported as
	// usage.prompt_tokens_details.cached_tokens and in Request.CachedTokens.
	// The meter is exact: no minimum length, no block rounding.
	PromptCache bool
	// Light records each request without its Body, Messages and Tools
	// (Requests still has the rest): for long runs whose requests would
	// not fit in memory. The responder sees them whole.
	Light bool
	// NoImages answers 400 to a request with an image part, as OpenAI
	// answers one sent to a text-only model.
	NoImages bool
}

// Request is one recorded request, decoded.
type Request struct {
	Path          string
	Authorization string // the Authorization header as sent
	Model         string
	Messages      []chat.Message
	Tools         []chat.ToolDef
	Stream        bool
	IncludeUsage  bool // stream_options.include_usage
	// MaxCompletionTokens and MaxTokens are 0 when not sent.
	MaxCompletionTokens int
	MaxTokens           int
	// ToolChoice is tool_choice when sent as a string ("none", "auto").
	ToolChoice string
	Body       []byte // the raw request body
	// Responses is set for a POST /v1/responses; its input is decoded
	// into Messages and Tools like a chat request's.
	Responses bool
	Tokens    int // the prompt estimate the server used
	// CachedTokens is the part of Tokens the prompt-cache meter counted as
	// cached (Options.PromptCache; 0 without it).
	CachedTokens int
	// FreshTokens is the part of Tokens no cache could have served, the
	// messages at its end the conversation's previous request did not
	// hold (Options.PromptCache; see promptCache.fresh).
	FreshTokens int

	// Status is the HTTP status the server answered with (200 for a
	// completion, even one whose stream it then cut; 0 while undecided and
	// for a Hang), and Error the message of a rejection or of a scripted
	// error reply.
	Status int
	Error  string
}

// Server is a scripted chat-completions endpoint; see the package doc.
type Server struct {
	tb   testing.TB
	http *httptest.Server
	done chan struct{}
	once sync.Once

	mu        sync.Mutex
	opts      Options
	queue     []Reply
	responder func(Request) Reply
	requests  []Request
	calls     int // tool-call ids handed out
	replies   int // completion ids handed out
	metadata  int // metadata requests answered
	cache     promptCache
}

// NewServer starts a server on loopback; it is closed when the test ends.
func NewServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s := &Server{tb: tb, done: make(chan struct{}), opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.handle)
	mux.HandleFunc("/chat/completions", s.handle)
	mux.HandleFunc("/v1/responses", s.handle)
	mux.HandleFunc("/responses", s.handle)
	mux.HandleFunc("/", s.handleMetadata)
	s.http = httptest.NewServer(mux)
	tb.Cleanup(s.Close)
	return s
}

// URL is the base URL to hand to a client, "/v1" included
// (OPENAI_BASE_URL).
func (s *Server) URL() string { return s.http.URL + "/v1" }

// Close releases hanging and delayed handlers, then shuts the server down.
// It is safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.http.CloseClientConnections()
		s.http.Close()
	})
}

// Enqueue appends replies to the FIFO; each completion request that passes
// validation takes the first one.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Pending is how many enqueued replies have not been used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetResponder sets the function that answers when the FIFO is empty. It
// may be called concurrently for concurrent requests.
func (s *Server) SetResponder(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = f
}

// SetWindow changes Options.Window.
func (s *Server) SetWindow(tokens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Window = tokens
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// LastRequest returns the latest request; the test fails if there is none.
func (s *Server) LastRequest() Request {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		s.tb.Fatalf("llmtest: no request received")
	}
	return s.requests[len(s.requests)-1]
}

// EstimateTokens is the server's default prompt size: the JSON encoding of
// the messages and tools (as decoded into clawdcode's chat types), at four
// bytes a token, rounded up. It is deliberately simple and predictable, not
// a tokenizer: tests size their windows against it.
func EstimateTokens(r Request) int {
	n := 0
	if b, err := json.Marshal(r.Messages); err == nil {
		n += len(b)
	}
	if len(r.Tools) > 0 {
		if b, err := json.Marshal(r.Tools); err == nil {
			n += len(b)
		}
	}
	return (n + 3) / 4
}

// completionTokens estimates a reply the same way: bytes of text, tool
// names and arguments over four, at least one.
func completionTokens(r Reply) int {
	n := len(r.Text)
	for _, c := range r.ToolCalls {
		n += len(c.Name) + len(c.Arguments)
	}
	return max(1, (n+3)/4)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, errorBody("Method not allowed, use POST.", "invalid_request_error", "", ""))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away mid-request
	}
	req := Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Body: body}

	s.mu.Lock()
	opts := s.opts
	s.mu.Unlock()

	status, errBody, errMsg := s.check(&req, opts)
	s.mu.Lock()
	if status == 0 && opts.PromptCache {
		parts := cacheParts(req) // each message encoded once for both
		req.CachedTokens = s.cache.cached(req, parts, s.tokens(opts))
		req.FreshTokens = s.cache.fresh(req, parts, s.tokens(opts))
	}
	idx := len(s.requests)
	kept := req
	if opts.Light {
		kept.Body, kept.Messages, kept.Tools = nil, nil, nil
	}
	s.requests = append(s.requests, kept)
	s.mu.Unlock()
	if status != 0 {
		s.setOutcome(idx, status, errMsg)
		writeError(w, status, errBody)
		return
	}

	reply := s.next(req)
	switch {
	case reply.Hang:
		// never answered: Status stays 0
	case reply.Status != 0:
		s.setOutcome(idx, reply.Status, bodyMessage(reply.Body))
	default:
		s.setOutcome(idx, http.StatusOK, "")
	}
	s.serve(w, r, req, reply)
}

// check decodes and validates a request; a non-zero status is the
// rejection to send.
func (s *Server) check(req *Request, opts Options) (status int, body, msg string) {
	chatBody := req.Body
	var err error
	if strings.HasSuffix(req.Path, "/responses") {
		req.Responses = true
		chatBody, err = responsesAsChat(req.Body)
	}
	var wire *wireRequest
	if err == nil {
		wire, err = decodeRequest(req, chatBody)
	}
	if opts.APIKey != "" && req.Authorization != "Bearer "+opts.APIKey {
		return http.StatusUnauthorized, unauthorizedBody, bodyMessage(unauthorizedBody)
	}
	if err != nil {
		msg := "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
		return http.StatusBadRequest, errorBody(msg, "invalid_request_error", "", ""), msg
	}
	if v := validate(wire, opts.RejectConsecutiveUser); v != nil {
		return http.StatusBadRequest, v.body(), v.message
	}
	if v := validateToolNames(wire.Tools); v != nil {
		return http.StatusBadRequest, v.body(), v.message
	}
	if status, body, msg := checkImages(req, opts); status != 0 {
		return status, body, msg
	}
	req.Tokens = s.tokens(opts)(*req)
	if opts.Window > 0 && req.Tokens+req.MaxCompletionTokens > opts.Window {
		b := overflowBody(opts.Window, req.Tokens, req.MaxCompletionTokens)
		if opts.OverflowMessage != "" {
			b = errorBody(opts.OverflowMessage, "invalid_request_error", "messages", "context_length_exceeded")
		}
		return http.StatusBadRequest, b, bodyMessage(b)
	}
	return 0, "", ""
}

// tokens is the prompt estimate opts name.
func (s *Server) tokens(opts Options) func(Request) int {
	if opts.Tokens != nil {
		return opts.Tokens
	}
	return EstimateTokens
}

func (s *Server) setOutcome(idx, status int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[idx].Status = status
	s.requests[idx].Error = msg
}

// next takes the reply for req and gives its tool calls their ids.
func (s *Server) next(req Request) Reply {
	s.mu.Lock()
	var reply Reply
	scripted := len(s.queue) > 0
	responder := s.responder
	if scripted {
		reply = s.queue[0]
		s.queue = s.queue[1:]
	}
	s.mu.Unlock()

	switch {
	case scripted:
	case responder != nil:
		reply = responder(req)
	default:
		msg := "llmtest: no reply scripted for this request (Enqueue or SetResponder)"
		return Reply{Status: http.StatusBadRequest, Body: errorBody(msg, "invalid_request_error", "", "")}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	calls := make([]ToolCall, len(reply.ToolCalls))
	for i, c := range reply.ToolCalls {
		if c.ID == "" {
			s.calls++
			c.ID = fmt.Sprintf("call_%03d", s.calls)
		}
		calls[i] = c
	}
	reply.ToolCalls = calls
	return reply
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-s.done:
			t.Stop()
			return
		}
	}
	if reply.Hang {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if reply.Status != 0 {
		writeError(w, reply.Status, reply.Body)
		return
	}
	s.mu.Lock()
	s.replies++
	id := fmt.Sprintf("chatcmpl-llmtest-%d", s.replies)
	s.mu.Unlock()
	c := completion{id: id, model: req.Model, created: time.Now().Unix(), reply: reply, promptTokens: req.Tokens, cachedTokens: req.CachedTokens}
	if req.Responses {
		c.writeResponsesStream(w)
		return
	}
	if req.Stream && reply.Endless {
		c.writeEndless(w, r, s.done)
		return
	}
	if req.Stream {
		c.writeStream(r.Context(), w, req.IncludeUsage)
		return
	}
	c.writeJSON(w)
}

func writeError(w http.ResponseWriter, status int, body string) {
	if strings.HasPrefix(strings.TrimSpace(body), "{") {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// bodyMessage is the message of an OpenAI-shaped error body, or the body.
func bodyMessage(body string) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return body
}

func errorBody(message, typ, param, code string) string {
	e := map[string]any{"message": message, "type": typ, "param": nil, "code": nil}
	if param != "" {
		e["param"] = param
	}
	if code != "" {
		e["code"] = code
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return string(b)
}

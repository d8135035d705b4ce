package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

func streamErr(t *testing.T, c *Client, req Request) (*Error, []string) {
	t.Helper()
	var deltas []string
	resp, err := c.Stream(context.Background(), req, func(d Delta) { deltas = append(deltas, d.Content) })
	if resp != nil {
		t.Fatalf("got Response %+v, want an error", resp)
	}
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("err = %v (%T), want *Error", err, err)
	}
	return le, deltas
}

func TestNewRequiresKeyOnlyForOpenAI(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"", DefaultBaseURL, "https://api.openai.com/v1/"} {
		_, err := New(Config{BaseURL: base})
		if !errors.Is(err, ErrMissingAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
			t.Errorf("New(BaseURL %q, no key) = %v, want ErrMissingAPIKey naming OPENAI_API_KEY", base, err)
		}
	}
	if _, err := New(Config{APIKey: "sk-x"}); err != nil {
		t.Errorf("New with key: %v", err)
	}
	if _, err := New(Config{BaseURL: "http://localhost:11434/v1"}); err != nil {
		t.Errorf("New with a local base URL and no key: %v", err)
	}
	if _, err := New(Config{BaseURL: "localhost:11434"}); err == nil {
		t.Error("New accepted a base URL without a scheme")
	}
}

func TestStreamSendsTheRequestOpenAIExpects(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{APIKey: "sk-test"})
	srv.Enqueue(llmtest.Text("fine"))
	c, _ := newTestClient(t, srv.URL(), func(c *Config) { c.APIKey = "sk-test" })
	req := Request{
		Model: "o3-mini",
		Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: "be brief"},
			{Role: chat.RoleUser, Content: "read a"},
			{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "Read", Arguments: `{"file_path":"a"}`}, {ID: "call_2", Name: "Glob"}}},
			{Role: chat.RoleTool, ToolCallID: "call_1", Content: "hello"},
			{Role: chat.RoleTool, ToolCallID: "call_2", Content: ""},
		},
		Tools:               []chat.ToolDef{{Name: "Read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)}, {Name: "Glob"}},
		MaxCompletionTokens: 256,
	}
	resp, err := c.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Content != "fine" || resp.FinishReason != "stop" || resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
		t.Errorf("response %+v", resp)
	}
	got := srv.LastRequest()
	if got.Status != http.StatusOK {
		t.Fatalf("server answered %d: %s", got.Status, got.Error)
	}
	if got.MaxCompletionTokens != 256 || got.MaxTokens != 0 || strings.Contains(string(got.Body), `"max_tokens"`) {
		t.Errorf("max_completion_tokens=%d max_tokens=%d: want only max_completion_tokens", got.MaxCompletionTokens, got.MaxTokens)
	}
	if !got.Stream || !got.IncludeUsage {
		t.Errorf("stream=%v include_usage=%v, want both", got.Stream, got.IncludeUsage)
	}
	if len(got.Tools) != 2 || got.Tools[0].Name != "Read" || !strings.Contains(string(got.Body), `"type":"function"`) {
		t.Errorf("tools not sent as function tools: %s", got.Body)
	}
	if p := string(got.Tools[1].Parameters); p != `{"type":"object","properties":{}}` {
		t.Errorf("a tool without a schema was sent with parameters %s", p)
	}
	if tc := got.Messages[2].ToolCalls; len(tc) != 2 || tc[1].Arguments != "{}" {
		t.Errorf("assistant tool calls sent as %+v; empty arguments must become {}", tc)
	}
	if got.Messages[4].Content != EmptyContent {
		t.Errorf("empty tool result sent as %q", got.Messages[4].Content)
	}
}

func TestStreamNoKeyNoAuthorizationHeader(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("hi"))
	c, _ := newTestClient(t, srv.URL())
	if _, err := c.Stream(context.Background(), userRequest("x"), nil); err != nil {
		t.Fatal(err)
	}
	if a := srv.LastRequest().Authorization; a != "" {
		t.Errorf("Authorization %q sent without a key", a)
	}
}

func TestStreamRetries(t *testing.T) {
	t.Parallel()
	// Ten minutes ahead: whatever a loaded machine takes to reach the
	// retry, the wait it computes is still close to ten minutes.
	httpDate := time.Now().Add(10 * time.Minute).UTC().Format(http.TimeFormat)
	tests := []struct {
		name     string
		replies  []llmtest.Reply
		policy   RetryPolicy
		requests int
		check    func(t *testing.T, delays []time.Duration)
	}{
		{
			name:     "429 Retry-After seconds honoured",
			replies:  []llmtest.Reply{llmtest.RateLimited(7 * time.Second), llmtest.Text("ok")},
			requests: 2,
			check: func(t *testing.T, d []time.Duration) {
				if len(d) != 1 || d[0] != 7*time.Second {
					t.Errorf("slept %v, want exactly the 7s the server asked for", d)
				}
			},
		},
		{
			name: "429 Retry-After HTTP date honoured",
			replies: []llmtest.Reply{
				{Status: 429, Body: `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`, Header: http.Header{"Retry-After": {httpDate}}},
				llmtest.Text("ok"),
			},
			policy:   RetryPolicy{MaxDelay: time.Hour},
			requests: 2,
			check: func(t *testing.T, d []time.Duration) {
				if len(d) != 1 || d[0] < 9*time.Minute || d[0] > 10*time.Minute {
					t.Errorf("slept %v, want about 10m from the Retry-After date", d)
				}
			},
		},
		{
			name:     "Retry-After capped by MaxDelay",
			replies:  []llmtest.Reply{llmtest.RateLimited(time.Hour), llmtest.Text("ok")},
			policy:   RetryPolicy{MaxDelay: 3 * time.Second},
			requests: 2,
			check: func(t *testing.T, d []time.Duration) {
				if len(d) != 1 || d[0] != 3*time.Second {
					t.Errorf("slept %v, want the 3s cap", d)
				}
			},
		},
		{
			name:     "500 twice then success, exponential backoff with jitter",
			replies:  []llmtest.Reply{llmtest.ServerError(), llmtest.ServerError(), llmtest.Text("ok")},
			policy:   RetryPolicy{BaseDelay: 100 * time.Millisecond},
			requests: 3,
			check: func(t *testing.T, d []time.Duration) {
				if len(d) != 2 || d[0] < 50*time.Millisecond || d[0] > 100*time.Millisecond ||
					d[1] < 100*time.Millisecond || d[1] > 200*time.Millisecond {
					t.Errorf("slept %v, want [50ms..100ms] then [100ms..200ms]", d)
				}
			},
		},
		{
			name:     "a burst of three 429s without Retry-After backs off and succeeds",
			replies:  []llmtest.Reply{llmtest.RateLimited(0), llmtest.RateLimited(0), llmtest.RateLimited(0), llmtest.Text("ok")},
			requests: 4,
			check: func(t *testing.T, d []time.Duration) {
				if len(d) != 3 || d[0] < 500*time.Millisecond || d[0] > time.Second || d[2] < 2*time.Second || d[2] > 4*time.Second {
					t.Errorf("slept %v, want the default backoff 1s, 2s, 4s with jitter", d)
				}
			},
		},
		{
			name:     "cut before any text is retried",
			replies:  []llmtest.Reply{llmtest.CutAfter(llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"a.txt"}`)), 3), llmtest.Text("ok")},
			requests: 2,
		},
		{
			name:     "mid-stream error before text is retried",
			replies:  []llmtest.Reply{llmtest.MidStreamError(llmtest.Text("never shown"), 1), llmtest.Text("ok")},
			requests: 2,
		},
		{
			name:     "keep-alive comments beyond go-openai's empty-line limit",
			replies:  []llmtest.Reply{{Text: "ok", KeepAlives: 1000}},
			requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Options{})
			srv.Enqueue(tt.replies...)
			c, sleeps := newTestClient(t, srv.URL(), func(c *Config) {
				tt.policy.Sleep = c.Retry.Sleep
				c.Retry = tt.policy
			})
			resp, err := c.Stream(context.Background(), userRequest("hi"), nil)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if resp.Content != "ok" {
				t.Errorf("content %q, want the reply of the successful attempt", resp.Content)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if tt.check != nil {
				tt.check(t, sleeps.recorded())
			}
		})
	}
}

func TestStreamErrorsNotRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reply  llmtest.Reply
		window int
		kind   Kind
		status int
		in     string // in Error()
	}{
		{"401", llmtest.Unauthorized(), 0, KindAuth, 401, "authentication failed (401): Incorrect API key provided"},
		{"quota", llmtest.QuotaExceeded(), 0, KindQuota, 429, "exceeded your current quota"},
		{"overflow from the window", llmtest.Text("unused"), 10, KindOverflow, 400, "maximum context length is 10 tokens"},
		{"400", llmtest.Error(400, "Invalid value for 'model'", "invalid_request_error", ""), 0, KindBadRequest, 400, "request rejected (400)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Options{Window: tt.window})
			srv.Enqueue(tt.reply)
			c, sleeps := newTestClient(t, srv.URL())
			le, _ := streamErr(t, c, userRequest("a question that is longer than ten tokens for sure"))
			if le.Kind != tt.kind || le.StatusCode != tt.status || !strings.Contains(le.Error(), tt.in) {
				t.Errorf("got %v %d %q, want %v %d containing %q", le.Kind, le.StatusCode, le.Error(), tt.kind, tt.status, tt.in)
			}
			if n := len(srv.Requests()); n != 1 || len(sleeps.recorded()) != 0 {
				t.Errorf("%d requests and %d sleeps, want one request and no retry", n, len(sleeps.recorded()))
			}
		})
	}
}

func TestStreamCutAfterTextIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.CutAfter(llmtest.Text("one two three four"), 3), llmtest.Text("should not be asked for"))
	c, _ := newTestClient(t, srv.URL())
	le, deltas := streamErr(t, c, userRequest("hi"))
	if le.Kind != KindStreamCut || !le.Partial {
		t.Errorf("kind %v partial %v, want a partial stream cut", le.Kind, le.Partial)
	}
	if strings.Join(deltas, "") != "one two" {
		t.Errorf("deltas %q, want the text sent before the cut", deltas)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: a stream cut after visible text must not be retried", n)
	}
}

func TestStreamCutEveryTimeGivesUp(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(func(llmtest.Request) llmtest.Reply {
		return llmtest.CutAfter(llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"ls"}`)), 4)
	})
	c, sleeps := newTestClient(t, srv.URL())
	le, _ := streamErr(t, c, userRequest("hi"))
	if le.Kind != KindStreamCut || le.Attempts != 4 || len(srv.Requests()) != 4 || len(sleeps.recorded()) != 3 {
		t.Errorf("kind %v after %d attempts, %d requests, %d sleeps; want a stream cut after 4 attempts", le.Kind, le.Attempts, len(srv.Requests()), len(sleeps.recorded()))
	}
	if !strings.Contains(le.Error(), "after 4 attempts") {
		t.Errorf("message %q does not say how often it tried", le.Error())
	}
}

func TestStreamHungServerTimesOut(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Hang(), llmtest.Hang())
	c, _ := newTestClient(t, srv.URL(), func(c *Config) {
		c.IdleTimeout = 50 * time.Millisecond
		c.Retry.MaxAttempts = 2
	})
	le, _ := streamErr(t, c, userRequest("hi"))
	if le.Kind != KindNetwork || le.Attempts != 2 || !strings.Contains(le.Error(), "no response from the server within 50ms") {
		t.Errorf("got %v after %d attempts: %q; want a network timeout after 2", le.Kind, le.Attempts, le.Error())
	}
}

// A server that says nothing is hung, not busy: a timed-out attempt is
// retried once, however many attempts the policy allows, so a hang costs
// about two idle timeouts rather than one per attempt.
func TestStreamTimeoutRetriedOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		replies  []llmtest.Reply
		attempts int  // requests made
		ok       bool // the call succeeds
	}{
		{"hung every time", []llmtest.Reply{llmtest.Hang(), llmtest.Hang(), llmtest.Hang(), llmtest.Hang()}, 2, false},
		{"hung once, then answers", []llmtest.Reply{llmtest.Hang(), llmtest.Text("late")}, 2, true},
		{"other failures do not count", []llmtest.Reply{llmtest.Hang(), llmtest.ServerError(), llmtest.Hang(), llmtest.Text("never")}, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Options{})
			srv.Enqueue(tt.replies...)
			// Long enough that the local server's answers (a 500, the
			// late text) always start within it on a loaded machine: only
			// the hangs may time out.
			c, _ := newTestClient(t, srv.URL(), func(c *Config) {
				c.IdleTimeout = 2 * time.Second
				c.Retry.MaxAttempts = 4
			})
			resp, err := c.Stream(context.Background(), userRequest("hi"), nil)
			if got := len(srv.Requests()); got != tt.attempts {
				t.Errorf("%d requests, want %d", got, tt.attempts)
			}
			if tt.ok {
				if err != nil || resp.Content != "late" {
					t.Fatalf("got (%v, %v), want the late answer", resp, err)
				}
				return
			}
			var le *Error
			if !errors.As(err, &le) || le.Kind != KindNetwork || !errors.Is(err, ErrIdleTimeout) || errors.Is(err, context.Canceled) || le.Attempts != tt.attempts {
				t.Fatalf("got %v, want a timed-out network error after %d attempts", err, tt.attempts)
			}
		})
	}
}

func TestStreamSilentMidStreamTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"id":"x","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c, _ := newTestClient(t, srv.URL, func(c *Config) {
		c.IdleTimeout = 50 * time.Millisecond
		c.Retry.MaxAttempts = 1
	})
	le, _ := streamErr(t, c, userRequest("hi"))
	if le.Kind != KindNetwork || !strings.Contains(le.Error(), "sent nothing for 50ms") {
		t.Errorf("got %v: %q; want a network timeout in the middle of the reply", le.Kind, le.Error())
	}
}

func TestStreamContextCancel(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Hang())
	c, sleeps := newTestClient(t, srv.URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the server holds the request, however slow the
	// machine, not after a fixed time it might not have reached it in.
	go func() {
		for len(srv.Requests()) == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	resp, err := c.Stream(ctx, userRequest("hi"), nil)
	if resp != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("got (%v, %v), want an error wrapping context.Canceled", resp, err)
	}
	var le *Error
	if errors.As(err, &le) {
		t.Errorf("cancellation classified as %v; it is the caller's, not the server's", le.Kind)
	}
	if len(srv.Requests()) != 1 || len(sleeps.recorded()) != 0 {
		t.Errorf("cancellation was retried")
	}
}

func TestStreamContextCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.ServerError(), llmtest.Text("never"))
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := newTestClient(t, srv.URL(), func(c *Config) {
		c.Retry.Sleep = func(ctx context.Context, d time.Duration) error {
			cancel()
			return sleepCtx(ctx, d)
		}
	})
	_, err := c.Stream(ctx, userRequest("hi"), nil)
	if !errors.Is(err, context.Canceled) || len(srv.Requests()) != 1 {
		t.Errorf("err %v after %d requests, want context.Canceled after 1", err, len(srv.Requests()))
	}
}

func TestStreamConnectionRefusedIsNetwork(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, sleeps := newTestClient(t, url)
	le, _ := streamErr(t, c, userRequest("hi"))
	if le.Kind != KindNetwork || le.Attempts != 4 || len(sleeps.recorded()) != 3 {
		t.Errorf("got %v after %d attempts, want network errors retried to the bound", le.Kind, le.Attempts)
	}
}

func TestStreamStrictServerAcceptsTheRoundTrip(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{RejectConsecutiveUser: true})
	srv.SetResponder(llmtest.Agent())
	c, _ := newTestClient(t, srv.URL())
	msgs := []chat.Message{{Role: chat.RoleUser, Content: "read a.txt\nbash echo hi"}}
	first, err := c.Stream(context.Background(), Request{Model: "gpt-4o", Messages: msgs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.ToolCalls) != 2 || first.ToolCalls[0].Name != "Read" || first.ToolCalls[1].Arguments != `{"command":"echo hi"}` {
		t.Fatalf("tool calls %+v", first.ToolCalls)
	}
	msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Content: first.Content, ToolCalls: first.ToolCalls})
	for _, tc := range first.ToolCalls {
		msgs = append(msgs, chat.Message{Role: chat.RoleTool, ToolCallID: tc.ID, Content: "out of " + tc.Name})
	}
	second, err := c.Stream(context.Background(), Request{Model: "gpt-4o", Messages: msgs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "Tool results:\n- " + first.ToolCalls[0].ID + ": " + llmtest.Digest("out of Read") + "\n- " + first.ToolCalls[1].ID + ": " + llmtest.Digest("out of Bash")
	if second.Content != want {
		t.Errorf("final answer %q, want %q", second.Content, want)
	}
}

func TestStreamRateLimitBoundedGivesUp(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.RateLimited(time.Second) })
	c, sleeps := newTestClient(t, srv.URL())
	le, _ := streamErr(t, c, userRequest("hi"))
	if le.Kind != KindRateLimit || le.Attempts != 4 || le.RetryAfter != time.Second || len(sleeps.recorded()) != 3 {
		t.Errorf("got %v after %d attempts (Retry-After %v), want a rate limit after 4", le.Kind, le.Attempts, le.RetryAfter)
	}
}

func TestStreamMalformedToolArgumentsPassThrough(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Write", `{"file_path": "a.txt", "content": "unterminated`)))
	c, _ := newTestClient(t, srv.URL())
	resp, err := c.Stream(context.Background(), userRequest("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The model's mistake is the tools' to report back to it, not a
	// transport error.
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != `{"file_path": "a.txt", "content": "unterminated` {
		t.Errorf("tool calls %+v", resp.ToolCalls)
	}
}

func TestStreamFallsBackWithoutStreamOptions(t *testing.T) {
	t.Parallel()
	text := readFixtureStream(t, "openai_stream_text_only_with_usage.sse", false)
	var withOptions, without int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if _, ok := body["stream_options"]; ok {
			withOptions++
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error","param":null,"code":null}}`))
			return
		}
		without++
		_, _ = w.Write(text)
	}))
	t.Cleanup(srv.Close)
	c, _ := newTestClient(t, srv.URL)
	for range 2 {
		if _, err := c.Stream(context.Background(), userRequest("hi"), nil); err != nil {
			t.Fatalf("Stream: %v", err)
		}
	}
	if withOptions != 1 || without != 2 {
		t.Errorf("%d requests with stream_options, %d without; want the option dropped once and remembered", withOptions, without)
	}
}

// An error event is reported as soon as its event ends, even when the
// server then holds the connection open instead of sending [DONE].
func TestStreamErrorEventWithoutDoneIsReportedAtOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(": OPENROUTER PROCESSING\n\n" + `data: {"error":{"message":"Provider returned error","code":502}}` + "\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	c, _ := newTestClient(t, srv.URL, func(c *Config) {
		c.IdleTimeout = time.Hour
		c.Retry.MaxAttempts = 1
	})
	// Not a timing assertion: the deadline only turns a hang into a failure.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Stream(ctx, userRequest("hi"), nil)
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindServer || le.StatusCode != 502 || !strings.Contains(le.Error(), "Provider returned error") {
		t.Errorf("got %v; want the server's error without waiting", err)
	}
}

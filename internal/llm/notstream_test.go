package llm

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestStreamAnswerThatIsNoEventStream: a 2xx answer that never was an
// event stream (a proxy's or web UI's page, a plain JSON body) is said to
// be one, naming its content type and the likely culprit, OPENAI_BASE_URL,
// instead of "stream cut" — and is not retried. A real stream that is cut,
// or an empty body, stays a stream cut.
func TestStreamAnswerThatIsNoEventStream(t *testing.T) {
	t.Parallel()
	const hint = " — is OPENAI_BASE_URL an OpenAI-compatible /v1 endpoint?"
	tests := []struct {
		name        string
		contentType string
		body        string
		kind        Kind
		want        string // the whole Error() for KindNotStream, a part otherwise
		requests    int
	}{
		{"HTML page", "text/html; charset=utf-8", "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Please sign in</body></html>",
			KindNotAPI, `the server answered 200 OK with an HTML page ("Sign in"), not an OpenAI-compatible API's answer`, 1},
		{"non-streaming JSON completion", "application/json",
			`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`,
			KindNotStream, "the server answered with application/json instead of an event stream" + hint, 1},
		{"no content type", "", "hello from a web server\n",
			KindNotStream, "the server answered without a content type instead of an event stream" + hint, 1},
		{"labelled SSE but HTML", "text/event-stream", "  <html>\n<body>oops</body></html>",
			KindNotAPI, "the server answered 200 OK with an HTML page, not an OpenAI-compatible API's answer", 1},
		{"labelled SSE but not SSE", "text/event-stream", "  hello\n",
			KindNotStream, `the server answered with something that is not an event stream (it begins "hello")` + hint, 1},
		{"empty body", "text/html", "",
			KindStreamCut, "without sending a reply", 4},
		{"SSE that stops before a chunk", "text/plain", ": keep-alive\n\n",
			KindStreamCut, "without sending a reply", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				if tt.contentType == "" {
					w.Header()["Content-Type"] = nil // no sniffing either
				} else {
					w.Header().Set("Content-Type", tt.contentType)
				}
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte(tt.body))
			}))
			t.Cleanup(srv.Close)
			c, _ := newTestClient(t, srv.URL+"/v1")
			le, _ := streamErr(t, c, userRequest("hi"))
			if le.Kind != tt.kind {
				t.Fatalf("kind %v (%q), want %v", le.Kind, le.Error(), tt.kind)
			}
			if tt.kind == KindNotStream && le.Error() != tt.want {
				t.Errorf("message %q\nwant    %q", le.Error(), tt.want)
			}
			if tt.kind != KindNotStream && !strings.Contains(le.Error(), tt.want) {
				t.Errorf("message %q, want it to contain %q", le.Error(), tt.want)
			}
			if got := int(n.Load()); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
		})
	}
}

func TestNotStreamErrorNamesAttempts(t *testing.T) {
	t.Parallel()
	e := &Error{Kind: KindNotStream, Message: "the server answered with text/html instead of an event stream", Attempts: 2}
	want := "the server answered with text/html instead of an event stream (after 2 attempts) — is OPENAI_BASE_URL an OpenAI-compatible /v1 endpoint?"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	if e.Kind.retryable() || e.Kind.String() != "not_stream" {
		t.Errorf("KindNotStream: retryable %v, name %q", e.Kind.retryable(), e.Kind)
	}
}

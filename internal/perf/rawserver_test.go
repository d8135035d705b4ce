package perf

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// newRawServer starts a chat-completions endpoint that does nothing but
// answer: it reads the request body without decoding it and streams a
// fixed short text, with usage (prompt_tokens = body bytes / 4). Beside
// llmtest, which decodes and validates every request (~10 ms for a 1 MB
// one, in the benchmark process, while the client waits), it shows how
// much of a run's wall time is the client's own. It returns the base URL.
func newRawServer(tb testing.TB) string {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(s string) { fmt.Fprintf(w, "data: %s\n\n", s) }
		head := `{"id":"raw","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":`
		chunk(head + `[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
		chunk(head + `[{"index":0,"delta":{"content":"Resumed."},"finish_reason":null}]}`)
		chunk(head + `[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		chunk(head + fmt.Sprintf(`[],"usage":{"prompt_tokens":%d,"completion_tokens":2,"total_tokens":%d}}`, n/4, n/4+2))
		chunk("[DONE]")
	}))
	tb.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

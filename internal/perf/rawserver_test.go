package perf

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// newRawServer starts a chat-completions endpoint that does nothing but
// answer: it reads the request body without decoding it and streams one
// short line, "Noted: <n> messages so far." (n counts the "role" keys, so
// a benchmark can still check the history was sent), with usage
// (prompt_tokens = body bytes / 4). Beside
// llmtest, which decodes and validates every request (~10 ms for a 1 MB
// one, in the benchmark process, while the client waits), it shows how
// much of a run's wall time is the client's own. It returns the base URL.
func newRawServer(tb testing.TB) string {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := len(body)
		text := fmt.Sprintf("Noted: %d messages so far.", bytes.Count(body, []byte(`"role":`)))
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(s string) { fmt.Fprintf(w, "data: %s\n\n", s) }
		// Echo the request's model, as a server does: clawdcode trusts a
		// reported count only from the model it counts for.
		model := "unknown"
		if _, rest, ok := bytes.Cut(body, []byte(`"model":"`)); ok {
			if m, _, ok := bytes.Cut(rest, []byte(`"`)); ok {
				model = string(m)
			}
		}
		head := `{"id":"raw","object":"chat.completion.chunk","created":1,"model":` + strconv.Quote(model) + `,"choices":`
		chunk(head + `[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
		chunk(head + `[{"index":0,"delta":{"content":` + strconv.Quote(text) + `},"finish_reason":null}]}`)
		chunk(head + `[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		chunk(head + fmt.Sprintf(`[],"usage":{"prompt_tokens":%d,"completion_tokens":2,"total_tokens":%d}}`, n/4, n/4+2))
		chunk("[DONE]")
	}))
	tb.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

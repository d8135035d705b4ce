package llm

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Failures the fixture file does not cover: errors inside a 200 stream,
// and bodies that are not OpenAI-shaped at all.
func TestClassifyStreamAndOddBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		body   string
		kind   Kind
		code   int // StatusCode
		msg    string
	}{
		{"mid-stream overflow with OpenRouter's integer code", 200,
			`data: {"error":{"message":"This endpoint's maximum context length is 100 tokens. However, you requested about 200 tokens.","code":400}}` + "\n\n",
			KindOverflow, 400, "maximum context length is 100"},
		{"mid-stream rate limit", 200, `data: {"error":{"message":"Rate limit exceeded: free-models-per-min","code":429}}` + "\n\n", KindRateLimit, 429, "free-models-per-min"},
		{"mid-stream quota", 200, `data: {"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}` + "\n\n", KindQuota, 0, "current quota"},
		{"mid-stream after text", 200,
			`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"Read","arguments":"{"}}]}}]}` + "\n\n" +
				`data: {"error":{"message":"upstream died","type":"server_error"}}` + "\n\ndata: [DONE]\n\n",
			KindServer, 0, "upstream died"},
		{"JSON error body on a 200 stream", 200, "{\"error\": {\"message\": \"model is loading\", \"type\": \"server_error\"}}\n", KindServer, 0, "model is loading"},
		{"HTML from a proxy", 502, "<html><body><h1>502 Bad Gateway</h1></body></html>", KindServer, 502, "502 Bad Gateway"},
		{"FastAPI detail", 422, `{"detail":"unsupported parameter"}`, KindBadRequest, 422, "unsupported parameter"},
		{"OpenRouter credits", 402, `{"error":{"message":"Insufficient credits","code":402}}`, KindQuota, 402, "Insufficient credits"},
		{"malformed chunk", 200, "data: {not json\n\n", KindServer, 0, "malformed stream chunk"},
		{"no chunks at all", 200, "data: [DONE]\n\n", KindStreamCut, 200, "without sending a reply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c, _ := newTestClient(t, srv.URL, func(c *Config) { c.Retry.MaxAttempts = 1 })
			le, _ := streamErr(t, c, userRequest("hi"))
			if le.Kind != tt.kind || le.StatusCode != tt.code || !strings.Contains(le.Error(), tt.msg) {
				t.Errorf("got %v (%d) %q; want %v (%d) containing %q", le.Kind, le.StatusCode, le.Error(), tt.kind, tt.code, tt.msg)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	t.Parallel()
	if KindOverflow.String() != "overflow" || Kind(99).String() != "Kind(99)" {
		t.Errorf("Kind.String: %q %q", KindOverflow.String(), Kind(99).String())
	}
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := mustTime(t, "Sat, 21 Nov 2026 12:00:00 GMT")
	tests := []struct {
		header http.Header
		want   string
	}{
		{http.Header{"Retry-After": {"3"}}, "3s"},
		{http.Header{"Retry-After": {"0.5"}}, "500ms"},
		{http.Header{"Retry-After": {"Sat, 21 Nov 2026 12:00:09 GMT"}}, "9s"},
		{http.Header{"Retry-After": {"Sat, 21 Nov 2026 11:00:00 GMT"}}, "0s"},
		{http.Header{"Retry-After": {"soon"}}, "0s"},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, "250ms"},
		{http.Header{"Retry-After": {"1e300"}}, "24h0m0s"},
		{nil, "0s"},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.header, now).String(); got != tt.want {
			t.Errorf("retryAfter(%v) = %s, want %s", tt.header, got, tt.want)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := http.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

package llm

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestWebPageAnswers: a failure that is a web page names the page by its
// title and never quotes it; it is not retried, but for a gateway's 502,
// 503 or 504, a passing failure of an API behind it.
func TestWebPageAnswers(t *testing.T) {
	t.Parallel()
	const page = "<!doctype html><html><head><meta charset=utf-8><title>\n  My   Wiki </title><style>p{}</style></head><body><p>Not Found: POST</p></body></html>"
	for _, tt := range []struct {
		status   int
		kind     Kind
		requests int
	}{
		{501, KindNotAPI, 1}, {404, KindNotAPI, 1}, {405, KindNotAPI, 1}, {500, KindNotAPI, 1},
		{503, KindServer, 4}, {401, KindAuth, 1},
	} {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(page))
			}))
			t.Cleanup(srv.Close)
			c, _ := newTestClient(t, srv.URL)
			le, _ := streamErr(t, c, userRequest("hi"))
			if le.Kind != tt.kind || int(n.Load()) != tt.requests {
				t.Fatalf("kind %v after %d requests, want %v after %d", le.Kind, n.Load(), tt.kind, tt.requests)
			}
			msg := le.Error()
			if !strings.Contains(msg, `an HTML page ("My Wiki")`) || strings.Contains(msg, "Not Found: POST") || strings.Contains(msg, "<") {
				t.Fatalf("message %q", msg)
			}
		})
	}
}

func TestPageTitle(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"<html><title>A &amp; B</title></html>":             "A & B",
		"<html><body><svg><title>icon</title></svg></body>": "icon",
		"<html><body>no title</body></html>":                "",
		"<title>" + strings.Repeat("x", 100) + "</title>":   strings.Repeat("x", 80) + "…",
	} {
		if got := pageTitle([]byte(in)); got != want {
			t.Errorf("pageTitle(%.40q) = %q, want %q", in, got, want)
		}
	}
}

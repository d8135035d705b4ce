package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// webPage is what a web server that is no API answers a POST with: an
// HTML page (Python's http.server answers 501 so; a web UI's router 404
// or 405; a single-page app 200).
const webPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Team Dashboard</title>
<style>body { font-family: sans-serif }</style></head>
<body><h1>Error response</h1><p>Message: Unsupported method ('POST').</p>
<script>window.app = {"routes": ["/", "/login"]};</script></body></html>`

// TestBaseURLOfAWebPage (issue 36 item 9): a base URL that serves a web
// page, not the API, is asked once — not retried — and the error is one
// line naming the page, with the hint that /v1 may be missing; the page
// itself is never printed.
func TestBaseURLOfAWebPage(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNotImplemented, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusInternalServerError, http.StatusOK} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			var posts atomic.Int32
			page := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					posts.Add(1)
				}
				rw.Header().Set("Content-Type", "text/html; charset=utf-8")
				rw.WriteHeader(status)
				fmt.Fprint(rw, webPage)
			}))
			defer page.Close()
			w := newWorld(t, llmtest.Options{})
			w.ExtraEnv = []string{"OPENAI_BASE_URL=" + page.URL}
			r := w.Run("-p", "hi")
			if r.Code != 1 {
				t.Fatalf("exit %d: %s", r.Code, r)
			}
			if n := posts.Load(); n != 1 {
				t.Errorf("the page was asked %d times; a web page is not retried", n)
			}
			lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
			if !strings.HasPrefix(lines[0], "clawdcode: ") || !strings.Contains(lines[0], `HTML page ("Team Dashboard")`) {
				t.Errorf("the error line does not name the page: %q", lines[0])
			}
			if !strings.Contains(r.Stderr, "/v1") || !strings.Contains(r.Stderr, page.URL+"/v1") {
				t.Errorf("no hint that /v1 may be missing: %q", r.Stderr)
			}
			for _, leak := range []string{"<html", "DOCTYPE", "font-family", "window.app", "Unsupported method"} {
				if strings.Contains(r.Stderr, leak) {
					t.Errorf("the page's text %q was printed: %q", leak, r.Stderr)
				}
			}
			if len(lines) > 3 {
				t.Errorf("more than an error line and its hints: %q", r.Stderr)
			}
		})
	}
}

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// pageServer is a web site on loopback that records what each request
// carried.
type pageServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
}

func newPageServer(t *testing.T) *pageServer {
	t.Helper()
	s := &pageServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(r.Context()))
		s.mu.Unlock()
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Release notes</title><style>.x{color:STYLE-MARKER}</style>
<script>var SCRIPT_MARKER = 1;</script></head>
<body><h1>Version 2.0</h1><p>The <em>fast</em> path is <a href="/fast">documented here</a>.</p></body></html>`)
		case "/away":
			_, port, _ := strings.Cut(r.Host, ":")
			http.Redirect(w, r, "http://localhost:"+port+"/page", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *pageServer) seen() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests...)
}

// TestWebFetchAllowedByDomainRule: issue 26. WebFetch of a page on a host
// a rule allows answers with its text as Markdown, and sends nothing of
// clawdcode's credentials.
func TestWebFetchAllowedByDomainRule(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	site := newPageServer(t)
	w.Server.SetResponder(llmtest.Agent())
	w.MustRun("-p", "--allowed-tools", "WebFetch(domain:127.0.0.1)", "webfetch "+site.URL+"/page what changed in 2.0?")
	got := toolResults(w)
	if len(got) != 1 {
		t.Fatalf("tool results %q", got)
	}
	for _, want := range []string{"Title: Release notes", "Wanted: what changed in 2.0?", "# Version 2.0",
		"The *fast* path is [documented here](" + site.URL + "/fast)."} {
		if !strings.Contains(got[0], want) {
			t.Errorf("WebFetch answered without %q:\n%s", want, got[0])
		}
	}
	if strings.Contains(got[0], "MARKER") {
		t.Errorf("a script or style reached the model:\n%s", got[0])
	}
	reqs := site.seen()
	if len(reqs) != 1 {
		t.Fatalf("%d requests to the site", len(reqs))
	}
	for name, values := range reqs[0].Header {
		if name == "Authorization" || name == "Cookie" || strings.Contains(strings.Join(values, " "), w.Key) {
			t.Errorf("the page request carried %s: %q", name, values)
		}
	}
}

// TestWebFetchDeniedWithoutRule: in -p, without a rule for the host, the
// call is denied (the model told which rule would allow it) and no request
// leaves.
func TestWebFetchDeniedWithoutRule(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	site := newPageServer(t)
	w.Server.SetResponder(llmtest.Agent())
	w.MustRun("-p", "--allowed-tools", "Bash,WebFetch(domain:localhost)", "webfetch "+site.URL+"/page")
	got := toolResults(w)
	if len(got) != 1 || !strings.Contains(got[0], "denied") || !strings.Contains(got[0], "WebFetch(domain:127.0.0.1)") {
		t.Fatalf("tool results %q", got)
	}
	if n := len(site.seen()); n != 0 {
		t.Fatalf("a denied WebFetch sent %d requests", n)
	}
}

// TestWebFetchRedirectToAnotherHost: a redirect from 127.0.0.1 to
// localhost is not followed; the model is told the target, and its call
// for it goes through permission again (denied here: no rule for
// localhost).
func TestWebFetchRedirectToAnotherHost(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	site := newPageServer(t)
	_, port, _ := strings.Cut(strings.TrimPrefix(site.URL, "http://"), ":")
	target := "http://localhost:" + port + "/page"
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		switch n := len(toolMessages(r)); {
		case n == 0:
			return llmtest.ToolCalls(llmtest.Call("WebFetch", `{"url":"`+site.URL+`/away"}`))
		case n == 1 && strings.Contains(r.Messages[len(r.Messages)-1].Content, target):
			in, _ := json.Marshal(map[string]string{"url": target})
			return llmtest.ToolCalls(llmtest.Call("WebFetch", string(in)))
		}
		return llmtest.Text("stopped")
	})
	w.MustRun("-p", "--allowed-tools", "WebFetch(domain:127.0.0.1)", "read the page")
	got := toolResults(w)
	if len(got) != 2 {
		t.Fatalf("want the redirect answer and the second call's, got %q", got)
	}
	if !strings.Contains(got[0], "to another host: "+target) || strings.Contains(got[0], "Version 2.0") {
		t.Errorf("the redirect answer:\n%s", got[0])
	}
	if !strings.Contains(got[1], "denied") {
		t.Errorf("the call for the other host was not denied:\n%s", got[1])
	}
	for _, r := range site.seen() {
		if !strings.HasPrefix(r.Host, "127.0.0.1:") {
			t.Errorf("a request reached host %s", r.Host)
		}
	}
}

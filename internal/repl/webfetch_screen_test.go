//go:build unix

package repl

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenWebFetchAsksFirst: issue 26. WebFetch of a page asks before
// any request leaves, offers the host's rule for "always", and once
// allowed answers with the page's text.
func TestScreenWebFetchAsksFirst(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Changelog</title><script>SCRIPT_MARKER()</script></head>`+
			`<body><h1>Version 2.0 is out</h1><p>Faster builds.</p></body></html>`)
	}))
	defer site.Close()
	call, _ := json.Marshal(map[string]string{"url": site.URL + "/changes", "prompt": "what is new"})
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("WebFetch", string(call))), llmtest.Text("fetched it"))
	s := startScreen(t, srv, 120, 40)
	s.waitPrompt()
	s.keys("what changed?")
	s.sendKeys("Enter")
	scr := s.waitFor("Yes, and allow WebFetch(domain:127.0.0.1) for this session")
	if !strings.Contains(scr, site.URL+"/changes") {
		t.Fatalf("the question does not name the URL:\n%s", scr)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests left before the user answered", n)
	}
	s.keys("y")
	scr = s.waitFor("fetched it")
	if hits.Load() != 1 || !strings.Contains(scr, "Title: Changelog") {
		t.Fatalf("%d requests; screen:\n%s", hits.Load(), scr)
	}
	got := lastToolResult(srv)
	if !strings.Contains(got, "# Version 2.0 is out") || strings.Contains(got, "SCRIPT_MARKER") {
		t.Fatalf("the model got:\n%s", got)
	}
}

// lastToolResult is the content of the last tool message the model was
// sent ("" when there is none).
func lastToolResult(srv *llmtest.Server) string {
	msgs := srv.LastRequest().Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == chat.RoleTool {
			return msgs[i].Content
		}
	}
	return ""
}

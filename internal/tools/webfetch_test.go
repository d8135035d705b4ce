package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

const testPage = `<!DOCTYPE html>
<html><head><title>The  Test
 Page</title>
<style>body { color: SECRET-STYLE; }</style>
<script>var leak = "SECRET-SCRIPT";</script>
</head><body>
<h1>Main heading</h1>
<p>Some <strong>bold</strong> prose with <a href="/docs/intro">a relative link</a>.</p>
<h2>Second heading</h2>
<ul><li>first item</li><li>second item</li></ul>
<script>document.write("SECRET-SCRIPT-2")</script>
</body></html>`

// webServer serves the test pages and records the headers of each
// request, to check that nothing of clawdcode's credentials is sent.
func webServer(t *testing.T) (*httptest.Server, *[]http.Header) {
	t.Helper()
	var seen []http.Header
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, testPage)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain <b>text</b> as is\n")
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		// 127.0.0.1 and localhost are two hosts to WebFetch.
		u := *r.URL
		u.Scheme, u.Host, u.Path = "http", "localhost:"+portOf(r.Host), "/page"
		http.Redirect(w, r, u.String(), http.StatusMovedPermanently)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><h1>Start of the huge page</h1>")
		for i := range 20000 {
			fmt.Fprintf(w, "<p>paragraph %d of filler text</p>\n", i)
		}
		fmt.Fprint(w, "<p>END-OF-HUGE</p></body></html>")
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page here", http.StatusNotFound)
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Clone())
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func portOf(host string) string {
	_, port, _ := strings.Cut(host, ":")
	return port
}

func TestWebFetchPageToMarkdown(t *testing.T) {
	t.Parallel()
	srv, seen := webServer(t)
	r := call(t, NewEnv(t.TempDir()), NameWebFetch, obj{"url": srv.URL + "/page", "prompt": "what are the headings?"})
	wantOK(t, r)
	for _, want := range []string{
		"URL: " + srv.URL + "/page\n",
		"Title: The Test Page\n",
		"Wanted: what are the headings?",
		"# Main heading", "## Second heading", "**bold**",
		"[a relative link](" + srv.URL + "/docs/intro)",
		"- first item",
	} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, r.Output)
		}
	}
	for _, leak := range []string{"SECRET-STYLE", "SECRET-SCRIPT", "<p>", "<h1>"} {
		if strings.Contains(r.Output, leak) {
			t.Errorf("output holds %q:\n%s", leak, r.Output)
		}
	}
	for _, h := range *seen {
		for _, name := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
			if h.Get(name) != "" {
				t.Errorf("the request carried %s: %q", name, h.Get(name))
			}
		}
	}
}

func TestWebFetchTextAndFailures(t *testing.T) {
	t.Parallel()
	srv, _ := webServer(t)
	env := NewEnv(t.TempDir())
	r := call(t, env, NameWebFetch, obj{"url": srv.URL + "/text"})
	wantOK(t, r)
	if !strings.HasSuffix(r.Output, "\nplain <b>text</b> as is\n") || strings.Contains(r.Output, "Wanted:") {
		t.Errorf("plain text: %q", r.Output)
	}
	r = call(t, env, NameWebFetch, obj{"url": srv.URL + "/missing"})
	wantError(t, r, "HTTP 404 Not Found")
	if !strings.Contains(r.Output, "no such page here") {
		t.Errorf("404 body lost: %q", r.Output)
	}
	wantError(t, call(t, env, NameWebFetch, obj{"url": srv.URL + "/image"}), "image/png", "not text")
}

func TestWebFetchRedirects(t *testing.T) {
	t.Parallel()
	srv, seen := webServer(t)
	env := NewEnv(t.TempDir())
	// Same host: followed.
	r := call(t, env, NameWebFetch, obj{"url": srv.URL + "/moved"})
	wantOK(t, r)
	if !strings.Contains(r.Output, "URL: "+srv.URL+"/page\n") || !strings.Contains(r.Output, "# Main heading") {
		t.Fatalf("same-host redirect not followed: %s", r.Output)
	}
	// Another host: not followed, named.
	n := len(*seen)
	r = call(t, env, NameWebFetch, obj{"url": srv.URL + "/away"})
	wantOK(t, r)
	target := "http://localhost:" + portOf(strings.TrimPrefix(srv.URL, "http://")) + "/page"
	if !strings.Contains(r.Output, "to another host: "+target) || !strings.Contains(r.Output, "call WebFetch again") {
		t.Fatalf("cross-host redirect: %s", r.Output)
	}
	if strings.Contains(r.Output, "Main heading") || len(*seen) != n+1 {
		t.Fatalf("the redirect to another host was followed (%d requests)", len(*seen)-n)
	}
}

func TestWebFetchBounds(t *testing.T) {
	t.Parallel()
	srv, _ := webServer(t)
	r := call(t, NewEnv(t.TempDir()), NameWebFetch, obj{"url": srv.URL + "/huge"})
	wantOK(t, r)
	if len(r.Output) > OutputCap+500 || !strings.Contains(r.Output, "omitted ...]") ||
		!strings.Contains(r.Output, "# Start of the huge page") || !strings.Contains(r.Output, "END-OF-HUGE") {
		t.Fatalf("huge page: %d bytes:\n%s", len(r.Output), clip(r.Output))
	}
	// The download cap: a fetcher allowed 2000 bytes reads no more.
	small := newWebFetcher(5*time.Second, 2000)
	r = small.run(context.Background(), webFetchParams{URL: srv.URL + "/huge"})
	if !strings.Contains(r.Output, "Download stopped at 2000 bytes") || strings.Contains(r.Output, "END-OF-HUGE") {
		t.Fatalf("download cap: %s", clip(r.Output))
	}
	// The timeout: a server that never answers.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	r = newWebFetcher(200*time.Millisecond, 2000).run(context.Background(), webFetchParams{URL: hang.URL})
	wantError(t, r, "Timeout")
}

func TestWebFetchRefusesOtherSchemes(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	tl, _ := Lookup(Set(env), NameWebFetch)
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "/etc/passwd", "example.com", "http://", "gopher://x"} {
		in, _ := json.Marshal(obj{"url": u})
		res, ok := Precheck(t.Context(), tl, in)
		if ok || res.Error == "" {
			t.Errorf("Precheck(%q) passed", u)
		}
		wantError(t, tl.Run(context.Background(), in))
	}
}

func TestWebFetchDomainRules(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	fetch, _ := Lookup(Set(NewEnv(root)), NameWebFetch)
	in := func(u string) json.RawMessage { b, _ := json.Marshal(obj{"url": u}); return b }
	tests := []struct {
		allow, deny string
		url         string
		ok          bool
	}{
		{"WebFetch(domain:example.com)", "", "https://example.com/a?b", true},
		{"WebFetch(domain:example.com)", "", "http://EXAMPLE.com:8080/", true},
		// The exact host: a subdomain is another host.
		{"WebFetch(domain:example.com)", "", "https://www.example.com/", false},
		{"WebFetch(domain:example.com)", "", "https://example.com.evil.net/", false},
		{"WebFetch(domain:example.com)", "", "https://evil.net/?example.com", false},
		{"WebFetch(domain:127.0.0.1)", "", "http://127.0.0.1:4000/page", true},
		{"WebFetch(domain:127.0.0.1)", "", "http://localhost:4000/page", false},
		{"WebFetch(domain:[::1])", "", "http://[::1]:4000/page", true},
		{"WebFetch", "", "https://anything.org/", true},
		{"WebFetch", "WebFetch(domain:evil.net)", "https://evil.net/", false},
		{"", "", "https://example.com/", false},
		{"Bash", "", "https://example.com/", false},
	}
	for _, tt := range tests {
		allow, err := ParseRules(tt.allow)
		if err != nil {
			t.Fatal(err)
		}
		deny, err := ParseRules(tt.deny)
		if err != nil {
			t.Fatal(err)
		}
		p := NewPermissions(PermissionsConfig{Root: root, Allow: allow, Deny: deny})
		denied, err := p.Check(context.Background(), fetch, in(tt.url))
		if err != nil {
			t.Fatal(err)
		}
		if (denied == "") != tt.ok {
			t.Errorf("allow %q deny %q, %s: denied %q, want ok=%v", tt.allow, tt.deny, tt.url, denied, tt.ok)
		}
	}
	// The denial in -p names the rule that would allow the host.
	p := NewPermissions(PermissionsConfig{Root: root})
	denied, _ := p.Check(context.Background(), fetch, in("http://127.0.0.1:9/x"))
	if !strings.Contains(denied, "--allowed-tools 'WebFetch(domain:127.0.0.1)'") {
		t.Errorf("denial: %q", denied)
	}
	if got := p.Propose(fetch, in("https://Docs.Example.com/x")); len(got) != 1 || got[0].String() != "WebFetch(domain:docs.example.com)" {
		t.Errorf("Propose = %v", got)
	}
}

func TestParseWebFetchRule(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"WebFetch(domain:Example.COM)": "WebFetch(domain:example.com)",
		"webfetch( domain:a.b )":       "WebFetch(domain:a.b)",
		"WebFetch":                     "WebFetch",
		"WebFetch(domain:[::1])":       "WebFetch(domain:[::1])",
		"WebFetch(domain:::1)":         "WebFetch(domain:[::1])",
		"BashOutput":                   "BashOutput",
		"KillShell":                    "KillShell",
	} {
		r, err := ParseRule(spec)
		if err != nil || r.String() != want {
			t.Errorf("ParseRule(%q) = %q, %v; want %q", spec, r, err, want)
		}
	}
	for _, spec := range []string{"WebFetch(example.com)", "WebFetch(domain:)", "WebFetch(domain:*.example.com)",
		"WebFetch(domain:https://example.com)", "WebFetch(domain:example.com/docs)", "WebFetch(domain:example.com:443)",
		"KillShell(bash_1)"} {
		if r, err := ParseRule(spec); err == nil {
			t.Errorf("ParseRule(%q) = %q, want an error", spec, r)
		}
	}
	// A rule written back reads the same.
	r, _ := ParseRule("WebFetch(domain:[::1])")
	u, _ := url.Parse("http://[::1]:80/")
	if back, err := ParseRule(r.String()); err != nil || back != r || u.Hostname() != r.domain {
		t.Errorf("%q read back as %q, %v", r, back, err)
	}
}

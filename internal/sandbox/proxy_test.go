package sandbox

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestProxy: an allowed host is reached (plain HTTP and a CONNECT
// tunnel); another gets 403 with a line saying why, and is remembered
// for the command's notes.
func TestProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "upstream") }))
	defer srv.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "tunnelled") }))
	defer tlsSrv.Close()
	allowed := "127.0.0.1"
	p := newProxy(func(host string) bool { return host == allowed })
	defer p.close()
	port, err := p.loopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	proxyURL, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", port))
	tr := tlsSrv.Client().Transport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(proxyURL)
	tr.DisableKeepAlives = true // each request asks the proxy anew
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	get := func(u string) (int, string) {
		resp, err := client.Get(u)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(srv.URL); code != 200 || body != "upstream" {
		t.Errorf("plain HTTP to an allowed host: %d %q", code, body)
	}
	if code, body := get(tlsSrv.URL); code != 200 || body != "tunnelled" {
		t.Errorf("CONNECT to an allowed host: %d %q", code, body)
	}
	from := time.Now()
	allowed = "nothing"
	if code, body := get(srv.URL); code != 403 || !strings.Contains(body, "not an allowed host") {
		t.Errorf("plain HTTP to a host not allowed: %d %q", code, body)
	}
	if _, msg := get(tlsSrv.URL); !strings.Contains(msg, "Forbidden") {
		t.Errorf("CONNECT to a host not allowed: %q", msg)
	}
	got := p.refusals(from, time.Now())
	want := []string{strings.TrimPrefix(srv.URL, "http://"), strings.TrimPrefix(tlsSrv.URL, "https://")}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("refusals %q, want %q", got, want)
	}
}

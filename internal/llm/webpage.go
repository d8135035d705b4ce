package llm

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"golang.org/x/net/html"
)

// A base URL that is not an OpenAI-compatible API — a web UI, a static
// file server, a proxy's landing page, most often the server's root with
// its /v1 left off — answers with an HTML page, whatever the status. Such
// an answer is KindNotAPI: said in one line naming the page by its title
// (the page itself is never shown), and not retried, since asking again
// gets the same page. Only a gateway's 502, 503 or 504 page is a passing
// failure of a real API behind it, retried like any 5xx.

// webPage reports whether a response with this content type and body is
// an HTML page, and names it: by its <title> when it has one.
func webPage(contentType string, body []byte) (name string, ok bool) {
	mt, _, _ := mime.ParseMediaType(contentType)
	head := bytes.ToLower(bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\uFEFF")), " \t\r\n"))
	isHTML := mt == "text/html" || mt == "application/xhtml+xml" ||
		bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
	if !isHTML {
		return "", false
	}
	if title := pageTitle(body); title != "" {
		return fmt.Sprintf("an HTML page (%q)", title), true
	}
	return "an HTML page", true
}

// pageTitle is the text of the page's first <title>, whitespace folded
// and bounded; "" when it has none. The page is read by an HTML
// tokenizer, not searched for strings.
func pageTitle(body []byte) string {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) != "title" {
				continue
			}
			var b strings.Builder
			for z.Next() == html.TextToken {
				b.Write(z.Text())
			}
			return truncate(strings.Join(strings.Fields(b.String()), " "), 80)
		}
	}
}

// webPageError is the *Error of an answer that is a web page: KindNotAPI,
// but for a gateway's passing failure (kept as kind, retried) — either
// way naming the page, not quoting it.
func webPageError(status int, kind Kind, page string) *Error {
	msg := fmt.Sprintf("the server answered %d %s with %s, not an OpenAI-compatible API's answer", status, http.StatusText(status), page)
	switch status {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout,
		http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests:
		return &Error{Kind: kind, StatusCode: status, Message: msg}
	}
	return &Error{Kind: KindNotAPI, StatusCode: status, Message: msg}
}

// readHead reads up to n bytes of r (what a page's title needs).
func readHead(r io.Reader, n int64) []byte {
	b, _ := io.ReadAll(io.LimitReader(r, n))
	return b
}

package tools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/toolcall"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// NameWebFetch is the web page tool's name (CONTRACT.md §3).
const NameWebFetch = toolcall.WebFetch

const (
	// webFetchTimeout bounds a whole fetch: connecting, redirects, the body.
	webFetchTimeout = 30 * time.Second
	// webFetchMaxBytes bounds the download: a page past it is read that far.
	webFetchMaxBytes = 5 << 20
	// webFetchMaxRedirects bounds the redirects followed on one host.
	webFetchMaxRedirects = 10
)

type webFetchParams struct {
	URL    string `json:"url" param:"text" jsonschema:"The http:// or https:// URL."`
	Prompt string `json:"prompt,omitempty" jsonschema:"What you want to know from the page."`
}

// webFetcher fetches pages with a client of its own: no cookie jar, no
// Authorization header, nothing of the model client's — clawdcode's
// credentials never leave with a page request.
type webFetcher struct {
	client   *http.Client
	maxBytes int64
}

func newWebFetcher(timeout time.Duration, maxBytes int64) *webFetcher {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	return &webFetcher{
		client:   &http.Client{Transport: transport, Timeout: timeout, CheckRedirect: sameHostRedirect},
		maxBytes: maxBytes,
	}
}

func newWebFetchTool(_ *Env) *tool {
	f := newWebFetcher(webFetchTimeout, webFetchMaxBytes)
	t := typed(&tool{
		name: NameWebFetch,
		description: "Fetch an http(s) page as Markdown (plain text as is), at most ~" + fmt.Sprint(OutputCap) + " bytes. " +
			"prompt is only echoed: no model reads the page for you. A redirect to another host is not followed; " +
			"call WebFetch again with the URL the answer names.",
		permission: true,
	}, f.run, func(p webFetchParams) string { return strings.TrimSpace(p.URL) })
	t.validate = checked(func(_ context.Context, p webFetchParams) (Result, bool) {
		if _, err := parseWebURL(p.URL); err != nil {
			return invalid(err), false
		}
		return Result{}, true
	})
	return t
}

// parseWebURL accepts an absolute http or https URL with a host.
func parseWebURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: url: %v", errBadArgs, err)
	}
	if !webScheme(u.Scheme) {
		return nil, fmt.Errorf("%w: url %q: only http:// and https:// pages can be fetched", errBadArgs, raw)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%w: url %q has no host", errBadArgs, raw)
	}
	return u, nil
}

func webScheme(s string) bool { return strings.EqualFold(s, "http") || strings.EqualFold(s, "https") }

// sameHostRedirect follows a redirect only on the host the user allowed:
// another host is another permission, so the fetch stops at the redirect
// and the model is told where it points (run).
func sameHostRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= webFetchMaxRedirects {
		return fmt.Errorf("stopped after %d redirects", len(via))
	}
	if !webScheme(req.URL.Scheme) || !strings.EqualFold(req.URL.Hostname(), via[0].URL.Hostname()) {
		return http.ErrUseLastResponse
	}
	return nil
}

func (f *webFetcher) run(ctx context.Context, p webFetchParams) Result {
	u, err := parseWebURL(p.URL)
	if err != nil {
		return invalid(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail("fetch %s: %v", u, err)
	}
	req.Header.Set("User-Agent", "clawdcode WebFetch")
	req.Header.Set("Accept", "text/html, text/markdown, text/plain;q=0.9, */*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return fail("fetch %s: %v", u, err)
	}
	defer resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return redirectResult(resp, loc)
	}
	body, cut, readErr := readCapped(resp.Body, f.maxBytes)
	if readErr != nil && len(body) == 0 {
		return fail("fetch %s: read the page: %v", resp.Request.URL, readErr)
	}
	page, err := readable(resp.Header.Get("Content-Type"), body, resp.Request.URL)
	if err != nil {
		return fail("fetch %s: %v", resp.Request.URL, err)
	}
	var head strings.Builder
	fmt.Fprintf(&head, "URL: %s\n", resp.Request.URL)
	if page.title != "" {
		fmt.Fprintf(&head, "Title: %s\n", page.title)
	}
	if q := strings.TrimSpace(p.Prompt); q != "" {
		fmt.Fprintf(&head, "Wanted: %s (the page follows as fetched; no model has read it for you)\n", termtext.FirstLine(q, 300, "…"))
	}
	if cut {
		fmt.Fprintf(&head, "Download stopped at %d bytes: the page is longer.\n", f.maxBytes)
	}
	if readErr != nil {
		fmt.Fprintf(&head, "Download stopped after %d bytes: %v\n", len(body), readErr)
	}
	res := Result{Output: head.String() + "\n" + CapText(page.text, OutputCap)}
	if resp.StatusCode >= 400 {
		res.Error = "HTTP " + resp.Status
	}
	return res
}

// redirectResult answers a redirect sameHostRedirect did not follow.
func redirectResult(resp *http.Response, loc string) Result {
	target, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return fail("%s redirects to %q, which is no URL", resp.Request.URL, loc)
	}
	return Result{Output: fmt.Sprintf("%s redirects (HTTP %s) to another host: %s\n"+
		"The redirect was not followed. To read that page, call WebFetch again with url %q "+
		"(it needs permission for its own host).", resp.Request.URL, resp.Status, target, target.String())}
}

// readCapped reads at most limit bytes of r; cut says there was more.
func readCapped(r io.Reader, limit int64) (body []byte, cut bool, err error) {
	body, err = io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(body)) > limit {
		return body[:limit], true, err
	}
	return body, false, err
}

// page is a fetched page as text.
type page struct {
	title string
	text  string
}

// readable turns a body into text by its content type: HTML to Markdown
// (links made absolute against base), other text as is, anything else is
// refused rather than dumped into the context.
func readable(contentType string, body []byte, base *url.URL) (page, error) {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil || mediaType == "" {
		mediaType = http.DetectContentType(body)
		mediaType, _, _ = strings.Cut(mediaType, ";")
	}
	utf8Body, err := toUTF8(body, contentType)
	if err != nil {
		return page{}, err
	}
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return htmlPage(utf8Body, base)
	case isTextType(mediaType) && utf8.Valid(utf8Body):
		return page{text: string(utf8Body)}, nil
	}
	return page{}, fmt.Errorf("the page is %s (%d bytes), not text: WebFetch reads text and HTML pages only", mediaType, len(body))
}

func isTextType(t string) bool {
	if strings.HasPrefix(t, "text/") {
		return true
	}
	switch t {
	case "application/json", "application/xml", "application/javascript", "application/x-javascript",
		"application/yaml", "application/x-yaml", "application/toml", "application/x-sh":
		return true
	}
	return strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml")
}

// toUTF8 decodes body from the charset its content type or its own
// markup declares (charset.NewReader's rules).
func toUTF8(body []byte, contentType string) ([]byte, error) {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return body, nil // an unknown charset: keep the bytes, utf8.Valid decides
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("decode the page: %w", err)
	}
	return out, nil
}

// markdown is the HTML converter: the base plugin drops head, script,
// style and the like; CommonMark and tables give the rest its shape.
var markdown = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(),
	commonmark.NewCommonmarkPlugin(),
	table.NewTablePlugin(),
))

func htmlPage(body []byte, base *url.URL) (page, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return page{}, fmt.Errorf("parse the page: %w", err)
	}
	title := strings.Join(strings.Fields(nodeText(findElement(doc, "title"))), " ")
	md, err := markdown.ConvertNode(doc, converter.WithDomain(base.String()))
	if err != nil {
		return page{}, fmt.Errorf("convert the page to Markdown: %w", err)
	}
	return page{title: title, text: string(md)}, nil
}

// findElement is the first element named tag in document order, or nil.
func findElement(n *html.Node, tag string) *html.Node {
	if n.Type == html.ElementNode && n.Data == tag {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := findElement(c, tag); found != nil {
			return found
		}
	}
	return nil
}

// nodeText is the text under n ("" for nil).
func nodeText(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Client posts OTLP/HTTP requests (protobuf) to one signal's URL.
// Exports run on the SDK's background goroutines, so a slow or absent
// collector never holds up the caller; each request is bounded by Timeout
// and by its context, which the SDK cancels at shutdown.
type Client struct {
	URL     string
	Headers map[string]string
	Gzip    bool
	Timeout time.Duration
	HTTP    *http.Client
}

// NewClient posts to url through a transport of its own.
func NewClient(url string, headers map[string]string, gz bool, timeout time.Duration) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &Client{URL: url, Headers: headers, Gzip: gz, Timeout: timeout, HTTP: &http.Client{Transport: tr}}
}

// Send posts one export request's body. A response other than 2xx is an
// error naming the status; the request is not retried (the next export
// carries the next data, and cumulative metrics their whole sums).
func (c *Client) Send(ctx context.Context, body []byte) error {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	enc := ""
	if c.Gzip {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		body, enc = zb.Bytes(), "gzip"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("otlp export to %s: %w", c.URL, err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if enc != "" {
		req.Header.Set("Content-Encoding", enc)
	}
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("otlp export: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("otlp export to %s: %s", c.URL, resp.Status)
	}
	return nil
}

// Close drops the client's idle connections.
func (c *Client) Close() { c.HTTP.CloseIdleConnections() }

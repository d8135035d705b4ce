package s3test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// Fault is what a Proxy does to the requests that reach it.
type Fault int

const (
	Pass    Fault = iota // forward to the server
	Fail500              // answer 500 Internal Server Error
	Hang                 // answer nothing until the client gives up (or the proxy closes)
)

// Proxy stands between clawdcode and a Server on loopback and fails
// requests on demand: a server that answers 500, or is slow past any
// timeout. A closed Proxy is a server that is down.
type Proxy struct {
	URL string

	srv    *httptest.Server
	fault  atomic.Int32
	seen   atomic.Int64
	mu     sync.Mutex
	closed chan struct{}
}

// NewProxy starts a proxy to s, passing everything until told otherwise.
func NewProxy(tb testing.TB, s *Server) *Proxy {
	tb.Helper()
	target, err := url.Parse(s.Endpoint)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{closed: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(target)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.seen.Add(1)
		switch Fault(p.fault.Load()) {
		case Fail500:
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected</Message></Error>`))
		case Hang:
			select {
			case <-r.Context().Done():
			case <-p.closed:
			}
		default:
			rp.ServeHTTP(w, r)
		}
	}))
	p.URL = p.srv.URL
	tb.Cleanup(p.Close)
	return p
}

// Set makes the proxy do f from now on.
func (p *Proxy) Set(f Fault) { p.fault.Store(int32(f)) }

// Requests is how many requests reached the proxy.
func (p *Proxy) Requests() int64 { return p.seen.Load() }

// Close stops the proxy: its address refuses connections from then on.
func (p *Proxy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.closed:
		return
	default:
	}
	close(p.closed)
	p.srv.CloseClientConnections()
	p.srv.Close()
}

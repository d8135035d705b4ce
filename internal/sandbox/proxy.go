package sandbox

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// proxy is the only way out of the sandbox's network: an HTTP proxy
// (CONNECT tunnels and plain HTTP requests) that clawdcode serves, outside
// the sandbox, on a listener each host opened on its own loopback. It
// reaches only the hosts allowed asks about, and answers any other with
// 403 and a line saying why, which it also keeps for the command's result
// (Refusals).
type proxy struct {
	allowed   func(host string) bool
	transport *http.Transport

	mu       sync.Mutex
	refused  []refusal
	servers  []*http.Server
	isClosed bool
	port     int // on the machine's loopback (loopbackPort), 0 until asked
}

type refusal struct {
	at     time.Time
	target string
}

// maxRefusals bounds what the proxy remembers.
const maxRefusals = 64

// dialTimeout bounds a connection to an allowed host.
const dialTimeout = 30 * time.Second

func newProxy(allowed func(string) bool) *proxy {
	d := &net.Dialer{Timeout: dialTimeout}
	return &proxy{allowed: allowed, transport: &http.Transport{
		DialContext:           d.DialContext,
		DisableCompression:    true,
		ResponseHeaderTimeout: 5 * time.Minute,
		IdleConnTimeout:       30 * time.Second,
	}}
}

// serve answers requests on ln until close.
func (p *proxy) serve(ln net.Listener) {
	srv := &http.Server{Handler: p, ReadHeaderTimeout: time.Minute}
	p.mu.Lock()
	if p.isClosed {
		p.mu.Unlock()
		ln.Close()
		return
	}
	p.servers = append(p.servers, srv)
	p.mu.Unlock()
	_ = srv.Serve(ln)
}

// loopbackPort serves the proxy on the machine's loopback, once, and
// returns its port: where there is no network namespace to give it a
// loopback of its own (macOS), sandbox-exec's profile lets commands reach
// that port only.
func (p *proxy) loopbackPort() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.port > 0 {
		return p.port, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("start the sandbox's proxy: %w", err)
	}
	p.port = ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{Handler: p, ReadHeaderTimeout: time.Minute}
	p.servers = append(p.servers, srv)
	go func() { _ = srv.Serve(ln) }()
	return p.port, nil
}

func (p *proxy) close() {
	p.mu.Lock()
	p.isClosed = true
	servers := p.servers
	p.mu.Unlock()
	for _, s := range servers {
		s.Close()
	}
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "clawdcode sandbox: this is the sandbox's proxy; send it proxy requests (HTTP_PROXY)", http.StatusBadRequest)
		return
	}
	if !p.allowed(r.URL.Hostname()) {
		p.refuse(w, hostPort(r.URL.Host, r.URL.Scheme))
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, "clawdcode sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// tunnel answers CONNECT: a byte stream to an allowed host's port.
func (p *proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, "clawdcode sandbox proxy: CONNECT wants host:port", http.StatusBadRequest)
		return
	}
	if !p.allowed(host) {
		p.refuse(w, r.Host)
		return
	}
	upstream, err := net.DialTimeout("tcp", r.Host, dialTimeout)
	if err != nil {
		http.Error(w, "clawdcode sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "clawdcode sandbox proxy: cannot tunnel", http.StatusInternalServerError)
		return
	}
	client, rw, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	_, _ = client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	go func() {
		// What the client sent after its request is in rw's buffer.
		_, _ = io.Copy(upstream, rw)
		closeWrite(upstream)
	}()
	_, _ = io.Copy(client, upstream)
	client.Close()
	upstream.Close()
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

func hostPort(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	if scheme == "https" {
		return net.JoinHostPort(host, "443")
	}
	return net.JoinHostPort(host, "80")
}

// refuse answers 403 for target and keeps it.
func (p *proxy) refuse(w http.ResponseWriter, target string) {
	p.mu.Lock()
	p.refused = append(p.refused, refusal{at: time.Now(), target: target})
	if len(p.refused) > maxRefusals {
		p.refused = p.refused[len(p.refused)-maxRefusals:]
	}
	p.mu.Unlock()
	msg := fmt.Sprintf("clawdcode sandbox: the connection to %s was refused: it is not an allowed host "+
		"([sandbox] allow_domains or a WebFetch(domain:…) rule allows one)\n", target)
	http.Error(w, strings.TrimSuffix(msg, "\n"), http.StatusForbidden)
}

// refusals are the targets refused between from and to.
func (p *proxy) refusals(from, to time.Time) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.refused {
		if !r.at.Before(from) && !r.at.After(to) && !containsString(out, r.target) {
			out = append(out, r.target)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// proxyEnv points the command's HTTP clients at the proxy, except for
// loopback names (the sandbox's own servers), unless a loopback host is
// allowed: then the host's loopback is reached through the proxy.
func (s *Sandbox) proxyEnv(env []string, port int) []string {
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	out := make([]string, 0, len(env)+8)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY":
			continue
		}
		out = append(out, kv)
	}
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		out = append(out, name+"="+url)
	}
	var direct []string
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		if !s.allowed(h) {
			direct = append(direct, h)
		}
	}
	if len(direct) > 0 {
		list := strings.Join(direct, ",")
		out = append(out, "NO_PROXY="+list, "no_proxy="+list)
	}
	return out
}

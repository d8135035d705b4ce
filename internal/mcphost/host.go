// Package mcphost connects clawdcode to the MCP servers of the
// configuration ([mcp_servers.NAME]) through the official Go SDK and
// offers their tools to the model as mcp__<server>__<tool>.
//
// What it guarantees:
//
//   - Start returns at once: every server connects in the background, its
//     Status "connecting" until it has answered its tool list or failed,
//     bounded by Options.StartTimeout. Watch is told of each change, and
//     Tools offers a server's tools from the moment it is
//     ready, so a front end is never held up by a slow or hanging server.
//   - Offer is for a run that must not wait for servers it may never
//     call (-p): the tools of the servers connected, or seen answering in
//     an earlier run (Options.Cache keeps their lists), and MCPSearch and
//     MCPCall for one never seen; a call waits for its server, bounded.
//     The tools offered depend on the settings and on what servers
//     answered before, never on how fast they answer now (cache.go).
//   - Settle waits, bounded, for the servers still connecting, gives up
//     on those that have not answered, and reports each server that
//     failed once (Options.Warn); the run goes on without its tools.
//   - A server that dies later is reported once, when a call first fails;
//     its calls then answer the model with an error result.
//   - A call is cancelled with its ctx (Ctrl-C), which the SDK passes on
//     to the server as a cancellation.
//   - Tool output is text the model can read: text content verbatim,
//     other content (images, audio, resources) named and sized, never
//     dumped; structured content as JSON when there is no text.
//   - stdio servers are started with the environment the tools' children
//     get (Options.Env), plus the server's own env from the configuration.
//
// A Host is safe for concurrent use. Close ends every server.
package mcphost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clawdcode/clawdcode/internal/buildinfo"
	"github.com/clawdcode/clawdcode/internal/secrets"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// ServerConfig is one [mcp_servers.NAME] table: Command (with Args and
// Env) for a stdio server, or URL (with Headers) for streamable HTTP.
type ServerConfig struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// Options configure Start.
type Options struct {
	// StartTimeout bounds connecting to all servers; 0 = DefaultStartTimeout.
	StartTimeout time.Duration
	// Env is the base environment of stdio servers, which the caller
	// keeps credentials out of (nil = the process's without them, see
	// secrets.ChildEnv); the server's own Env is added to it.
	Env []string
	// Dir is the working directory of stdio servers (the project root).
	Dir string
	// Warn receives each problem once: a server that died, and (from
	// Settle) one that could not be started.
	Warn func(msg string)

	// Logger receives connection and call events; nil = none.
	Logger *slog.Logger
	// Cache is the file that keeps each server's tool list from one run
	// to the next (cache.go); "" = none.
	Cache string
}

// DefaultStartTimeout is long enough for npx to start a Node server from
// its cache, short enough that a broken one does not hold the user up.
const DefaultStartTimeout = 20 * time.Second

// State of a server.
const (
	StateConnecting = "connecting"
	StateConnected  = "connected"
	StateFailed     = "failed"
	StateDied       = "disconnected"
)

// Status is what /mcp shows of one server.
type Status struct {
	Name  string
	State string
	Error string   // why it failed or died
	Tools []string // the model-facing names of its tools
	// Full is the name the server gives a tool (FullName) whose
	// model-facing name differs (cut or changed), by that name.
	Full map[string]string
}

// Host holds the connections.
type Host struct {
	opts    Options
	servers []*server

	// warned are the duplicate-name warnings already given (Tools is
	// asked again as servers connect; each is said once).
	warnMu sync.Mutex
	warned map[string]bool

	watchMu sync.Mutex
	watch   func()

	// lazy is the MCPSearch/MCPCall pair Offer gives, made once;
	// callWait the wait Offer was given, for the calls of tools offered
	// before every server answered (stillOffered).
	lazyOnce sync.Once
	lazy     []tools.Tool
	callWait atomic.Int64
}

// Watch makes fn be called after each change of a server's state, from
// the goroutine that connected it, with no lock held (nil stops it).
func (h *Host) Watch(fn func()) {
	if h == nil {
		return
	}
	h.watchMu.Lock()
	h.watch = fn
	h.watchMu.Unlock()
}

// warnName passes on one duplicate-name warning, once.
func (h *Host) warnName(msg string) {
	h.warnMu.Lock()
	seen := h.warned[msg]
	if h.warned == nil {
		h.warned = map[string]bool{}
	}
	h.warned[msg] = true
	h.warnMu.Unlock()
	if !seen && h.opts.Warn != nil {
		h.opts.Warn(msg)
	}
}

func (h *Host) changed() {
	h.watchMu.Lock()
	fn := h.watch
	h.watchMu.Unlock()
	if fn != nil {
		fn()
	}
}

type server struct {
	cfg  ServerConfig
	host *Host
	// cancel ends the connection attempt (Settle giving up, Close); done
	// is closed when the attempt is over, whatever its outcome.
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	session *mcp.ClientSession
	state   string
	err     string
	tools   []*mcp.Tool
	cached  []*mcp.Tool // the list it answered in an earlier run (cache.go)
	warned  bool
	gaveUp  string // why Settle stopped waiting, which wins over the attempt's own error
	pgid    int    // the stdio server's process group, once started
}

// Start begins connecting to the servers, concurrently and in the
// background, and returns at once. It never fails as a whole: each
// server's progress and outcome are in Status. ctx bounds the attempts.
func Start(ctx context.Context, cfgs []ServerConfig, opts Options) *Host {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Host{opts: opts}
	sorted := append([]ServerConfig(nil), cfgs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	cache := readCache(opts.Cache)
	for _, c := range sorted {
		cctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
		s := &server{cfg: c, host: h, cancel: cancel, done: make(chan struct{}), state: StateConnecting,
			cached: cache.Servers[fingerprint(c)].Tools}
		h.servers = append(h.servers, s)
		go func() {
			defer close(s.done)
			defer cancel()
			s.connect(cctx)
			h.changed()
		}()
	}
	return h
}

// Settle waits until every server has connected or failed, at most wait
// (ctx may end it sooner), gives up on the servers still connecting then,
// and reports each server that could not be started once (Options.Warn).
func (h *Host) Settle(ctx context.Context, wait time.Duration) {
	if h == nil {
		return
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for _, s := range h.servers {
		select {
		case <-s.done:
			continue
		case <-timer.C:
		case <-ctx.Done():
		}
		reason := fmt.Sprintf("no answer within %v; going on without it", wait)
		if ctx.Err() != nil {
			reason = "interrupted while connecting"
		}
		for _, late := range h.servers {
			late.giveUp(reason)
		}
		break
	}
	for _, s := range h.servers {
		<-s.done
		if s.current() == StateFailed {
			s.warnOnce()
		}
	}
}

// giveUp ends a connection attempt still under way, for reason.
func (s *server) giveUp(reason string) {
	s.mu.Lock()
	if s.state == StateConnecting {
		s.gaveUp = reason
		if s.pgid > 0 {
			_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
		}
	}
	s.mu.Unlock()
	s.cancel()
}

func (s *server) current() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// connect makes one attempt and records its outcome.
func (s *server) connect(ctx context.Context) {
	start := time.Now()
	transport, err := s.transport()
	if err == nil {
		client := mcp.NewClient(&mcp.Implementation{Name: "clawdcode", Version: buildinfo.Version}, nil)
		var session *mcp.ClientSession
		session, err = client.Connect(ctx, transport, nil)
		if err == nil {
			var tools []*mcp.Tool
			for t, terr := range session.Tools(ctx, nil) {
				if terr != nil {
					err = fmt.Errorf("list tools: %w", terr)
					break
				}
				tools = append(tools, t)
			}
			if err == nil && s.connected(session, tools) {
				s.host.opts.Logger.Info("mcp connected", "server", s.cfg.Name, "tools", len(tools), "ms", time.Since(start).Milliseconds())
				s.remember(tools)
				return
			}
			_ = session.Close()
		}
	}
	if err == nil || (ctx.Err() != nil && !errors.Is(err, context.Canceled)) {
		err = fmt.Errorf("no answer within %v", s.host.opts.StartTimeout)
	}
	s.mu.Lock()
	s.state, s.err = StateFailed, termtext.Flatten(err.Error(), 300)
	if s.gaveUp != "" {
		s.err = s.gaveUp
	}
	s.mu.Unlock()
	s.host.opts.Logger.Warn("mcp start failed", "server", s.cfg.Name, "ms", time.Since(start).Milliseconds())
}

// connected records a session that answered its tool list, unless the
// attempt was given up (Settle, Close) meanwhile.
func (s *server) connected(session *mcp.ClientSession, tools []*mcp.Tool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gaveUp != "" {
		return false
	}
	s.session, s.tools, s.state = session, tools, StateConnected
	return true
}

func (s *server) transport() (mcp.Transport, error) {
	switch {
	case s.cfg.Command != "" && s.cfg.URL != "":
		return nil, errors.New("both command and url are set; a server is one or the other")
	case s.cfg.Command != "":
		cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
		cmd.Dir = s.host.opts.Dir
		// The base environment is the caller's, filtered by it; without
		// one, the process's without credentials (secrets.ChildEnv). The
		// server's own env, configured for it by name, is added after.
		cmd.Env = append([]string(nil), s.host.opts.Env...)
		if s.host.opts.Env == nil {
			cmd.Env = secrets.ChildEnv(os.Environ(), nil, nil)
		}
		for k, v := range s.cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		// The server's stderr is its own chatter; the terminal is the
		// user's. Its own process group keeps the terminal's Ctrl-C, which
		// cancels a call, from killing the server.
		cmd.Stderr = nil
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return startedTransport{Transport: &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, started: func() {
			s.mu.Lock()
			s.pgid = cmd.Process.Pid
			s.mu.Unlock()
		}}, nil
	case s.cfg.URL != "":
		hc := &http.Client{Transport: headerTransport{headers: s.cfg.Headers, next: http.DefaultTransport}}
		return &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc, MaxRetries: 1}, nil
	}
	return nil, errors.New("neither command nor url is set")
}

// startedTransport tells when its command has started: a server given up
// while it connects is killed at once (its process group), not left to
// the SDK's graceful stop, which waits for a server that never answered.
type startedTransport struct {
	mcp.Transport
	started func()
}

func (t startedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err == nil {
		t.started()
	}
	return c, err
}

// headerTransport adds the configured headers (an Authorization token,
// say) to every request to an HTTP server.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) == 0 {
		return t.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}

func (s *server) warnOnce() {
	s.mu.Lock()
	if s.warned {
		s.mu.Unlock()
		return
	}
	s.warned = true
	state, msg := s.state, s.err
	s.mu.Unlock()
	if s.host.opts.Warn != nil {
		verb := "could not be started"
		if state == StateDied {
			verb = "stopped working"
		}
		s.host.opts.Warn(fmt.Sprintf("MCP server %q %s: %s", s.cfg.Name, verb, msg))
	}
}

// Status lists the servers in name order.
func (h *Host) Status() []Status {
	if h == nil {
		return nil
	}
	ready := h.Tools()
	offered := make(map[string]bool, len(ready))
	for _, t := range ready {
		offered[t.Name()] = true
	}
	out := make([]Status, 0, len(h.servers))
	for _, s := range h.servers {
		s.mu.Lock()
		st := Status{Name: s.cfg.Name, State: s.state, Error: s.err}
		for _, t := range s.tools {
			if name := ToolName(s.cfg.Name, t.Name); offered[name] {
				st.Tools = append(st.Tools, name) // not one refused for its name (Tools)
				if full := FullName(s.cfg.Name, t.Name); full != name {
					if st.Full == nil {
						st.Full = map[string]string{}
					}
					st.Full[name] = full
				}
			}
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Close ends every connection (and stdio server process).
func (h *Host) Close() error {
	if h == nil {
		return nil
	}
	var errs []error
	for _, s := range h.servers {
		s.giveUp("closed while connecting")
		<-s.done
		s.mu.Lock()
		sess := s.session
		s.session = nil
		s.mu.Unlock()
		if sess != nil {
			if err := sess.Close(); err != nil && !isClosedErr(err) {
				errs = append(errs, fmt.Errorf("mcp server %s: %w", s.cfg.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

func isClosedErr(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "closed") || strings.Contains(msg, "signal: terminated") || strings.Contains(msg, "exit status")
}

// maxToolName is the longest function name the chat APIs take (OpenAI
// refuses a request with a longer one).
const maxToolName = 64

// ToolName is the model-facing name of a server's tool,
// mcp__<server>__<tool>: characters the chat APIs refuse in a function
// name (outside [A-Za-z0-9_-]) become '_', and a name past 64 characters
// is cut to end in '_' and 8 hex digits of a hash of the server's and the
// tool's own names — valid, the same from run to run, and another tool's
// only if both names are (names one without regard to case are refused,
// both: tools.UniqueNames).
func ToolName(serverName, tool string) string {
	name := "mcp__" + sanitize(serverName) + "__" + sanitize(tool)
	if len(name) <= maxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(serverName + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return name[:maxToolName-len(suffix)] + suffix
}

// FullName is a tool's name as its server gives it, unshortened and
// unchanged: what /mcp shows beside a ToolName that differs.
func FullName(serverName, tool string) string {
	return "mcp__" + serverName + "__" + tool
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// ProtocolVersion is the Agent Client Protocol version spoken.
const ProtocolVersion = 1

// defaultMaxSessions bounds the sessions with an engine at once; past it
// the one used least recently and not running is closed (a later
// request for it opens it again).
const defaultMaxSessions = 16

// maxOpening bounds the engines being built at once: a client sending a
// thousand session/new at a time waits, it does not build a thousand.
const maxOpening = 4

// Options is what Serve runs with.
type Options struct {
	// In and Out are the protocol's stream: stdin and stdout. Nothing but
	// protocol messages is written to Out.
	In  io.Reader
	Out io.Writer
	// Open builds the engine of a session (a new one, or Load).
	Open func(ctx context.Context, req OpenRequest) (*Engine, error)
	// List lists the sessions of the project at cwd, most recent first
	// (session/list).
	List func(ctx context.Context, cwd string) ([]storage.SessionInfo, error)
	// Version is clawdcode's, told to the client.
	Version string
	// Logger is the diagnostic log (nil: none); Warn is where what the
	// user should hear outside any session goes (stderr).
	Logger *slog.Logger
	Warn   func(string)
	// MaxSessions bounds the sessions open at once (0: defaultMaxSessions).
	MaxSessions int
}

// Serve speaks the Agent Client Protocol on opts.In and opts.Out until
// the client closes its end or ctx is done; then every turn running is
// cancelled (its records kept, as an interrupt keeps them) and every
// engine closed. Malformed input is answered, never fatal.
func Serve(ctx context.Context, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = defaultMaxSessions
	}
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	s := &server{
		opts:     opts,
		out:      newLineWriter(opts.Out),
		life:     life,
		sessions: map[string]*session{},
		closed:   map[string]closedSession{},
		opening:  make(chan struct{}, maxOpening),
	}
	pr, pw := io.Pipe()
	s.conn = acpsdk.NewAgentSideConnection(s, s.out, pr)
	s.conn.SetLogger(opts.Logger)
	go func() {
		err := readFrames(opts.In, func(line []byte) error {
			_, err := pw.Write(line)
			return err
		}, s.out, func(note string) { opts.Logger.Warn("acp: input refused", "why", note) })
		_ = pw.CloseWithError(err)
	}()
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	stop()
	return s.shutdown()
}

// server is the agent side of one connection: the client's capabilities
// and the sessions it opened, each with its engine.
type server struct {
	opts Options
	out  *lineWriter
	conn *acpsdk.AgentSideConnection
	// life is cancelled when the connection ends: every turn's context
	// derives from it (not from a request's, which the protocol library
	// cancels on its own schedule).
	life    context.Context
	opening chan struct{}

	mu       sync.Mutex
	caps     acpsdk.ClientCapabilities
	sessions map[string]*session
	closed   map[string]closedSession // stored sessions closed to make room
	clock    int64                    // orders the sessions' last use
	ended    bool
}

// closedSession is what reopens a session closed to make room.
type closedSession struct {
	cwd string
	mcp []mcphost.ServerConfig
}

var (
	_ acpsdk.Agent       = (*server)(nil)
	_ acpsdk.AgentLoader = (*server)(nil)
)

func (s *server) Initialize(_ context.Context, req acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	s.mu.Lock()
	s.caps = req.ClientCapabilities
	s.mu.Unlock()
	title := "clawdcode"
	return acpsdk.InitializeResponse{
		ProtocolVersion: ProtocolVersion,
		AgentInfo:       &acpsdk.Implementation{Name: "clawdcode", Title: &title, Version: s.opts.Version},
		AuthMethods:     []acpsdk.AuthMethod{},
		AgentCapabilities: acpsdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acpsdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			// Streamable HTTP and stdio; clawdcode's MCP client has no SSE.
			McpCapabilities: acpsdk.McpCapabilities{Http: true},
			SessionCapabilities: acpsdk.SessionCapabilities{
				Close:  &acpsdk.SessionCloseCapabilities{},
				List:   &acpsdk.SessionListCapabilities{},
				Resume: &acpsdk.SessionResumeCapabilities{},
			},
		},
	}, nil
}

func (s *server) Authenticate(context.Context, acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	// No method is offered: the model server's key comes from the
	// environment or the configuration, as for the REPL.
	return acpsdk.AuthenticateResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": "clawdcode offers no authentication method"})
}

func (s *server) SetSessionConfigOption(context.Context, acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	return acpsdk.SetSessionConfigOptionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionSetConfigOption)
}

func (s *server) NewSession(ctx context.Context, req acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	sess, err := s.open(ctx, req.Cwd, req.McpServers, "")
	if err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	// The commands follow the response: before it, the client does not
	// know the session they belong to.
	s.out.afterResponse(sess.id, sess.announceCommands)
	return acpsdk.NewSessionResponse{SessionId: acpsdk.SessionId(sess.id), Modes: sess.modeState()}, nil
}

func (s *server) LoadSession(ctx context.Context, req acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	sess, err := s.load(ctx, string(req.SessionId), req.Cwd, req.McpServers)
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	if err := sess.replay(ctx); err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	sess.announceCommands()
	sess.reportUsage(nil)
	return acpsdk.LoadSessionResponse{Modes: sess.modeState()}, nil
}

func (s *server) ResumeSession(ctx context.Context, req acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	sess, err := s.load(ctx, string(req.SessionId), req.Cwd, req.McpServers)
	if err != nil {
		return acpsdk.ResumeSessionResponse{}, err
	}
	sess.announceCommands()
	return acpsdk.ResumeSessionResponse{Modes: sess.modeState()}, nil
}

// load opens the stored session id in cwd, or finds it open already (a
// second load of a session replays it again, from the same engine).
func (s *server) load(ctx context.Context, id, cwd string, servers []acpsdk.McpServer) (*session, error) {
	if sess, ok := s.lookup(id); ok {
		switch {
		case sess.cwd != filepath.Clean(cwd):
			return nil, invalidParams("session %s is open in %s, not %s", id, sess.cwd, cwd)
		case sess.busy():
			return nil, acpsdk.NewInvalidRequest(map[string]any{"error": ErrBusy.Error()})
		}
		return sess, nil
	}
	if id == "" {
		return nil, invalidParams("sessionId is required")
	}
	return s.open(ctx, cwd, servers, id)
}

func (s *server) ListSessions(ctx context.Context, req acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	if req.Cwd == nil || !filepath.IsAbs(*req.Cwd) {
		return acpsdk.ListSessionsResponse{}, invalidParams("cwd must be an absolute path")
	}
	infos, err := s.opts.List(ctx, filepath.Clean(*req.Cwd))
	if err != nil {
		return acpsdk.ListSessionsResponse{}, internalError(err)
	}
	out := acpsdk.ListSessionsResponse{Sessions: []acpsdk.SessionInfo{}}
	for _, in := range infos {
		info := acpsdk.SessionInfo{SessionId: acpsdk.SessionId(in.ID), Cwd: in.Project}
		if in.Title != "" {
			info.Title = &in.Title
		}
		if !in.Updated.IsZero() {
			at := in.Updated.UTC().Format(time.RFC3339)
			info.UpdatedAt = &at
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

func (s *server) CloseSession(_ context.Context, req acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	sess, ok := s.lookup(string(req.SessionId))
	if !ok {
		return acpsdk.CloseSessionResponse{}, unknownSession(string(req.SessionId))
	}
	s.mu.Lock()
	delete(s.sessions, sess.id)
	s.mu.Unlock()
	if err := sess.close(); err != nil {
		return acpsdk.CloseSessionResponse{}, internalError(err)
	}
	return acpsdk.CloseSessionResponse{}, nil
}

func (s *server) Cancel(_ context.Context, n acpsdk.CancelNotification) error {
	if sess, ok := s.lookup(string(n.SessionId)); ok {
		sess.cancelTurn()
	}
	return nil
}

func (s *server) SetSessionMode(_ context.Context, req acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	sess, ok := s.lookup(string(req.SessionId))
	if !ok {
		return acpsdk.SetSessionModeResponse{}, unknownSession(string(req.SessionId))
	}
	if err := sess.setMode(string(req.ModeId)); err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	return acpsdk.SetSessionModeResponse{}, nil
}

// capabilities is what the client said it offers.
func (s *server) capabilities() acpsdk.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// lookup finds an open session, marking its use.
func (s *server) lookup(id string) (*session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	if ok {
		s.clock++
		sess.used = s.clock
	}
	return sess, ok
}

// session finds the session a request names: open, or closed to make
// room and opened again now.
func (s *server) session(ctx context.Context, id string) (*session, error) {
	if sess, ok := s.lookup(id); ok {
		return sess, nil
	}
	s.mu.Lock()
	c, ok := s.closed[id]
	s.mu.Unlock()
	if !ok {
		return nil, unknownSession(id)
	}
	return s.openServers(ctx, c.cwd, c.mcp, id)
}

// open builds the engine of a session in cwd (load: a stored one) and
// adds it to the open ones.
func (s *server) open(ctx context.Context, cwd string, servers []acpsdk.McpServer, load string) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, invalidParams("cwd must be an absolute path, got %q", cwd)
	}
	mcp, skipped := mcpServers(servers)
	if len(skipped) > 0 && s.opts.Warn != nil {
		s.opts.Warn(fmt.Sprintf("the editor's MCP servers %v use SSE, which clawdcode does not speak: left out", skipped))
	}
	return s.openServers(ctx, filepath.Clean(cwd), mcp, load)
}

func (s *server) openServers(ctx context.Context, cwd string, mcp []mcphost.ServerConfig, load string) (*session, error) {
	select {
	case s.opening <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.opening }()
	sess := newSession(s, cwd, mcp)
	// The engine outlives the request that opens it: its MCP servers
	// connect in the background, on the connection's context.
	eng, err := s.opts.Open(s.life, sess.openRequest(load))
	if err != nil {
		return nil, openError(err, load)
	}
	sess.eng = eng
	sess.id = eng.Sessions.NextID()
	eng.Modes.SetPlanApprover(sess)
	if err := s.add(sess); err != nil {
		_ = eng.Close()
		return nil, err
	}
	return sess, nil
}

// add makes sess an open session, closing the least recently used idle
// one when there are too many.
func (s *server) add(sess *session) error {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return errors.New("the connection is closing")
	}
	if _, dup := s.sessions[sess.id]; dup {
		s.mu.Unlock()
		return invalidParams("session %s is open already", sess.id)
	}
	var evict *session
	if len(s.sessions) >= s.opts.MaxSessions {
		evict = s.idlest()
		if evict == nil {
			s.mu.Unlock()
			return internalError(fmt.Errorf("%d sessions are running turns: close one first", len(s.sessions)))
		}
		delete(s.sessions, evict.id)
		if evict.stored() {
			s.closed[evict.id] = closedSession{cwd: evict.cwd, mcp: evict.mcp}
		}
	}
	s.clock++
	sess.used = s.clock
	s.sessions[sess.id] = sess
	delete(s.closed, sess.id)
	s.mu.Unlock()
	if evict != nil {
		if err := evict.close(); err != nil {
			s.opts.Logger.Warn("acp: close session", "id", evict.id, "error", err.Error())
		}
	}
	return nil
}

// idlest is the open session used least recently that runs no turn (s.mu
// held), nil when every one runs.
func (s *server) idlest() *session {
	var all []*session
	for _, sess := range s.sessions {
		if !sess.busy() {
			all = append(all, sess)
		}
	}
	if len(all) == 0 {
		return nil
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used < all[j].used })
	return all[0]
}

// shutdown cancels every turn, waits for each to answer its calls and
// end, and closes every engine.
func (s *server) shutdown() error {
	s.mu.Lock()
	s.ended = true
	all := make([]*session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		all = append(all, sess)
	}
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	var errs []error
	for _, sess := range all {
		errs = append(errs, sess.close())
	}
	return errors.Join(errs...)
}

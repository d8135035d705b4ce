package acp

import (
	"context"
	"errors"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// closeWait bounds how long closing a session waits for its cancelled
// turn to answer its calls and end (a tool stuck in a system call is left
// behind by the engine after its own grace, see agent.runTool).
const closeWait = 30 * time.Second

// session is one of the client's sessions: its engine, the turn running
// in it, and the tool calls the client has been shown. The engine is
// driven by the goroutine of the prompt running (one at a time); the
// permission questions, a command's output and the client's cancel come
// from others, under mu.
type session struct {
	srv *server
	id  string
	cwd string
	mcp []mcphost.ServerConfig
	eng *Engine
	// used orders the sessions' last use (server.mu).
	used int64

	mu      sync.Mutex
	running bool
	cancel  context.CancelFunc
	done    chan struct{} // closed when the running turn ends
	closed  bool
	// calls are the tool calls of the running turn the client was shown.
	calls map[string]*callView
	// mode is the mode the client was last told of.
	mode tools.Mode
	// turns counts the turns run (the prompting goroutine's); plans the
	// plans put to the editor (the same goroutine's), naming each.
	turns int
	plans int
}

func newSession(s *server, cwd string, mcp []mcphost.ServerConfig) *session {
	return &session{srv: s, cwd: cwd, mcp: mcp, calls: map[string]*callView{}}
}

// openRequest is what the command line builds this session's engine
// from: the client's abilities go to the tools where it offers them.
func (s *session) openRequest(load string) OpenRequest {
	caps := s.srv.capabilities()
	req := OpenRequest{Cwd: s.cwd, MCPServers: s.mcp, Load: load, Asker: s, WatchOutput: s.watchOutput}
	files := &clientFiles{s: s}
	if caps.Fs.ReadTextFile {
		req.TextReader = files
	}
	if caps.Fs.WriteTextFile {
		req.TextWriter = files
	}
	if caps.Terminal {
		req.Terminal = &clientTerminal{s: s}
	}
	return req
}

// stored reports whether the session exists on disk (its first message
// was sent).
func (s *session) stored() bool { return s.eng.Sessions.ID() != "" }

// busy reports whether a turn is running.
func (s *session) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// begin starts a turn: its context, cancelled by session/cancel, the end
// of the connection or the session's close; end must be called when it
// is over. A second turn while one runs is ErrBusy.
func (s *session) begin() (ctx context.Context, end func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, nil, unknownSession(s.id)
	case s.running:
		return nil, nil, acpsdk.NewInvalidRequest(map[string]any{"error": ErrBusy.Error()})
	}
	ctx, cancel := context.WithCancel(s.srv.life)
	s.running, s.cancel, s.done = true, cancel, make(chan struct{})
	s.calls = map[string]*callView{}
	done := s.done
	return ctx, func() {
		cancel()
		s.mu.Lock()
		s.running, s.cancel = false, nil
		s.mu.Unlock()
		close(done)
	}, nil
}

// cancelTurn cancels the running turn, if any: the engine then ends it as
// an interrupt does in the REPL (what streamed is kept, every call
// answered).
func (s *session) cancelTurn() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// close cancels the running turn, waits for it to end, and closes the
// engine; a session closes once.
func (s *session) close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		select {
		case <-done:
		case <-time.After(closeWait):
			return errors.New("session " + s.id + ": the cancelled turn did not end; its engine is left open")
		}
	}
	return s.eng.Close()
}

// notify sends one update of this session to the client. A client that
// went away is no error of the turn's: the engine goes on recording.
func (s *session) notify(u acpsdk.SessionUpdate) {
	err := s.srv.conn.SessionUpdate(context.WithoutCancel(s.srv.life), acpsdk.SessionNotification{SessionId: acpsdk.SessionId(s.id), Update: u})
	if err != nil {
		s.srv.opts.Logger.Debug("acp: update not sent", "session", s.id, "error", err.Error())
	}
}

package acp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

func TestMain(m *testing.M) {
	os.Exit(harness.Main(m, os.Stderr, "e2e-acp"))
}

// editor is an ACP client, as an editor is one: it drives `clawdcode acp`
// through the protocol library's client side, records every update, and
// answers permission questions as the test says.
type editor struct {
	t    *testing.T
	w    *harness.World
	cmd  *exec.Cmd
	conn *acpsdk.ClientSideConnection
	in   io.WriteCloser
	err  *syncWriter
	done chan struct{}

	mu      sync.Mutex
	updates []acpsdk.SessionNotification
	changed chan struct{} // closed and replaced at each update
	asked   []acpsdk.RequestPermissionRequest
	answer  func(acpsdk.RequestPermissionRequest) string // option id; "" = cancelled
	// buffers are the editor's open files, by absolute path; terminals
	// its terminals; calls the fs and terminal requests it was sent.
	buffers   map[string]string
	terminals map[string]*terminal
	calls     []string
}

// startEditor starts `clawdcode acp args...` in the world's project as
// the client; it ends with the test (stdin closed, the process waited).
func startEditor(t *testing.T, w *harness.World, args ...string) *editor {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := w.Command(ctx, append([]string{"acp"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	e := &editor{t: t, w: w, cmd: cmd, in: in, err: &syncWriter{w: &bytes.Buffer{}}, done: make(chan struct{}), changed: make(chan struct{}),
		answer:  func(acpsdk.RequestPermissionRequest) string { return "allow-once" },
		buffers: map[string]string{}, terminals: map[string]*terminal{}}
	cmd.Stderr = e.err
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(e.done)
	}()
	e.conn = acpsdk.NewClientSideConnection(e, in, out)
	e.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		e.close()
		cancel()
	})
	return e
}

// close ends the client: stdin closed, the agent's exit waited for.
func (e *editor) close() {
	_ = e.in.Close()
	select {
	case <-e.done:
	case <-time.After(time.Minute):
		e.t.Errorf("clawdcode acp did not exit after stdin closed\nstderr:\n%s", e.stderr())
		_ = e.cmd.Process.Kill()
		<-e.done
	}
}

func (e *editor) stderr() string { return e.err.String() }

// initialize is the handshake, as an editor with fs and a terminal (or
// not) makes it.
func (e *editor) initialize(caps acpsdk.ClientCapabilities) acpsdk.InitializeResponse {
	e.t.Helper()
	resp, err := e.conn.Initialize(e.ctx(), acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber, ClientCapabilities: caps})
	if err != nil {
		e.t.Fatalf("initialize: %v\nstderr:\n%s", err, e.stderr())
	}
	return resp
}

// newSession opens a session in the world's project.
func (e *editor) newSession() acpsdk.NewSessionResponse {
	e.t.Helper()
	resp, err := e.conn.NewSession(e.ctx(), acpsdk.NewSessionRequest{Cwd: e.w.Project, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		e.t.Fatalf("session/new: %v\nstderr:\n%s", err, e.stderr())
	}
	return resp
}

// prompt sends text and returns the response (failing the test on error).
func (e *editor) prompt(sid acpsdk.SessionId, text string) acpsdk.PromptResponse {
	e.t.Helper()
	resp, err := e.conn.Prompt(e.ctx(), acpsdk.PromptRequest{SessionId: sid, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
	if err != nil {
		e.t.Fatalf("session/prompt %q: %v\nstderr:\n%s", text, err, e.stderr())
	}
	return resp
}

func (e *editor) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	e.t.Cleanup(cancel)
	return ctx
}

// since are the updates of session sid from index from on.
func (e *editor) since(sid acpsdk.SessionId, from int) []acpsdk.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []acpsdk.SessionUpdate
	for _, n := range e.updates[min(from, len(e.updates)):] {
		if n.SessionId == sid {
			out = append(out, n.Update)
		}
	}
	return out
}

// mark is the number of updates so far (for since).
func (e *editor) mark() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.updates)
}

// waitFor waits until an update of sid from index from on satisfies ok,
// bounded by the run timeout as a safety net only.
func (e *editor) waitFor(sid acpsdk.SessionId, from int, what string, ok func(acpsdk.SessionUpdate) bool) acpsdk.SessionUpdate {
	e.t.Helper()
	deadline := time.After(harness.RunTimeout)
	for {
		e.mu.Lock()
		changed := e.changed
		e.mu.Unlock()
		for _, u := range e.since(sid, from) {
			if ok(u) {
				return u
			}
		}
		select {
		case <-changed:
		case <-deadline:
			e.t.Fatalf("no %s arrived\nstderr:\n%s", what, e.stderr())
		}
	}
}

// commandsOffered waits for the session's first available_commands_update
// and gives its commands by name.
func (e *editor) commandsOffered(sid acpsdk.SessionId) map[string]acpsdk.AvailableCommand {
	e.t.Helper()
	up := e.waitFor(sid, 0, "available_commands_update", func(u acpsdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	out := map[string]acpsdk.AvailableCommand{}
	for _, c := range up.AvailableCommandsUpdate.AvailableCommands {
		out[c.Name] = c
	}
	return out
}

// writeFile writes content to path, making its directories.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// agentText joins the agent's message chunks of ups.
func agentText(ups []acpsdk.SessionUpdate) (text string, chunks int) {
	var b strings.Builder
	for _, u := range ups {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
			chunks++
		}
	}
	return b.String(), chunks
}

// The client's side of the protocol.

func (e *editor) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.updates = append(e.updates, n)
	close(e.changed)
	e.changed = make(chan struct{})
	return nil
}

func (e *editor) RequestPermission(_ context.Context, req acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.asked = append(e.asked, req)
	answer := e.answer
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
	id := answer(req)
	if id == "" {
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{Selected: &acpsdk.RequestPermissionOutcomeSelected{OptionId: acpsdk.PermissionOptionId(id)}}}, nil
}

// answerWith sets how permission questions are answered from now on.
func (e *editor) answerWith(f func(acpsdk.RequestPermissionRequest) string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answer = f
}

func (e *editor) questions() []acpsdk.RequestPermissionRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acpsdk.RequestPermissionRequest(nil), e.asked...)
}

func (e *editor) ReadTextFile(_ context.Context, req acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, "read "+req.Path)
	if text, ok := e.buffers[req.Path]; ok {
		return acpsdk.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(req.Path)
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return acpsdk.ReadTextFileResponse{Content: string(data)}, nil
}

func (e *editor) WriteTextFile(_ context.Context, req acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, "write "+req.Path)
	e.buffers[req.Path] = req.Content
	return acpsdk.WriteTextFileResponse{}, nil
}

// A terminal of the test's editor runs the command here, as an editor's
// own terminal would, and keeps its output.
type terminal struct {
	out  syncWriter
	done chan struct{}
	cmd  *exec.Cmd
}

func (e *editor) CreateTerminal(_ context.Context, req acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	cmd := exec.Command(req.Command, req.Args...)
	if req.Cwd != nil {
		cmd.Dir = *req.Cwd
	}
	cmd.Env = os.Environ()
	for _, v := range req.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	term := &terminal{out: syncWriter{w: &bytes.Buffer{}}, done: make(chan struct{}), cmd: cmd}
	cmd.Stdout, cmd.Stderr = &term.out, &term.out
	if err := cmd.Start(); err != nil {
		return acpsdk.CreateTerminalResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	go func() {
		_ = cmd.Wait()
		close(term.done)
	}()
	e.mu.Lock()
	defer e.mu.Unlock()
	id := fmt.Sprintf("term-%d", len(e.terminals)+1)
	e.terminals[id] = term
	e.calls = append(e.calls, "terminal "+req.Command+" "+strings.Join(req.Args, " "))
	return acpsdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (e *editor) terminal(id string) (*terminal, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, ok := e.terminals[id]
	if !ok {
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": "no terminal " + id})
	}
	return t, nil
}

func (e *editor) KillTerminal(_ context.Context, req acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	t, err := e.terminal(req.TerminalId)
	if err == nil {
		_ = t.cmd.Process.Kill()
	}
	return acpsdk.KillTerminalResponse{}, err
}

func (e *editor) TerminalOutput(_ context.Context, req acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	t, err := e.terminal(req.TerminalId)
	if err != nil {
		return acpsdk.TerminalOutputResponse{}, err
	}
	resp := acpsdk.TerminalOutputResponse{Output: t.out.String()}
	select {
	case <-t.done:
		code := t.cmd.ProcessState.ExitCode()
		resp.ExitStatus = &acpsdk.TerminalExitStatus{ExitCode: &code}
	default:
	}
	return resp, nil
}

func (e *editor) ReleaseTerminal(_ context.Context, req acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	t, err := e.terminal(req.TerminalId)
	if err == nil {
		_ = t.cmd.Process.Kill()
		e.mu.Lock()
		e.calls = append(e.calls, "release "+req.TerminalId)
		e.mu.Unlock()
	}
	return acpsdk.ReleaseTerminalResponse{}, err
}

func (e *editor) WaitForTerminalExit(ctx context.Context, req acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	t, err := e.terminal(req.TerminalId)
	if err != nil {
		return acpsdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return acpsdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	code := t.cmd.ProcessState.ExitCode()
	return acpsdk.WaitForTerminalExitResponse{ExitCode: &code}, nil
}

// clientCalls are the fs and terminal requests the editor was sent.
func (e *editor) clientCalls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.calls...)
}

var _ acpsdk.Client = (*editor)(nil)

// syncWriter guards a buffer written by exec's copier and read by tests.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// newWorld is a world for the ACP tests.
func newWorld(t *testing.T) *harness.World {
	t.Helper()
	return harness.NewWorld(t, llmtest.Options{})
}

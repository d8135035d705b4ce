package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// world is one engine over the real store, tools, context manager and LLM
// client, talking to the in-repo chat-completions server that rejects any
// request the real API would.
type world struct {
	srv   *llmtest.Server
	store *storage.Store
	proj  *storage.Project
	root  string
	llm   *llm.Client
}

func newWorld(t *testing.T, opts llmtest.Options) *world {
	t.Helper()
	srv := llmtest.NewServer(t, opts)
	store := storage.NewStore(t.TempDir())
	root := t.TempDir()
	proj, err := store.Project(root)
	if err != nil {
		t.Fatal(err)
	}
	client, err := llm.New(llm.Config{
		BaseURL: srv.URL(),
		APIKey:  "test-key",
		Retry:   llm.RetryPolicy{MaxAttempts: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &world{srv: srv, store: store, proj: proj, root: proj.Root, llm: client}
}

// mustNew is New, failing t on an error.
func mustNew(t *testing.T, cfg Config) *Engine {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (w *world) engine(t *testing.T, perms *tools.Permissions, maxTurns int) *Engine {
	t.Helper()
	e := mustNew(t, Config{
		Model:       "gpt-4o",
		Window:      128000,
		Threshold:   0.8,
		MaxTurns:    maxTurns,
		Project:     w.proj,
		LLM:         w.llm,
		Permissions: perms,
		Now:         func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// records reads a session file back as the store would show it.
func (w *world) records(t *testing.T, id string) []*storage.Record {
	t.Helper()
	var out []*storage.Record
	err := storage.ReadAll(t.Context(), w.proj.Path(id), func(_ int64, r *storage.Record) error {
		out = append(out, r)
		return nil
	}, func(msg string) { t.Errorf("session file warning: %s", msg) })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func types(rs []*storage.Record) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.Type)
	}
	return strings.Join(s, ",")
}

// lastTool is the content of the last tool message of the last request.
func (w *world) lastTool(t *testing.T) string {
	t.Helper()
	msgs := w.srv.LastRequest().Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	t.Fatalf("last request has no tool message: %+v", msgs)
	return ""
}

// checkAccepted fails t if the server rejected any request.
func (w *world) checkAccepted(t *testing.T) {
	t.Helper()
	for i, r := range w.srv.Requests() {
		if r.Status != 200 {
			t.Fatalf("request %d rejected with %d: %s", i, r.Status, r.Error)
		}
	}
}

func TestEngineOneShotAnswer(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	if id := e.Sessions().ID(); id != "" {
		t.Fatalf("a session %s exists before any message", id)
	}
	w.srv.Enqueue(llmtest.Text("Hello from the model."))
	sink := &recSink{}
	res, err := e.Turns().Submit(t.Context(), "Say hello\nplease", sink)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Hello from the model." || res.NumTurns != 1 || res.Usage.OutputTokens == 0 {
		t.Fatalf("result = %+v", res)
	}
	if sink.text.String() != "Hello from the model." {
		t.Fatalf("streamed %q", sink.text.String())
	}
	req := w.srv.LastRequest()
	if req.Model != "gpt-4o" || req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, w.root) {
		t.Fatalf("request model %q, first message %+v", req.Model, req.Messages[0])
	}
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, ","); got != "Read,Write,Edit,Bash,Glob,Grep,BashOutput,KillShell,WebFetch,Recall,TodoWrite,Task" {
		t.Fatalf("offered tools %s, want the contract tools", got)
	}
	id := e.Sessions().ID()
	if got := types(w.records(t, id)); got != "user,assistant" {
		t.Fatalf("records = %s", got)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	list, err := w.proj.List()
	if err != nil || len(list) != 1 || list[0].Title != "Say hello" {
		t.Fatalf("list = %+v, %v", list, err)
	}
}

func TestEngineStartAndQuitLeavesNoSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	if err := e.Sessions().StartNew(t.Context(), "unused"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if list, err := w.proj.List(); err != nil || len(list) != 0 {
		t.Fatalf("list = %+v, %v", list, err)
	}
}

func TestEngineReadRoundTrip(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	if err := os.WriteFile(filepath.Join(w.root, "notes.txt"), []byte("the secret is 42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := w.engine(t, nil, 0)
	w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"notes.txt"}`)), llmtest.Text("It is 42."))
	sink := &recSink{}
	res, err := e.Turns().Submit(t.Context(), "what is the secret?", sink)
	if err != nil {
		t.Fatal(err)
	}
	w.checkAccepted(t)
	if res.Text != "It is 42." || res.NumTurns != 2 {
		t.Fatalf("result = %+v", res)
	}
	if !strings.Contains(w.lastTool(t), "the secret is 42") {
		t.Fatalf("model was sent %q", w.lastTool(t))
	}
	if got := types(w.records(t, e.Sessions().ID())); got != "user,assistant,tool_use,tool_result,assistant" {
		t.Fatalf("records = %s", got)
	}
	if len(sink.events) != 2 || !strings.HasPrefix(sink.events[0], "start ") || !strings.HasPrefix(sink.events[1], "end ") {
		t.Fatalf("events = %q", sink.events)
	}
}

func TestEngineWritePermission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		perms   *tools.Permissions
		written bool
	}{
		{"denied without permission", tools.NewPermissions(tools.PermissionsConfig{}), false},
		{"allowed by --allowed-tools", tools.NewPermissions(tools.PermissionsConfig{Allow: mustRules(t, "Write")}), true},
		{"allowed by --dangerously-skip-permissions", tools.NewPermissions(tools.PermissionsConfig{SkipAll: true}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			e := w.engine(t, tt.perms, 0)
			w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"out.txt","content":"hi\n"}`)), llmtest.Text("done"))
			if _, err := e.Turns().Submit(t.Context(), "write out.txt", nil); err != nil {
				t.Fatal(err)
			}
			w.checkAccepted(t)
			_, statErr := os.Stat(filepath.Join(w.root, "out.txt"))
			if written := statErr == nil; written != tt.written {
				t.Fatalf("file written = %v, want %v", written, tt.written)
			}
			told := w.lastTool(t)
			if denied := strings.Contains(told, "denied"); denied == tt.written {
				t.Fatalf("model was told %q", told)
			}
		})
	}
}

func TestEngineBadCallsAreAnsweredAndTheRunGoesOn(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	w.srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Teleport", `{}`), llmtest.Call("Read", `{"file_path": "x`), llmtest.Call("Read", `{"file_path":"missing.txt"}`)),
		llmtest.Text("I will stop guessing."),
	)
	res, err := e.Turns().Submit(t.Context(), "go", nil)
	if err != nil {
		t.Fatal(err)
	}
	w.checkAccepted(t)
	if res.Text != "I will stop guessing." {
		t.Fatalf("result = %+v", res)
	}
	msgs := w.srv.LastRequest().Messages
	var results []string
	for _, m := range msgs {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 3 || !strings.Contains(results[0], "unknown tool Teleport") ||
		!strings.Contains(results[1], "invalid JSON arguments for Read") || !strings.Contains(strings.ToLower(results[2]), "missing.txt") {
		t.Fatalf("tool results = %q", results)
	}
}

func TestEngineMaxTurns(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 2)
	read := llmtest.ToolCalls(llmtest.Call("Glob", `{"pattern":"*"}`), llmtest.Call("Glob", `{"pattern":"*.go"}`))
	w.srv.Enqueue(read, read, llmtest.Text("never reached"))
	res, err := e.Turns().Submit(t.Context(), "look around", nil)
	if !errors.Is(err, ErrMaxTurns) || err.Error() != "reached --max-turns 2" {
		t.Fatalf("err = %v", err)
	}
	if res.NumTurns != 2 || len(w.srv.Requests()) != 2 {
		t.Fatalf("turns = %d, requests = %d", res.NumTurns, len(w.srv.Requests()))
	}
	// Every call was answered: the next message makes a valid request.
	w.srv.Enqueue(llmtest.Text("ok"))
	if _, err := e.Turns().Submit(t.Context(), "stop", nil); err != nil {
		t.Fatal(err)
	}
	w.checkAccepted(t)
}

func TestEngineOverflowGivesUpClearly(t *testing.T) {
	t.Parallel()
	// The server's real window is far smaller than clawdcode believes.
	w := newWorld(t, llmtest.Options{Window: 200})
	e := w.engine(t, nil, 0)
	sink := &recSink{}
	_, err := e.Turns().Submit(t.Context(), "hello", sink)
	if !errors.Is(err, ErrContextOverflow) {
		t.Fatalf("err = %v", err)
	}
	// The guard was walked (retries after recovery steps) and the user was
	// told about each step through the sink.
	if n := len(w.srv.Requests()); n < 2 || len(sink.events) == 0 || !strings.HasPrefix(sink.events[0], "notice ") {
		t.Fatalf("%d requests, events %q", n, sink.events)
	}
	if !strings.HasPrefix(err.Error(), "context window exceeded even after truncating tool results and compacting: ") ||
		!strings.Contains(err.Error(), "maximum context length") {
		t.Fatalf("err = %q", err)
	}
	recs := w.records(t, e.Sessions().ID())
	if got := types(recs); !strings.HasPrefix(got, "user") || !strings.HasSuffix(got, ",assistant") ||
		recs[len(recs)-1].Incomplete != storage.IncompleteFailed {
		t.Fatalf("records = %s: want the user message closed by a failed answer", got)
	}
	// The server said its window is 200 tokens, below any usable window:
	// the guard lowered its window as far as the floor (1024 tokens), and
	// no further — one bogus statement must not cripple the session.
	if got := e.Context().Usage().Window; got != 1024 {
		t.Fatalf("effective window after the rejections = %d, want the floor 1024", got)
	}
}

// cancelOnToolStart cancels the turn once a tool has started.
type cancelOnToolStart struct {
	recSink
	cancel context.CancelFunc
}

func (s *cancelOnToolStart) ToolStart(id, name string, input json.RawMessage) {
	s.recSink.ToolStart(id, name, input)
	go func() {
		time.Sleep(50 * time.Millisecond)
		s.cancel()
	}()
}

func TestEngineCtrlCDuringATool(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, tools.NewPermissions(tools.PermissionsConfig{SkipAll: true}), 0)
	w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"sleep 300"}`), llmtest.Call("Glob", `{"pattern":"*"}`)))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	start := time.Now()
	_, err := e.Turns().Submit(ctx, "sleep", &cancelOnToolStart{cancel: cancel})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	// A safety net, not a measure: the command alone lasts 300 s.
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("the tool was not killed: Submit took %v", d)
	}
	recs := w.records(t, e.Sessions().ID())
	if got := types(recs); got != "user,assistant,tool_use,tool_use,tool_result,tool_result" {
		t.Fatalf("records = %s", got)
	}
	for _, r := range recs[4:] {
		if !strings.Contains(r.ToolResult.Error, "interrupted") {
			t.Fatalf("result %+v not marked interrupted", r.ToolResult)
		}
	}
	// The session goes on with a valid request.
	w.srv.Enqueue(llmtest.Text("ok"))
	if _, err := e.Turns().Submit(t.Context(), "never mind", nil); err != nil {
		t.Fatal(err)
	}
	w.checkAccepted(t)
}

// Issue 9: after Ctrl-C the next request's user message was the cancelled
// prompt and the new one glued together, with no marker. Now the turn is
// closed by an answer marked interrupted, and the next message is sent on
// its own (the server rejects two user messages in a row).
func TestEngineCtrlCWhileStreamingRecordsTheInterruption(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{RejectConsecutiveUser: true})
	e := w.engine(t, nil, 0)
	w.srv.Enqueue(llmtest.Reply{Hang: true})
	// Ctrl-C once the server has the request (so the hanging reply is
	// this request's, however slow the machine), not after a fixed time.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for len(w.srv.Requests()) == 0 && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := e.Turns().Submit(ctx, "hello", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	recs := w.records(t, e.Sessions().ID())
	if got := types(recs); got != "user,assistant" {
		t.Fatalf("records = %s", got)
	}
	if r := recs[1]; r.Incomplete != storage.IncompleteInterrupted || !strings.Contains(r.Message.Content, "interrupted") {
		t.Fatalf("the interrupted answer is not marked: %+v %+v", r, r.Message)
	}
	w.srv.Enqueue(llmtest.Text("fresh"))
	if _, err := e.Turns().Submit(t.Context(), "something else", nil); err != nil {
		t.Fatal(err)
	}
	msgs := w.srv.LastRequest().Messages
	last := msgs[len(msgs)-1]
	if last.Content != "something else" || msgs[len(msgs)-2].Role != "assistant" {
		t.Fatalf("the new message is not sent on its own: %+v", msgs)
	}
}

// Issue 9: a turn that failed on 429s merged into the next one. Now it is
// closed by an answer that says the request failed.
func TestEngineFailedTurnDoesNotMergeIntoTheNext(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{RejectConsecutiveUser: true})
	e := w.engine(t, nil, 0)
	w.srv.Enqueue(llmtest.Unauthorized())
	if _, err := e.Turns().Submit(t.Context(), "first", nil); err == nil {
		t.Fatal("the failed turn reported no error")
	}
	w.srv.Enqueue(llmtest.Text("ok"))
	if _, err := e.Turns().Submit(t.Context(), "second", nil); err != nil {
		t.Fatal(err)
	}
	msgs := w.srv.LastRequest().Messages
	if n := len(msgs); msgs[n-1].Content != "second" || msgs[n-2].Role != "assistant" ||
		!strings.Contains(msgs[n-2].Content, "request failed") || msgs[n-3].Content != "first" {
		t.Fatalf("messages = %+v", msgs)
	}
}

func TestEngineResumeAfterACrashSendsAValidRequest(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{RejectConsecutiveUser: true})
	// A previous process recorded a tool call and died before its result.
	sess, err := w.proj.Create(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*storage.Record{
		{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "list the files"}},
		{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Model: "gpt-4o"}},
		{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: "call_dead", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}},
	} {
		if _, err := sess.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	id := sess.ID()
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}

	e := w.engine(t, nil, 0)
	if err := e.Sessions().Resume(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if e.Sessions().ID() != id {
		t.Fatalf("current session = %q, want %q", e.Sessions().ID(), id)
	}
	w.srv.Enqueue(llmtest.Text("Resumed."))
	if _, err := e.Turns().Submit(t.Context(), "go on", nil); err != nil {
		t.Fatal(err)
	}
	w.checkAccepted(t)
	msgs := w.srv.LastRequest().Messages
	if msgs[1].Content != "list the files" || len(msgs[2].ToolCalls) != 1 || msgs[3].ToolCallID != "call_dead" || !resumedTurn(msgs[4].Content, "go on") {
		t.Fatalf("request = %+v", msgs)
	}
}

func TestEngineResumeBusyAndMissing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	a := w.engine(t, nil, 0)
	w.srv.Enqueue(llmtest.Text("first"))
	if _, err := a.Turns().Submit(t.Context(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	b := w.engine(t, nil, 0)
	if err := b.Sessions().Resume(t.Context(), a.Sessions().ID()); !errors.Is(err, storage.ErrSessionBusy) {
		t.Fatalf("resume of a session open elsewhere: err = %v", err)
	}
	if err := b.Sessions().Resume(t.Context(), "00000000-0000-4000-8000-000000000000"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("resume of a missing session: err = %v", err)
	}
	if b.Sessions().ID() != "" {
		t.Fatal("a failed resume changed the current session")
	}
	if err := a.Sessions().Resume(t.Context(), a.Sessions().ID()); err != nil {
		t.Fatalf("resuming the current session: %v", err)
	}
}

// A new session's id is known before anything is written, and its first
// message creates the session under that id; nothing exists before it.
func TestNextIDNamesTheSessionBeforeItExists(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	id := e.Sessions().NextID()
	if id == "" || e.Sessions().NextID() != id || e.Sessions().ID() != "" {
		t.Fatalf("NextID %q, again %q, ID %q", id, e.Sessions().NextID(), e.Sessions().ID())
	}
	if list, _ := w.proj.List(); len(list) != 0 {
		t.Fatalf("NextID created a session: %+v", list)
	}
	w.srv.Enqueue(llmtest.Text("one"), llmtest.Text("two"))
	if _, err := e.Turns().Submit(t.Context(), "first", nil); err != nil {
		t.Fatal(err)
	}
	if e.Sessions().ID() != id || e.Sessions().NextID() != id {
		t.Fatalf("the session was created as %q, not the id named before, %q", e.Sessions().ID(), id)
	}
	if err := e.Sessions().StartNew(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if next := e.Sessions().NextID(); next == id || next == "" {
		t.Fatalf("the next new session is named %q after %q", next, id)
	}
}

func TestEngineNewSessionAndSwitchBack(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	w.srv.Enqueue(llmtest.Text("one"), llmtest.Text("two"), llmtest.Text("three"))
	if _, err := e.Turns().Submit(t.Context(), "first session", nil); err != nil {
		t.Fatal(err)
	}
	first := e.Sessions().ID()
	if err := e.Sessions().StartNew(t.Context(), "Second, titled"); err != nil {
		t.Fatal(err)
	}
	if e.Sessions().ID() != "" {
		t.Fatal("StartNew kept the old session current")
	}
	if _, err := e.Turns().Submit(t.Context(), "second session", nil); err != nil {
		t.Fatal(err)
	}
	second := e.Sessions().ID()
	if second == "" || second == first {
		t.Fatalf("second session id %q (first %q)", second, first)
	}
	if msgs := w.srv.LastRequest().Messages; len(msgs) != 2 {
		t.Fatalf("the new session's request carries old history: %+v", msgs)
	}
	if err := e.Sessions().Resume(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Turns().Submit(t.Context(), "back again", nil); err != nil {
		t.Fatal(err)
	}
	if msgs := w.srv.LastRequest().Messages; len(msgs) != 4 || msgs[1].Content != "first session" {
		t.Fatalf("switching back did not restore the history: %+v", msgs)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	list, err := w.proj.List()
	if err != nil || len(list) != 2 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	titles := map[string]string{list[0].ID: list[0].Title, list[1].ID: list[1].Title}
	if titles[second] != "Second, titled" || titles[first] != "first session" {
		t.Fatalf("titles = %q", titles)
	}
}

func TestEngineSetModel(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	e.Turns().SetModel("gpt-4.1-mini")
	w.srv.Enqueue(llmtest.Text("ok"))
	if _, err := e.Turns().Submit(t.Context(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if e.Turns().Model() != "gpt-4.1-mini" || w.srv.LastRequest().Model != "gpt-4.1-mini" {
		t.Fatalf("model = %q, sent %q", e.Turns().Model(), w.srv.LastRequest().Model)
	}
}

func TestEngineRefusesAnEmptyMessage(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	if _, err := e.Turns().Submit(t.Context(), " \n\t", nil); !errors.Is(err, ErrEmptyMessage) {
		t.Fatalf("err = %v", err)
	}
	if e.Sessions().ID() != "" || len(w.srv.Requests()) != 0 {
		t.Fatal("an empty message started a session or reached the model")
	}
}

func TestEngineOldManagerCannotWriteIntoTheNewSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	w.srv.Enqueue(llmtest.Text("one"), llmtest.Text("two"))
	if _, err := e.Turns().Submit(t.Context(), "first", nil); err != nil {
		t.Fatal(err)
	}
	first, kept := e.Sessions().ID(), e.mgr
	if err := e.Sessions().StartNew(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Turns().Submit(t.Context(), "second", nil); err != nil {
		t.Fatal(err)
	}
	if err := kept.AddUser("stray"); !errors.Is(err, ErrClosed) {
		t.Fatalf("a kept manager wrote after /new: err = %v", err)
	}
	for _, id := range []string{first, e.Sessions().ID()} {
		for _, r := range w.records(t, id) {
			if r.Message != nil && r.Message.Content == "stray" {
				t.Fatalf("session %s got a record from a stale manager", id)
			}
		}
	}
	second := e.Sessions().ID()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e.Sessions().ID() != second {
		t.Fatal("the session id is gone after Close")
	}
	if _, err := e.Turns().Submit(t.Context(), "after close", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Close: err = %v", err)
	}
}

// A /new title is stored in the session file: it survives the loss of the
// index, and the record never reaches the model, before or after a resume.
func TestEngineNewTitleSurvivesIndexRebuild(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{RejectConsecutiveUser: true})
	e := w.engine(t, nil, 0)
	if err := e.Sessions().StartNew(t.Context(), "Release notes"); err != nil {
		t.Fatal(err)
	}
	w.srv.Enqueue(llmtest.Text("Drafted."), llmtest.Text("Shortened."))
	if _, err := e.Turns().Submit(t.Context(), "write the notes for v2", nil); err != nil {
		t.Fatal(err)
	}
	id := e.Sessions().ID()
	if got := types(w.records(t, id)); got != "title,user,assistant" {
		t.Fatalf("records = %s", got)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(w.proj.Dir, "index.json")); err != nil {
		t.Fatal(err)
	}
	list, err := w.proj.List()
	if err != nil || len(list) != 1 || list[0].Title != "Release notes" {
		t.Fatalf("list after an index rebuild = %+v, %v", list, err)
	}

	r := w.engine(t, nil, 0)
	if err := r.Sessions().Resume(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Turns().Submit(t.Context(), "shorter", nil); err != nil {
		t.Fatal(err)
	}
	w.checkAccepted(t)
	msgs := w.srv.LastRequest().Messages
	if len(msgs) != 4 || msgs[1].Content != "write the notes for v2" || !resumedTurn(msgs[3].Content, "shorter") {
		t.Fatalf("resumed request = %+v", msgs)
	}
}

// The lines a resume leaves out are reported through Config.Warn, once
// each, and the rest of the session still loads.
func TestEngineResumeReportsSkippedLines(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{RejectConsecutiveUser: true})
	sess, err := w.proj.Create(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*storage.Record{
		{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "hello"}},
		{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: "hi"}},
	} {
		if _, err := sess.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	id, path := sess.ID(), sess.Path()
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"user","message":{"content":"cut sh`)
	f.Close()

	var warnings []string
	e := mustNew(t, Config{Model: "gpt-4o", Window: 128000, Threshold: 0.8, Project: w.proj, LLM: w.llm,
		Warn: func(msg string) { warnings = append(warnings, msg) }})
	t.Cleanup(func() { e.Close() })
	if err := e.Sessions().Resume(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "line 3") {
		t.Fatalf("warnings = %q, want one about line 3", warnings)
	}
	w.srv.Enqueue(llmtest.Text("still here"))
	if _, err := e.Turns().Submit(t.Context(), "again", nil); err != nil {
		t.Fatal(err)
	}
	w.checkAccepted(t)
	if msgs := w.srv.LastRequest().Messages; len(msgs) != 4 || !resumedTurn(msgs[3].Content, "again") {
		t.Fatalf("request = %+v", msgs)
	}
}

func mustRules(t *testing.T, list string) []tools.Rule {
	t.Helper()
	rules, err := tools.ParseRules(list)
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// resumedTurn reports whether content is the first user message after a
// resume: text, then the re-orientation packet.
func resumedTurn(content, text string) bool {
	return strings.HasPrefix(content, text+"\n\nRe-orientation")
}

// An image a front end gives with a message (an editor's image block) is
// sent with it; something that is no image is left out, said in a notice.
func TestSubmitImagesSendsTheGivenImages(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	w.srv.Enqueue(llmtest.Text("a pixel"))
	sink := &recSink{}
	given := []chat.Image{{MediaType: "image/png", Data: png}, {MediaType: "image/png", Data: []byte("not an image")}}
	if _, err := e.Turns().SubmitImages(t.Context(), "what is this?", given, sink); err != nil {
		t.Fatal(err)
	}
	msgs := w.srv.LastRequest().Messages
	user := msgs[len(msgs)-1]
	if user.Content != "what is this?" || len(user.Images) != 1 || user.Images[0].MediaType != "image/png" || string(user.Images[0].Data) != string(png) {
		t.Fatalf("the request's user message: %q with %d images", user.Content, len(user.Images))
	}
	if !slices.Contains(sink.events, "notice warning") || !slices.Contains(sink.events, "notice attached") {
		t.Fatalf("notices %q, want one attached and one warning", sink.events)
	}
}

// A turn says why its last reply ended, as the server said it: a front
// end tells a reply cut at its max tokens, or stopped by a filter, from
// one that ended.
func TestTurnResultSaysWhyTheReplyEnded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	w.srv.Enqueue(llmtest.Reply{Text: "cut sho", FinishReason: "length"}, llmtest.Text("whole"))
	for _, want := range []string{"length", "stop"} {
		res, err := e.Turns().Submit(t.Context(), "go", nil)
		if err != nil || res.FinishReason != want {
			t.Fatalf("finish reason %q (%v), want %q", res.FinishReason, err, want)
		}
	}
}

package slash

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// realEngine is the session engine over a real store, context manager and
// client, against the in-repo chat-completions server.
func realEngine(t *testing.T) (*agent.Engine, *llmtest.Server, string) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Options{})
	proj, err := storage.NewStore(t.TempDir()).Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Retry: llm.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := agent.New(agent.Config{Model: "gpt-4o", Window: 128000, Threshold: 0.8, Project: proj, LLM: client})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, srv, proj.Root
}

// realEnv is an Env over the real engine's parts.
func realEnv(e *agent.Engine) (*Env, *bytes.Buffer) {
	io, _, out, _ := iostreams.Test()
	return &Env{Parts: PartsOf(e), IO: io}, out
}

// converse runs n question/answer turns, the first of which reads main.go.
func converse(t *testing.T, e *agent.Engine, srv *llmtest.Server, root string, n int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"main.go"}`)))
	for i := range n {
		srv.Enqueue(llmtest.Text(fmt.Sprintf("answer %d: %s", i, strings.Repeat("detail ", 40))))
		if _, err := e.Turns().Submit(t.Context(), fmt.Sprintf("question %d about main.go", i), nil); err != nil {
			t.Fatal(err)
		}
	}
}

var contextFirstLine = regexp.MustCompile(`^Context usage: ~(\d+) / 128000 tokens \((\d+)%\)$`)

func TestContextCommand(t *testing.T) {
	t.Parallel()
	e, srv, root := realEngine(t)
	env, out := realEnv(e)
	if err := Default().Run(t.Context(), env, "/context"); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(out.String(), "\n", 2)[0]
	m := contextFirstLine.FindStringSubmatch(first)
	if m == nil || m[1] == "0" {
		t.Fatalf("first line %q; want the contract's, counting the system prompt and tools", first)
	}
	before := m[1]

	converse(t, e, srv, root, 3)
	out.Reset()
	if err := Default().Run(t.Context(), env, "/context"); err != nil {
		t.Fatal(err)
	}
	m = contextFirstLine.FindStringSubmatch(strings.SplitN(out.String(), "\n", 2)[0])
	if m == nil || m[1] == before {
		t.Fatalf("after three turns /context printed:\n%s", out)
	}
	for _, want := range []string{"system prompt", "tools", "messages", "summary", "auto-compaction"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("/context lacks %q:\n%s", want, out)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var compactLine = regexp.MustCompile(`(\d+) → (\d+) tokens \(-(\d+)%\)`)

func TestCompactCommand(t *testing.T) {
	t.Parallel()
	e, srv, root := realEngine(t)
	env, out := realEnv(e)

	if err := Default().Run(t.Context(), env, "/compact"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "Nothing to compact yet") {
		t.Fatalf("/compact on an empty session printed %q", out)
	}

	converse(t, e, srv, root, 6)
	srv.Enqueue(llmtest.Text("## Summary\nThe user asked six questions about main.go; all were answered."))
	out.Reset()
	if err := Default().Run(t.Context(), env, "/compact keep the API decisions"); err != nil {
		t.Fatal(err)
	}
	m := compactLine.FindStringSubmatch(out.String())
	if m == nil || atoi(t, m[2]) >= atoi(t, m[1]) {
		t.Fatalf("/compact printed %q; want N → M tokens (-P%%) with M < N", out)
	}
	if !strings.Contains(out.String(), "main.go") || strings.Contains(out.String(), "fallback") {
		t.Fatalf("/compact printed %q; want main.go among the files and no fallback", out)
	}
	summaryReq := srv.LastRequest()
	if !strings.Contains(fmt.Sprint(summaryReq.Messages), "keep the API decisions") {
		t.Fatal("the instructions did not reach the summary request")
	}
	if e.Context().Compactions() != 1 {
		t.Fatalf("compactions = %d", e.Context().Compactions())
	}
}

func TestCompactCommandFallback(t *testing.T) {
	t.Parallel()
	e, srv, root := realEngine(t)
	env, out := realEnv(e)
	converse(t, e, srv, root, 6)
	srv.Enqueue(llmtest.ServerError())
	if err := Default().Run(t.Context(), env, "/compact"); err != nil {
		t.Fatal(err)
	}
	if !compactLine.MatchString(out.String()) || !strings.Contains(out.String(), "fallback") {
		t.Fatalf("/compact with a failing summary printed %q", out)
	}
}

func TestCostCommand(t *testing.T) {
	t.Parallel()
	e, srv, root := realEngine(t)
	env, out := realEnv(e)
	if err := Default().Run(t.Context(), env, "/cost"); err != nil || !strings.HasPrefix(out.String(), "Tokens used in this session: input 0, output 0\n") {
		t.Fatalf("fresh session: %q, %v", out, err)
	}
	converse(t, e, srv, root, 2)
	out.Reset()
	if err := Default().Run(t.Context(), env, "/cost"); err != nil {
		t.Fatal(err)
	}
	var in, outTok string
	if _, err := fmt.Sscanf(out.String(), "Tokens used in this session: input %s output %s", &in, &outTok); err != nil || in == "0," || outTok == "0" {
		t.Fatalf("/cost printed %q (%v)", out, err)
	}
	// Issue 9: /cost had no money figure. The engine's model is priced.
	if !regexp.MustCompile(`Estimated cost: \$0\.\d+ at \S+'s prices`).MatchString(out.String()) {
		t.Fatalf("/cost gives no estimate in money: %q", out)
	}
}

func TestCostCountsCachedTokensAndPrices(t *testing.T) {
	t.Parallel()
	p, ok := tokens.PriceOf("openai/GPT-4o-2024-08-06")
	if !ok || p.Input != 2.50 {
		t.Fatalf("gpt-4o price = %+v, %v", p, ok)
	}
	if _, ok := tokens.PriceOf("llama3.1:8b"); ok {
		t.Fatal("a local model has a price")
	}
	// A million input tokens, half from the cache, and a million out.
	if got := p.Cost(1_000_000, 500_000, 1_000_000); got != 1.25+0.625+10 {
		t.Fatalf("cost = %v", got)
	}
}

func TestSlashCommandsDriveTheRealEngine(t *testing.T) {
	t.Parallel()
	e, srv, _ := realEngine(t)
	env, out := realEnv(e)
	srv.Enqueue(llmtest.Text("one"))
	if _, err := e.Turns().Submit(t.Context(), "first topic", nil); err != nil {
		t.Fatal(err)
	}
	first := e.Sessions().ID()
	if err := Default().Run(t.Context(), env, "/new Second topic"); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(llmtest.Text("two"))
	if _, err := e.Turns().Submit(t.Context(), "hello again", nil); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Default().Run(t.Context(), env, "/switch first"); err != nil {
		t.Fatal(err)
	}
	if e.Sessions().ID() != first {
		t.Fatalf("after /switch the current session is %s, want %s (%s)", e.Sessions().ID(), first, out)
	}
	out.Reset()
	if err := Default().Run(t.Context(), env, "/sessions"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "* "+termtext.ShortID(first)) || !strings.Contains(out.String(), "Second topic") {
		t.Fatalf("/sessions printed:\n%s", out)
	}
}

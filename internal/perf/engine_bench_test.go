package perf

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// instantModel is an agent.LLM that answers at once, as a server would:
// a Read of the file named on a user line "read <path>", else text; and
// it reports prompt_tokens (bytes/4 of the request, like llmtest), so the
// context manager calibrates as it does against a real server.
type instantModel struct{ calls int }

func (m *instantModel) ListModels(context.Context) ([]string, error) { return []string{"gpt-4.1"}, nil }

func (m *instantModel) Stream(_ context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	m.calls++
	n := 0
	for _, msg := range req.Messages {
		n += len(msg.Content) + 16
		for _, c := range msg.ToolCalls {
			n += len(c.Name) + len(c.Arguments) + 16
		}
	}
	resp := &llm.Response{Model: req.Model, FinishReason: "stop", Usage: llm.Usage{PromptTokens: n/4 + 2000, CompletionTokens: 20}}
	last := req.Messages[len(req.Messages)-1]
	if path, ok := strings.CutPrefix(last.Content, "read "); ok && last.Role == chat.RoleUser {
		resp.FinishReason = "tool_calls"
		resp.ToolCalls = []chat.ToolCall{{ID: fmt.Sprintf("call_%d", m.calls), Name: "Read", Arguments: fmt.Sprintf(`{"file_path":%q}`, path)}}
		return resp, nil
	}
	resp.Content = "Done. " + prose(uint64(m.calls), 200)
	onDelta(llm.Delta{Content: resp.Content})
	return resp, nil
}

// engineSession is a project, a store and a session of about ctxTokens
// tokens, written by the real engine (so its records carry whatever counts
// clawdcode stores), plus a pristine copy of the session file to restart
// from.
type engineSession struct {
	project  *storage.Project
	id, path string
	pristine []byte
	window   int
}

func newEngineSession(b *testing.B, ctxTokens, window int) *engineSession {
	b.Helper()
	root := b.TempDir()
	projectDir := filepath.Join(root, "project")
	if err := os.MkdirAll(projectDir, 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range 8 {
		if err := os.WriteFile(filepath.Join(projectDir, fmt.Sprintf("f%d.go", i)), []byte(code(uint64(i), 12<<10)), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	p, err := storage.NewStore(filepath.Join(root, "home")).Project(projectDir)
	if err != nil {
		b.Fatal(err)
	}
	es := &engineSession{project: p, window: window}
	eng := es.engine(b)
	ctx := context.Background()
	for i := 0; eng.Context().Usage().Tokens < ctxTokens; i++ {
		if _, err := eng.Turns().Submit(ctx, prose(uint64(i), 1000), nil); err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Turns().Submit(ctx, fmt.Sprintf("read f%d.go", i%8), nil); err != nil {
			b.Fatal(err)
		}
	}
	es.id = eng.Sessions().ID()
	if err := eng.Close(); err != nil {
		b.Fatal(err)
	}
	es.path = p.Path(es.id)
	if es.pristine, err = os.ReadFile(es.path); err != nil {
		b.Fatal(err)
	}
	return es
}

func (es *engineSession) engine(b *testing.B) *agent.Engine {
	b.Helper()
	eng, err := agent.New(agent.Config{
		Model:       "gpt-4.1",
		Window:      es.window,
		Threshold:   0.8,
		Project:     es.project,
		LLM:         &instantModel{},
		Permissions: tools.NewPermissions(tools.PermissionsConfig{}),
		Cache:       storage.NewCacheStore(4096, 10*time.Minute),
	})
	if err != nil {
		b.Fatal(err)
	}
	return eng
}

// resume restores the session as it was built and opens it in a new
// engine, as `clawdcode -c` does.
func (es *engineSession) resume(b *testing.B) *agent.Engine {
	b.Helper()
	if err := os.WriteFile(es.path, es.pristine, 0o600); err != nil {
		b.Fatal(err)
	}
	eng := es.engine(b)
	if err := eng.Sessions().Resume(context.Background(), es.id); err != nil {
		b.Fatal(err)
	}
	return eng
}

// turnsPerSession bounds how far a benchmark lets the session grow before
// starting again from the pristine copy, so every op sees ~the same
// context, no compaction fires and the size stays under the trigger by
// the bound alone (8 Read turns add ~28k tokens).
const turnsPerSession = 8

// BenchmarkTurnLocal100k is one turn of the real engine (store, tokenizer,
// context manager, tools) on a resumed 100k-token session with a model
// that answers at once: everything a turn does except waiting for the
// server and the HTTP encoding. Text: one request, the answer. ReadTool:
// the model asks Read (a 12 KB file), gets it, answers. The window is 200k
// (trigger 160k): the byte bound of the context is past the trigger, so
// the size must come from counts. Target ≤ 5 ms.
func BenchmarkTurnLocal100k(b *testing.B) {
	es := newEngineSession(b, 100_000, 200_000)
	for _, tc := range []struct{ name, prompt string }{
		{"Text", "One more small change, please."},
		{"ReadTool", "read f3.go"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			var eng *agent.Engine
			i := 0
			for b.Loop() {
				if i%turnsPerSession == 0 {
					b.StopTimer()
					if eng != nil {
						eng.Close()
					}
					eng = es.resume(b)
					// The first turn after a resume may load the tokenizer
					// once per process; the per-turn cost is the steady one.
					if _, err := eng.Turns().Submit(ctx, "warm up", nil); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				i++
				if _, err := eng.Turns().Submit(ctx, tc.prompt, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(eng.Context().Usage().Tokens)/1000, "ctx-ktok")
			if c := eng.Context().Usage(); c.Tokens < 100_000 {
				b.Fatalf("context shrank to %d tokens: a compaction fired", c.Tokens)
			}
			eng.Close()
		})
	}
}

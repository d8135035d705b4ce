package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

func responsesClient(t *testing.T, srv *llmtest.Server) (*Client, *sleepRecorder) {
	t.Helper()
	return newTestClient(t, srv.URL(), func(c *Config) { c.WireAPI = WireResponses })
}

func TestResponsesRoundTripWithToolCalls(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Reply{Text: "Reading both.", ToolCalls: []llmtest.ToolCall{
		llmtest.Call("Read", `{"file_path":"a.go"}`), llmtest.Call("Glob", `{"pattern":"**/*.md"}`)}})
	c, _ := responsesClient(t, srv)
	req := Request{
		Model: "gpt-5-codex",
		Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: "you are clawdcode"},
			{Role: chat.RoleUser, Content: "look"},
			{Role: chat.RoleAssistant, Content: "first", ToolCalls: []chat.ToolCall{{ID: "call_a", Name: "Bash", Arguments: `{"command":"ls"}`}}},
			{Role: chat.RoleTool, ToolCallID: "call_a", Content: "a.go"},
			{Role: chat.RoleUser, Content: "now read"},
		},
		Tools:               []chat.ToolDef{{Name: "Read", Parameters: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)}, {Name: "Glob"}, {Name: "Bash"}},
		MaxCompletionTokens: 500,
	}
	var streamed strings.Builder
	resp, err := c.Stream(context.Background(), req, func(d Delta) { streamed.WriteString(d.Content) })
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	got := srv.LastRequest()
	if got.Path != "/v1/responses" || got.Status != http.StatusOK {
		t.Fatalf("request to %s answered %d %s", got.Path, got.Status, got.Error)
	}
	if got.MaxCompletionTokens != 500 || len(got.Tools) != 3 || len(got.Messages) != 5 || got.Messages[0].Content != "you are clawdcode" {
		t.Fatalf("server decoded %+v", got)
	}
	var body map[string]any
	_ = json.Unmarshal(got.Body, &body)
	if body["store"] != false || body["instructions"] != "you are clawdcode" || body["stream"] != true {
		t.Fatalf("body = %s", got.Body)
	}
	if resp.Content != "Reading both." || streamed.String() != "Reading both." {
		t.Fatalf("content %q, streamed %q", resp.Content, streamed.String())
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].Name != "Read" || resp.ToolCalls[0].Arguments != `{"file_path":"a.go"}` ||
		resp.ToolCalls[1].Arguments != `{"pattern":"**/*.md"}` || resp.ToolCalls[0].ID == "" || resp.FinishReason != "tool_calls" {
		t.Fatalf("tool calls %+v finish %q", resp.ToolCalls, resp.FinishReason)
	}
	if resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
		t.Fatalf("usage %+v", resp.Usage)
	}
}

// The strict server rejects a function_call_output with no call before
// it, as the real API does; the mapping must never produce one.
func TestResponsesRejectedHistoryIsABadRequest(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	c, _ := responsesClient(t, srv)
	req := Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Content: "x"}, {Role: chat.RoleTool, ToolCallID: "nope", Content: "r"}}}
	le, _ := streamErr(t, c, req)
	if le.Kind != KindBadRequest {
		t.Fatalf("kind %v, want bad request: %v", le.Kind, le)
	}
}

func TestResponsesErrorsAreClassifiedAndRetried(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.RateLimited(2*time.Second), llmtest.Text("ok"))
	c, rec := responsesClient(t, srv)
	resp, err := c.Stream(context.Background(), userRequest("hi"), nil)
	if err != nil || resp.Content != "ok" {
		t.Fatalf("after a 429: %v, %+v", err, resp)
	}
	if len(rec.delays) != 1 || rec.delays[0] != 2*time.Second {
		t.Fatalf("retry delays %v, want Retry-After's 2s", rec.delays)
	}

	srv.Enqueue(llmtest.ContextLengthExceeded(1000, 5000))
	le, _ := streamErr(t, c, userRequest("big"))
	if le.Kind != KindOverflow {
		t.Fatalf("overflow classified as %v", le.Kind)
	}
}

func TestResponsesMidStreamErrorAndCut(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	c, _ := responsesClient(t, srv)
	for range 4 {
		srv.Enqueue(llmtest.MidStreamError(llmtest.Text("partial answer here"), 1))
	}
	le, _ := streamErr(t, c, userRequest("x"))
	if le.Kind != KindServer || !strings.Contains(le.Message, "server had an error") {
		t.Fatalf("mid-stream error: %v (%v)", le, le.Kind)
	}
	srv.Enqueue(llmtest.CutAfter(llmtest.Text("one two three four five"), 3))
	le, deltas := streamErr(t, c, userRequest("y"))
	if le.Kind != KindStreamCut || !le.Partial || len(deltas) == 0 {
		t.Fatalf("cut stream: %v kind %v partial %v deltas %v", le, le.Kind, le.Partial, deltas)
	}
}

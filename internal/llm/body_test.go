package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// bodyText is a random string of what JSON escapes or replaces: quotes,
// backslashes, HTML's <>&, control characters, U+2028 and U+2029,
// invalid UTF-8, and plain and non-ASCII text.
func bodyText(r *rand.Rand) string {
	alphabet := []string{"a", "Z", " ", "\"", "\\", "<", ">", "&", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
		"\u2028", "\u2029", "é", "—", "😀", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "{", "}", "null", `"messages":null`}
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// bodyRequest is a random chat completions request: every kind of message
// (text, parts with an image, tool calls, tool results, names, refusals),
// tools, and the other fields set or not.
func bodyRequest(r *rand.Rand) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: bodyText(r), Stream: r.IntN(4) > 0}
	if r.IntN(2) == 0 {
		req.MaxCompletionTokens = r.IntN(5000)
		req.Temperature = float32(r.IntN(3)) / 2
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	for range r.IntN(3) {
		req.Tools = append(req.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: bodyText(r), Description: bodyText(r),
			Parameters: json.RawMessage(`{"type":"object","properties":{"messages":null,"path":{"type":"string","description":"a <path> & more"}}}`),
		}})
	}
	n := r.IntN(12)
	if n > 0 || r.IntN(2) == 0 {
		req.Messages = make([]openai.ChatCompletionMessage, 0, n) // [] as well as null
	}
	for range n {
		m := openai.ChatCompletionMessage{Role: []string{"system", "user", "assistant", "tool"}[r.IntN(4)]}
		switch r.IntN(4) {
		case 0:
			m.MultiContent = []openai.ChatMessagePart{
				{Type: openai.ChatMessagePartTypeText, Text: bodyText(r)},
				{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,iVBO" + bodyText(r), Detail: openai.ImageURLDetailAuto}},
			}
		case 1:
			m.Content = bodyText(r)
			m.ToolCalls = []openai.ToolCall{{ID: bodyText(r), Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: bodyText(r), Arguments: bodyText(r)}}}
		case 2:
			m.Content, m.ToolCallID, m.Name = bodyText(r), bodyText(r), bodyText(r)
			if r.IntN(2) == 0 {
				m.Refusal, m.ReasoningContent = bodyText(r), bodyText(r)
			}
		default:
			m.Content = bodyText(r)
		}
		req.Messages = append(req.Messages, m)
	}
	return req
}

// sameAsMarshal fails unless chatBody(req) is json.Marshal(req), or both
// fail.
func sameAsMarshal(t *testing.T, req openai.ChatCompletionRequest) {
	t.Helper()
	want, wantErr := json.Marshal(req)
	b, err := chatBody(req)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("chatBody error %v, json.Marshal error %v", err, wantErr)
	}
	if err != nil {
		return
	}
	got, _ := io.ReadAll(b.reader())
	if !bytes.Equal(got, want) || b.size != int64(len(want)) {
		t.Fatalf("body (%d bytes, size %d):\n got %s\nwant %s", len(got), b.size, got, want)
	}
}

// TestChatBodyIsJSONMarshal: the body go-openai's pieces make is
// json.Marshal's, byte for byte, on random requests of every kind, and on
// one whose message go-openai refuses to marshal.
func TestChatBodyIsJSONMarshal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 5))
	for range 3000 {
		sameAsMarshal(t, bodyRequest(r))
	}
	bad := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "x",
		MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "y"}}}}}
	sameAsMarshal(t, bad)
}

// FuzzChatBodyIsJSONMarshal: any texts in any message fields.
func FuzzChatBodyIsJSONMarshal(f *testing.F) {
	f.Add("gpt-4o", "user", "hello", "", "", "")
	f.Add("m\"messages\":null", "tool", "<b>&\u2028", "call_1", "Read", `{"path":"\xff"}`)
	f.Fuzz(func(t *testing.T, model, role, content, id, name, args string) {
		req := openai.ChatCompletionRequest{Model: model, Stream: true, Messages: []openai.ChatCompletionMessage{
			{Role: role, Content: content, ToolCallID: id, Name: name},
			{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}}},
		}}
		sameAsMarshal(t, req)
	})
}

// resendingTransport reads each request's body, then reads it again
// through GetBody, as the HTTP client does when it must resend a request
// on another connection, and answers with a finished stream (or a 500 for
// the first attempt when failFirst).
type resendingTransport struct {
	mu        sync.Mutex
	failFirst bool
	bodies    [][]byte // what each attempt sent, read twice
	lengths   []int64
}

func (rt *resendingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	first, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	again, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	second, err := io.ReadAll(again)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(first, second) {
		return nil, fmt.Errorf("GetBody gave %d bytes, the body %d", len(second), len(first))
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.bodies = append(rt.bodies, first)
	rt.lengths = append(rt.lengths, req.ContentLength)
	if rt.failFirst && len(rt.bodies) == 1 {
		return &http.Response{StatusCode: http.StatusInternalServerError, Header: http.Header{}, Request: req,
			Body: io.NopCloser(strings.NewReader(`{"error":{"message":"try again","type":"server_error"}}`))}, nil
	}
	sse := `data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: req,
		Body: io.NopCloser(strings.NewReader(sse))}, nil
}

// TestRequestBodyCanBeSentAgain: a long conversation's body goes out
// whole with its length, the HTTP client can read it again (GetBody), and
// a retried attempt sends the very same bytes: json.Marshal's.
func TestRequestBodyCanBeSentAgain(t *testing.T) {
	t.Parallel()
	rt := &resendingTransport{failFirst: true}
	c, _ := newTestClient(t, "http://llm.invalid/v1", func(cfg *Config) { cfg.HTTPClient = &http.Client{Transport: rt} })
	req := Request{Model: "gpt-4o"}
	for i := range 200 {
		req.Messages = append(req.Messages,
			chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("turn %d <%s>", i, strings.Repeat("keep \"this\" in mind\n", 50))},
			chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: fmt.Sprint("call_", i), Name: "Read", Arguments: `{"file_path":"a.go"}`}}},
			chat.Message{Role: chat.RoleTool, ToolCallID: fmt.Sprint("call_", i), Content: "package a\n"})
	}
	resp, err := c.Stream(context.Background(), req, nil)
	if err != nil || resp.Content != "ok" {
		t.Fatalf("Stream = %+v, %v", resp, err)
	}
	oreq := toOpenAIRequest(req)
	oreq.Stream = true
	want, err := json.Marshal(oreq)
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.bodies) != 2 {
		t.Fatalf("%d attempts, want 2 (a 500, then the answer)", len(rt.bodies))
	}
	for i, b := range rt.bodies {
		if !bytes.Equal(b, want) || rt.lengths[i] != int64(len(want)) {
			t.Fatalf("attempt %d sent %d bytes (Content-Length %d), want json.Marshal's %d", i+1, len(b), rt.lengths[i], len(want))
		}
	}
}

// BenchmarkChatBody: a ~900 KB conversation (300 messages: prompts, tool
// calls and results of code) by json.Marshal and by chatBody, side by
// side.
func BenchmarkChatBody(b *testing.B) {
	req := Request{Model: "gpt-4.1", Messages: []chat.Message{{Role: chat.RoleSystem, Content: strings.Repeat("You are a coding agent. <rules> & more\n", 100)}}}
	code := strings.Repeat("func f(x int) int {\n\treturn x * 2 // \"double\" <b>\n}\n", 200)
	for i := 0; len(req.Messages) < 300; i++ {
		id := fmt.Sprint("call_", i)
		req.Messages = append(req.Messages, chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("please read file %d", i)},
			chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: id, Name: "Read", Arguments: `{"file_path":"/x/y.go"}`}}},
			chat.Message{Role: chat.RoleTool, ToolCallID: id, Content: code[:len(code)/(1+i%3)]})
	}
	oreq := toOpenAIRequest(req)
	oreq.Stream = true
	size, _ := json.Marshal(oreq)
	b.Run("json.Marshal", func(b *testing.B) {
		b.SetBytes(int64(len(size)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(oreq); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("chatBody", func(b *testing.B) {
		b.SetBytes(int64(len(size)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := chatBody(oreq); err != nil {
				b.Fatal(err)
			}
		}
	})
}

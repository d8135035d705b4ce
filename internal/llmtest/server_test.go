package llmtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// sseEvents returns the data payloads of a stream and the error that ended
// the read, if any.
func sseEvents(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	var events []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, p)
		}
	}
	return events, sc.Err()
}

func postStream(t *testing.T, url, body string) (*http.Response, []string, error) {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events, err := sseEvents(t, resp.Body)
	return resp, events, err
}

type chunk struct {
	Model   string `json:"model"`
	Object  string `json:"object"`
	Choices []struct {
		Index int `json:"index"`
		Delta map[string]json.RawMessage
		// finish_reason is null on all but the finish chunk
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

func TestStreamLooksLikeOpenAI(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{})
	srv.Enqueue(Reply{Text: "Hello there, world", ToolCalls: []ToolCall{Call("Read", `{"file_path":"a.txt"}`), {ID: "call_fixed", Name: "Bash", Arguments: `{"command":"ls"}`}}})
	_, events, err := postStream(t, srv.URL(), `{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"messages":[`+user+`]}`)
	if err != nil {
		t.Fatal(err)
	}
	if events[len(events)-1] != "[DONE]" {
		t.Fatalf("last event %q, want [DONE]", events[len(events)-1])
	}
	chunks := make([]chunk, len(events)-1)
	for i, e := range events[:len(events)-1] {
		if err := json.Unmarshal([]byte(e), &chunks[i]); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if chunks[i].Object != "chat.completion.chunk" || chunks[i].Model != "gpt-4o" {
			t.Errorf("event %d: object %q model %q", i, chunks[i].Object, chunks[i].Model)
		}
		if i < len(chunks)-1 && string(chunks[i].Usage) != "null" {
			t.Errorf("event %d: usage %s, want null before the usage chunk", i, chunks[i].Usage)
		}
	}
	if string(chunks[0].Choices[0].Delta["role"]) != `"assistant"` {
		t.Errorf("first delta %v, want the role", chunks[0].Choices[0].Delta)
	}
	var text strings.Builder
	args := map[int]string{}
	var firsts []map[string]any
	for _, c := range chunks[1 : len(chunks)-2] {
		d := c.Choices[0].Delta
		if raw, ok := d["content"]; ok {
			var s string
			_ = json.Unmarshal(raw, &s)
			text.WriteString(s)
		}
		if raw, ok := d["tool_calls"]; ok {
			var tcs []map[string]any
			_ = json.Unmarshal(raw, &tcs)
			tc := tcs[0]
			idx := int(tc["index"].(float64))
			fn := tc["function"].(map[string]any)
			if _, hasID := tc["id"]; hasID {
				if fn["arguments"] != "" || fn["name"] == nil || tc["type"] != "function" {
					t.Errorf("first delta of call %d: %v", idx, tc)
				}
				firsts = append(firsts, tc)
			} else if _, hasName := fn["name"]; hasName {
				t.Errorf("later delta of call %d repeats the name: %v", idx, tc)
			}
			args[idx] += fn["arguments"].(string)
		}
	}
	if text.String() != "Hello there, world" {
		t.Errorf("text %q", text.String())
	}
	if len(firsts) != 2 || firsts[0]["id"] != "call_001" || firsts[1]["id"] != "call_fixed" || args[0] != `{"file_path":"a.txt"}` || args[1] != `{"command":"ls"}` {
		t.Errorf("tool calls %v args %v", firsts, args)
	}
	finish := chunks[len(chunks)-2].Choices[0]
	if finish.FinishReason == nil || *finish.FinishReason != "tool_calls" || len(finish.Delta) != 0 {
		t.Errorf("finish chunk %+v, want delta {} and tool_calls", finish)
	}
	last := chunks[len(chunks)-1]
	var usage struct{ PromptTokens, CompletionTokens, TotalTokens int }
	_ = json.Unmarshal(bytes.ReplaceAll(last.Usage, []byte("_tokens"), []byte("Tokens")), &usage)
	if last.Choices == nil || len(last.Choices) != 0 || usage.PromptTokens != srv.LastRequest().Tokens || usage.CompletionTokens == 0 {
		t.Errorf("usage chunk choices %v usage %s (request estimate %d)", last.Choices, last.Usage, srv.LastRequest().Tokens)
	}
}

func TestStreamWithoutIncludeUsageHasNoUsage(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{})
	srv.Enqueue(Text("hi"))
	_, events, err := postStream(t, srv.URL(), `{"model":"m","stream":true,"messages":[`+user+`]}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if strings.Contains(e, `"usage"`) {
			t.Errorf("usage sent without stream_options.include_usage: %s", e)
		}
	}
}

func TestNonStreamingJSON(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{})
	srv.Enqueue(ToolCalls(Call("Glob", `{"pattern":"*.go"}`)))
	status, b := post(t, srv.URL(), body(user))
	var resp struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(b, &resp); err != nil || status != 200 {
		t.Fatalf("%d %s", status, b)
	}
	m := resp.Choices[0].Message
	if resp.Object != "chat.completion" || m.Content != nil || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"pattern":"*.go"}` ||
		resp.Choices[0].FinishReason != "tool_calls" || resp.Usage.PromptTokens == 0 {
		t.Errorf("response %s", b)
	}
}

func TestWindowOverflow(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{Window: 5})
	srv.Enqueue(Text("kept for later"))
	status, b := post(t, srv.URL(), body(sys, user))
	e := decodeError(t, b)
	req := srv.LastRequest()
	if status != 400 || deref(e.Error.Code) != "context_length_exceeded" || deref(e.Error.Param) != "messages" ||
		e.Error.Message != overflowMessage(5, req.Tokens, 0) || req.Status != 400 {
		t.Errorf("%d %s", status, b)
	}
	if srv.Pending() != 1 {
		t.Error("a rejected request consumed a scripted reply")
	}
	srv.SetWindow(1000)
	status, b = post(t, srv.URL(), `{"model":"m","max_completion_tokens":995,"messages":[`+user+`]}`)
	if e := decodeError(t, b); status != 400 || !strings.Contains(e.Error.Message, "in the completion") {
		t.Errorf("with max_completion_tokens: %d %s", status, b)
	}
	status, _ = post(t, srv.URL(), body(user))
	if status != 200 || srv.Pending() != 0 {
		t.Errorf("a request that fits got %d", status)
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	r := Request{Messages: []chat.Message{{Role: "user", Content: "hello"}}}
	// [{"role":"user","content":"hello"}] is 35 bytes → 9 tokens.
	if got := EstimateTokens(r); got != 9 {
		t.Errorf("EstimateTokens = %d, want 9", got)
	}
	srv := NewServer(t, Options{Tokens: func(Request) int { return 42 }})
	srv.Enqueue(Text("x"))
	post(t, srv.URL(), body(user))
	if got := srv.LastRequest().Tokens; got != 42 {
		t.Errorf("Options.Tokens ignored: %d", got)
	}
}

func TestScriptOrder(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{})
	status, b := post(t, srv.URL(), body(user))
	if status != 400 || !strings.Contains(string(b), "no reply scripted") {
		t.Errorf("unscripted request: %d %s", status, b)
	}
	srv.Enqueue(Text("first"), RateLimited(2*time.Second))
	srv.SetResponder(func(r Request) Reply { return Text("from responder for " + r.Model) })
	_, b1 := post(t, srv.URL(), body(user))
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body(user)))
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, b3 := post(t, srv.URL(), body(user))
	if !strings.Contains(string(b1), `"first"`) || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" ||
		!strings.Contains(string(b2), "rate_limit_exceeded") || !strings.Contains(string(b3), "from responder for gpt-4o") {
		t.Errorf("replies out of order: %s | %d %s %s | %s", b1, resp.StatusCode, resp.Header, b2, b3)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || reqs[0].Status != 400 || reqs[1].Status != 200 || reqs[2].Status != 429 || !strings.HasPrefix(reqs[2].Error, "Rate limit reached") || reqs[3].Messages[0].Content != "u" {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestCutDropsTheConnection(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{})
	srv.Enqueue(CutAfter(Text("one two three"), 2), CutAfter(Text("json"), 0))
	_, events, err := postStream(t, srv.URL(), `{"model":"m","stream":true,"messages":[`+user+`]}`)
	if len(events) != 2 || err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("events %q err %v, want 2 events then an unexpected EOF", events, err)
	}
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body(user)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Error("a cut non-streaming body read cleanly")
	}
}

func TestMidStreamError(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{})
	srv.Enqueue(MidStreamError(Text("a b c"), 2))
	_, events, err := postStream(t, srv.URL(), `{"model":"m","stream":true,"messages":[`+user+`]}`)
	if err != nil || len(events) != 4 || !strings.HasPrefix(events[2], `{"error":{"message":"The server had an error`) || events[3] != "[DONE]" {
		t.Errorf("events %q err %v", events, err)
	}
}

func TestHangEndsWithClientOrServer(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{})
	srv.Enqueue(Hang(), Reply{Text: "late", Delay: time.Hour})

	// The client gives up once the server holds its request: a wait for
	// that event, not a deadline a loaded machine can pass before the
	// request arrives.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hung := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(body(user)))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		hung <- err
	}()
	waitRequests(srv, 1)
	cancel()
	if err := <-hung; !errors.Is(err, context.Canceled) {
		t.Errorf("hang: %v, want the client's cancellation", err)
	}
	if st := srv.LastRequest().Status; st != 0 {
		t.Errorf("a request that was never answered recorded status %d", st)
	}

	done := make(chan error, 1)
	go func() {
		resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body(user)))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	waitRequests(srv, 2)
	srv.Close()
	// A safety net only: the delayed handler would otherwise hold on for
	// an hour.
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Close did not release a delayed handler")
	}
}

// waitRequests waits until srv has received n requests (the test's
// deadline bounds it).
func waitRequests(srv *Server, n int) {
	for len(srv.Requests()) < n {
		time.Sleep(time.Millisecond)
	}
}

func TestAPIKeyRequired(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{APIKey: "sk-right"})
	srv.SetResponder(func(Request) Reply { return Text("ok") })
	for key, want := range map[string]int{"": 401, "Bearer sk-wrong": 401, "Bearer sk-right": 200} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(body(user)))
		if key != "" {
			req.Header.Set("Authorization", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || (want == 401 && !strings.Contains(string(b), "invalid_api_key")) {
			t.Errorf("Authorization %q: %d %s, want %d", key, resp.StatusCode, b, want)
		}
		if r := srv.LastRequest(); r.Model != "gpt-4o" || r.Status != want {
			t.Errorf("recorded model %q status %d: a rejected request is still decoded", r.Model, r.Status)
		}
	}
}

func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{})
	srv.SetResponder(Agent())
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			_, events, err := postStream(t, srv.URL(), `{"model":"m","stream":true,"messages":[{"role":"user","content":"read x.txt"}]}`)
			if err != nil || events[len(events)-1] != "[DONE]" {
				t.Errorf("events %q err %v", events, err)
			}
		})
	}
	wg.Wait()
	for _, r := range srv.Requests() {
		if r.Status != 200 {
			t.Errorf("status %d", r.Status)
		}
	}
	if len(srv.Requests()) != 16 {
		t.Errorf("%d requests recorded", len(srv.Requests()))
	}
}

func TestAgentResponder(t *testing.T) {
	t.Parallel()
	agent := Agent()
	calls := agent(Request{Messages: []chat.Message{{Role: "user", Content: "please:\nREAD src/a.go\nwrite out.txt hello world\nbash ls -la | wc -l\nread"}}})
	want := []ToolCall{
		{Name: "Read", Arguments: `{"file_path":"src/a.go"}`},
		{Name: "Write", Arguments: `{"content":"hello world","file_path":"out.txt"}`},
		{Name: "Bash", Arguments: `{"command":"ls -la | wc -l"}`},
	}
	if len(calls.ToolCalls) != len(want) {
		t.Fatalf("calls %+v", calls.ToolCalls)
	}
	for i := range want {
		if calls.ToolCalls[i] != want[i] {
			t.Errorf("call %d = %+v, want %+v", i, calls.ToolCalls[i], want[i])
		}
	}
	if r := agent(Request{Messages: []chat.Message{{Role: "user", Content: "hello\nthere"}}}); r.Text != "You said: hello" || len(r.ToolCalls) != 0 {
		t.Errorf("plain message answered %+v", r)
	}
	final := agent(Request{Messages: []chat.Message{
		{Role: "user", Content: "read a"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{{ID: "c1", Name: "Read"}, {ID: "c2", Name: "Read"}}},
		{Role: "tool", ToolCallID: "c1", Content: "line one\nline two"},
		{Role: "tool", ToolCallID: "c2", Content: ""},
	}})
	wantText := "Tool results:\n- c1: " + Digest("line one\nline two") + "\n- c2: \"\" (0 bytes, sha256 e3b0c44298fc)"
	if final.Text != wantText || !strings.HasPrefix(Digest("line one\nline two"), `"line one" (17 bytes, sha256 `) {
		t.Errorf("final text %q", final.Text)
	}
}

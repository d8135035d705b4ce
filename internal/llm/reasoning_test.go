package llm

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// streamDeltas runs one Stream against a server sending body and returns
// the reply and the deltas as they came, reasoning and text apart.
func streamDeltas(t *testing.T, body []byte, mod ...func(*Config)) (resp *Response, reasoning, text []string) {
	t.Helper()
	srv := newRawServer(t, body)
	c, _ := newTestClient(t, srv.URL, mod...)
	resp, err := c.Stream(context.Background(), userRequest("hi"), func(d Delta) {
		if d.Reasoning != "" {
			reasoning = append(reasoning, d.Reasoning)
		}
		if d.Content != "" {
			text = append(text, d.Content)
		}
		if d.Reasoning != "" && d.Content != "" {
			t.Errorf("one delta carries both reasoning %q and text %q", d.Reasoning, d.Content)
		}
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return resp, reasoning, text
}

// A recorded stream with reasoning_content (vercel/ai's fixture of a
// provider that sends it beside an empty tool_calls array): the reasoning
// streams as reasoning deltas, each as it came, and stays out of the reply.
func TestStreamReasoningContentFixture(t *testing.T) {
	t.Parallel()
	resp, reasoning, text := streamDeltas(t, readFixtureStream(t, "vercel_issue20203_empty_tool_calls_array.jsonl", true))
	if want := []string{"Think ", "more..."}; !reflect.DeepEqual(reasoning, want) {
		t.Errorf("reasoning deltas = %q, want %q", reasoning, want)
	}
	if !reflect.DeepEqual(text, []string{"Hello"}) || resp.Content != "Hello" {
		t.Errorf("text deltas %q, content %q: want only \"Hello\", no reasoning in the reply", text, resp.Content)
	}
}

// OpenRouter and Ollama name the field "reasoning" (a stream in the shape
// OpenRouter documents, with its processing comment): shown the same way.
func TestStreamReasoningField(t *testing.T) {
	t.Parallel()
	body := strings.Join([]string{
		": OPENROUTER PROCESSING",
		``,
		`data: {"id":"gen-1","object":"chat.completion.chunk","model":"deepseek/deepseek-r1","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"The user says hi."},"finish_reason":null}]}`,
		``,
		`data: {"id":"gen-1","object":"chat.completion.chunk","model":"deepseek/deepseek-r1","choices":[{"index":0,"delta":{"content":"","reasoning":" Greet back."},"finish_reason":null}]}`,
		``,
		`data: {"id":"gen-1","object":"chat.completion.chunk","model":"deepseek/deepseek-r1","choices":[{"index":0,"delta":{"content":"Hi!","reasoning":null},"finish_reason":"stop"}]}`,
		``,
		`data: [DONE]`,
		``, ``,
	}, "\n")
	resp, reasoning, text := streamDeltas(t, []byte(body))
	if want := []string{"The user says hi.", " Greet back."}; !reflect.DeepEqual(reasoning, want) {
		t.Errorf("reasoning deltas = %q, want %q", reasoning, want)
	}
	if !reflect.DeepEqual(text, []string{"Hi!"}) || resp.Content != "Hi!" || resp.FinishReason != "stop" {
		t.Errorf("text %q, reply %+v", text, resp)
	}
}

// The Responses API streams a reasoning summary (and open models' reasoning
// text) as events of their own, before the answer's output text.
func TestResponsesStreamReasoningSummary(t *testing.T) {
	t.Parallel()
	body := strings.Join([]string{
		`event: response.reasoning_summary_text.delta`,
		`data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**Planning** a greeting"}`,
		``,
		`event: response.reasoning_text.delta`,
		`data: {"type":"response.reasoning_text.delta","item_id":"rs_1","output_index":0,"content_index":0,"delta":"say hi"}`,
		``,
		`event: response.output_text.delta`,
		`data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hello."}`,
		``,
		`event: response.completed`,
		`data: {"type":"response.completed","response":{"model":"gpt-5","status":"completed","usage":{"input_tokens":5,"output_tokens":9}}}`,
		``, ``,
	}, "\n")
	resp, reasoning, text := streamDeltas(t, []byte(body), func(c *Config) { c.WireAPI = WireResponses })
	if want := []string{"**Planning** a greeting", "say hi"}; !reflect.DeepEqual(reasoning, want) {
		t.Errorf("reasoning deltas = %q, want %q", reasoning, want)
	}
	if !reflect.DeepEqual(text, []string{"Hello."}) || resp.Content != "Hello." {
		t.Errorf("text %q, content %q", text, resp.Content)
	}
}

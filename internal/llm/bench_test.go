package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// BenchmarkStreamTextReply is the client's own cost of one streamed reply
// (~60 chunks) over loopback against a server that answers at once.
func BenchmarkStreamTextReply(b *testing.B) {
	srv := llmtest.NewServer(b, llmtest.Options{})
	text := strings.Repeat("word ", 60)
	srv.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Text(text) })
	c, _ := newTestClient(b, srv.URL())
	req := userRequest("hello")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Stream(context.Background(), req, func(Delta) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAccumulateToolCall folds a tool call whose 64 KiB of arguments
// arrive in 8-byte pieces, as a large Write does.
func BenchmarkAccumulateToolCall(b *testing.B) {
	first := openai.ChatCompletionStreamResponse{}
	_ = json.Unmarshal([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"Write","arguments":""}}]}}]}`), &first)
	var pieces []openai.ChatCompletionStreamResponse
	for i := 0; i < 8192; i++ {
		var c openai.ChatCompletionStreamResponse
		_ = json.Unmarshal(fmt.Appendf(nil, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"%08d"}}]}}]}`, i), &c)
		pieces = append(pieces, c)
	}
	b.ReportAllocs()
	b.SetBytes(8 * 8192)
	for b.Loop() {
		var acc accumulator
		acc.add(&first)
		for i := range pieces {
			acc.add(&pieces[i])
		}
		if len(acc.response().ToolCalls) != 1 {
			b.Fatal("lost the call")
		}
	}
}

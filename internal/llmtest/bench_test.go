package llmtest

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkCheckRequest is the server's work on one large request before
// it answers (decode, validate, count tokens, meter the prefix cache): a
// context bench sends thousands of them, each up to a window's size.
func BenchmarkCheckRequest(b *testing.B) {
	msgs := []map[string]any{{"role": "system", "content": strings.Repeat("You are a coding agent.\n", 200)}}
	for i := range 100 {
		id := "call_" + strings.Repeat("x", 3) + string(rune('a'+i%26))
		msgs = append(msgs,
			map[string]any{"role": "user", "content": "Read the file, please.\n" + strings.Repeat("some words of a prompt ", 40)},
			map[string]any{"role": "assistant", "tool_calls": []map[string]any{{"id": id, "type": "function",
				"function": map[string]any{"name": "Read", "arguments": `{"file_path":"src/a.go"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Repeat("line of the file\twith a tab\n", 100)},
		)
	}
	body, err := json.Marshal(map[string]any{"model": "gpt-4o", "stream": true, "messages": msgs,
		"tools": []map[string]any{{"type": "function", "function": map[string]any{"name": "Read", "description": "Reads a file.",
			"parameters": map[string]any{"type": "object"}}}}})
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{}
	opts := Options{Tokens: OpenAITokens, PromptCache: true}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req := Request{Path: "/v1/chat/completions", Body: body}
		if status, _, msg := s.check(&req, opts); status != 0 {
			b.Fatalf("%d %s", status, msg)
		}
		req.CachedTokens = s.cache.cached(req, cacheParts(req), s.tokens(opts))
	}
}

package llm

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// bodyText is a random string of what JSON escapes or replaces: quotes,
// backslashes, HTML's <>&, control characters, U+2028 and U+2029,
// invalid UTF-8, and plain and non-ASCII text.
func bodyText(r *rand.Rand) string {
	alphabet := []string{"a", "Z", " ", "\"", "\\", "<", ">", "&", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "\u2027", "é", "—", "😀", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "{", "}", "null"}
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// bodyRequest is a random chat completions request: every kind of message
// (text, parts with images, tool calls, tool results, names), tools, and
// the other fields set or not.
func bodyRequest(r *rand.Rand) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: bodyText(r), Stream: true}
	if r.IntN(2) == 0 {
		req.MaxCompletionTokens = r.IntN(5000)
		req.Temperature = float32(r.IntN(3)) / 2
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	for range r.IntN(3) {
		req.Tools = append(req.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: bodyText(r), Description: bodyText(r),
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"a <path> & more"}}}`),
		}})
	}
	for range r.IntN(12) {
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

// TestChatBodyIsJSONMarshal: the spliced body is json.Marshal's, byte for
// byte, on random requests of every kind.
func TestChatBodyIsJSONMarshal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 5))
	for i := range 3000 {
		req := bodyRequest(r)
		want, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := chatBody(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("request %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// BenchmarkChatBody: a 560 KB conversation (100 messages) by json.Marshal
// and by chatBody, side by side.
func BenchmarkChatBody(b *testing.B) {
	req := openai.ChatCompletionRequest{Model: "gpt-4o", Stream: true}
	for i := range 50 {
		req.Messages = append(req.Messages,
			openai.ChatCompletionMessage{Role: "user", Content: strings.Repeat("Turn <x> & keep \"this\" in mind — ok. ", 200) + string(rune('a'+i%26))},
			openai.ChatCompletionMessage{Role: "assistant", Content: "Noted."})
	}
	size, _ := json.Marshal(req)
	for _, c := range []struct {
		name string
		fn   func(openai.ChatCompletionRequest) ([]byte, error)
	}{{"json.Marshal", func(r openai.ChatCompletionRequest) ([]byte, error) { return json.Marshal(r) }}, {"chatBody", chatBody}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(size)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.fn(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
